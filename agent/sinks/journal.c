/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journald sink: one entry per slow call, per summary, per loss report. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "sinks/fields.h"
#include "sinks/journal.h"
#include "sinks/native.h"
#include "sinks/writer.h"
#include "base/macro.h"

#define FIELD_NAME_MAX 64
#define DIRECT_TIMEOUT_MS 5000 /* a send before the writer runs waits this long for journald */

struct journal {
	struct journal_opts opts;
	uint64_t written, failed; /* sent here, not through the writer */
	struct writer *writer;    /* reliability: entries go through its thread once set */
	int fd;                   /* until then, entries are sent here */
	struct fields event;      /* the event entry being built, its buffer kept */
	bool building;
};

/* Before the writer runs: sent at once, on a socket of the journal's own. */
static int direct_send(struct journal *j, const struct fields *f)
{
	int r = j->fd < 0 ? (j->fd = native_connect(NATIVE_SOCKET)) : 0;

	if (r >= 0) {
		r = native_send(j->fd, f->buf, f->len, DIRECT_TIMEOUT_MS);
		/* journald restarted since the last send: once more on a new connection */
		if (r < 0 && native_disconnected(-r)) {
			close(j->fd);
			j->fd = native_connect(NATIVE_SOCKET);
			r = j->fd < 0 ? j->fd : native_send(j->fd, f->buf, f->len, DIRECT_TIMEOUT_MS);
		}
	}
	if (r < 0)
		j->failed++;
	else
		j->written++;
	return r;
}

/*
 * The entry built in f: queued to the writer thread once there is one (id,
 * carry: see writer_push()), else sent here.
 */
static int entry_send(struct journal *j, const struct fields *f, int32_t id, const struct loss *carry,
		      unsigned int n_carry)
{
	if (f->error) {
		j->failed++;
		return f->error;
	}
	if (j->writer)
		return writer_push(j->writer, f->buf, f->len, id, carry, n_carry);
	return direct_send(j, f);
}

static int fields_send(struct journal *j, struct fields *f)
{
	return entry_send(j, f, -1, NULL, 0);
}

void journal_set_writer(struct journal *j, struct writer *w)
{
	j->writer = w;
	if (w && j->fd >= 0) {
		close(j->fd);
		j->fd = -EBADF;
	}
}

void journal_flush(struct journal *j)
{
	if (j && j->writer)
		writer_kick(j->writer);
}

bool journal_field_name_valid(const char *name)
{
	size_t n;

	if (!name || !name[0] || name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (n = 0; name[n]; n++) {
		char c = name[n];

		if (n >= FIELD_NAME_MAX)
			return false;
		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

int journal_probe(void)
{
	static const struct sockaddr_un sa = {
		.sun_family = AF_UNIX,
		.sun_path = NATIVE_SOCKET,
	};
	_cleanup_close_ int fd = -EBADF;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

int journal_new(const struct journal_opts *o, struct journal **ret)
{
	struct journal *j;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->fd = -EBADF;
	if (o)
		j->opts = *o;
	else
		j->opts = (struct journal_opts) {
			.priority_slow = LOG_WARNING,
			.priority_summary = LOG_INFO,
			.priority_lost = LOG_ERR,
		};
	*ret = j;
	return 0;
}

void journal_free(struct journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	fields_done(&j->event);
	free(j);
}

uint64_t journal_failed(const struct journal *j)
{
	return j ? j->failed : 0;
}

uint64_t journal_written(const struct journal *j)
{
	return j ? j->written : 0;
}

/*
 * What every entry carries: its kind, priority and source as syslog knows
 * them; facility daemon, so that syslog rules (daemon.*) and shippers
 * file it with the system's services rather than as user messages.
 */
static void fields_add_common(struct fields *f, const char *message_id, int priority)
{
	fields_adds(f, "MESSAGE_ID", message_id);
	fields_addi(f, "PRIORITY", priority);
	fields_addi(f, "SYSLOG_FACILITY", LOG_FAC(LOG_DAEMON));
	fields_adds(f, "SYSLOG_IDENTIFIER", "smblat");
}

/* comm is padded by some tools; trailing blanks only make matches fail. */
static void comm_clean(const char *comm, char out[static SMBLAT_COMM_LEN + 1])
{
	size_t n = strnlen(comm, SMBLAT_COMM_LEN);

	while (n > 0 && comm[n - 1] == ' ')
		n--;
	memcpy(out, comm, n);
	out[n] = '\0';
}

static void fields_add_ret(struct fields *f, const struct record *r)
{
	char buf[32];

	if (r->has_ret)
		fields_adds(f, "RETVAL", record_ret_text(r, buf, sizeof(buf)));
}

static void fields_add_args(struct fields *f, const struct record *r)
{
	unsigned int n = r->nargs < SMBLAT_MAX_ARGS ? r->nargs : SMBLAT_MAX_ARGS;

	if (n == 0)
		return;
	fields_open(f, "ARGS");
	for (unsigned int i = 0; i < n; i++) {
		fields_cat(f, i ? " 0x" : "0x");
		fields_catx(f, r->args[i]);
	}
	fields_end(f);
}

/* What the layer of the event added. */
static void fields_add_layer(struct fields *f, const struct record *r)
{
	for (unsigned int i = 0; i < r->n_fields; i++)
		fields_adds(f, r->fields[i].name, r->fields[i].value);
	if (r->fields_dropped)
		fields_addu(f, "FIELDS_DROPPED", r->fields_dropped, false);
}

/*
 * Why the call was logged: it took at least its threshold, or it failed
 * faster than that and errors=yes logs failed calls whatever their latency.
 */
static bool record_slow(const struct record *r)
{
	return r->latency_ns >= r->threshold_ns;
}

/*
 * "INODE_OP_UNLINK took 16.351 ms: rm[48782] on \\srv\share file a.txt (error ENOENT)",
 * "... failed in 2.031 ms: ..." when logged for the error alone.
 */
static void fields_add_message(struct fields *f, const struct record *r, const char *comm, const char *ename)
{
	uint64_t us = r->latency_ns / 1000;
	const char *verb = record_slow(r) ? "took" : "failed in";

	if (r->message) {
		fields_adds(f, "MESSAGE", r->message);
		return;
	}
	fields_open(f, "MESSAGE");
	fields_cat(f, r->func->name);
	fields_cat(f, " ");
	fields_cat(f, verb);
	fields_cat(f, " ");
	fields_catu(f, us / 1000, 1);
	fields_cat(f, ".");
	fields_catu(f, us % 1000, 3);
	fields_cat(f, " ms: ");
	fields_cat(f, comm);
	fields_cat(f, "[");
	fields_catu(f, r->pid, 1);
	fields_cat(f, "]");
	if (r->place) {
		/* "BLOCK_WRITE took 1.204 ms: dd[4242] on loop0, 65536 bytes at sector 2048" */
		fields_cat(f, " on ");
		fields_cat(f, r->place);
	} else {
		if (r->share) {
			fields_cat(f, " on ");
			fields_cat(f, r->share);
		}
		if (r->file) {
			fields_cat(f, " file ");
			fields_cat(f, r->file);
		}
	}
	if (ename) {
		fields_cat(f, " (error ");
		fields_cat(f, ename);
		fields_cat(f, ")");
	} else if (r->err) {
		fields_cat(f, " (error ");
		fields_catu(f, r->err < 0 ? -(uint64_t)r->err : (uint64_t)r->err, 1);
		fields_cat(f, ")");
	}
	fields_end(f);
}

static int event_fields(const struct record *r, int priority, struct fields *f)
{
	const struct func *fn = r->func;
	const char *ename = r->err ? strerrorname_np(r->err) : NULL;
	char comm[SMBLAT_COMM_LEN + 1];

	if (!fn || !fn->name)
		return -EINVAL;
	comm_clean(r->comm, comm);

	fields_add_message(f, r, comm, ename);
	fields_add_common(f, r->message_id ?: SMBLAT_MID_SLOW, priority);
	fields_adds(f, "FUNCTION", fn->name);
	fields_adds(f, "LAYER", layer_name(fn->layer));
	if (r->target)
		fields_adds(f, "TARGET", r->target);
	else if (fn->symbol)
		fields_adds(f, fn->kernel ? "KERNEL_FUNCTION" : "TARGET", fn->symbol);
	if (!r->message_id || r->latency_ns)
		fields_addu(f, "LATENCY_US", r->latency_ns / 1000, false);
	/* an exit or a connection event is logged for itself, neither slow nor failed */
	if (!r->message_id) {
		fields_addu(f, "THRESHOLD_US", r->threshold_ns / 1000, false);
		fields_adds(f, "REASON", record_slow(r) ? "slow" : "error");
	}
	fields_addu(f, "END_REALTIME_USEC", r->end_realtime_us, false);
	fields_addu(f, "PID", r->pid, false);
	/* not TID: journald's TID= is the thread that logs the entry (systemd.journal-fields(7)) */
	fields_addu(f, "THREAD_ID", r->tid, false);
	fields_addu(f, "UID", r->uid, false);
	fields_adds(f, "COMM", comm);
	if (r->share)
		fields_adds(f, "SMB_SHARE", r->share);
	if (r->file)
		fields_adds(f, "FILE", r->file);
	if (r->err) {
		fields_addi(f, "ERRNO", r->err);
		if (ename)
			fields_adds(f, "ERRNO_NAME", ename);
	}
	fields_add_layer(f, r);
	fields_add_ret(f, r);
	fields_add_args(f, r);
	fields_add_stack(f, "STACK", r->stack, '\n', false, JOURNAL_STACK_MAX);
	fields_add_stack(f, "STACK_FOLDED", r->stack_folded, ';', true, JOURNAL_STACK_MAX);
	return f->error;
}

int journal_event_fields(const struct record *r, char ***fields)
{
	_cleanup_fields_ struct fields f = {};
	int r_;

	r_ = event_fields(r, LOG_WARNING, &f);
	if (r_ < 0)
		return r_;
	return fields_steal(&f, fields);
}

int journal_write_event(struct journal *j, const struct record *r)
{
	_cleanup_fields_ struct fields local = {};
	struct fields *f = j->building ? &local : &j->event;
	int k;

	/* journald behind: refused as a full queue would refuse it, without building it */
	if (j->writer && writer_full(j->writer))
		return writer_refuse(j->writer);
	fields_reset(f);
	j->building = true;
	k = event_fields(r, r->routine ? j->opts.priority_summary : j->opts.priority_slow, f);
	if (k >= 0)
		k = entry_send(j, f, (int32_t)r->func->id, NULL, 0);
	else
		j->failed++;
	j->building = false;
	return k;
}

/* Intervals are whole seconds in practice; keep them readable then. */
static void format_interval(char *buf, size_t n, double interval_s)
{
	if (interval_s == (double)(uint64_t)interval_s)
		snprintf(buf, n, "%" PRIu64, (uint64_t)interval_s);
	else
		snprintf(buf, n, "%.3f", interval_s);
}

static int summary_fields(const struct func *fn, const struct summary *s, double interval_s, int priority,
			  const char *message_id, struct fields *f)
{
	_cleanup_free_ char *hist = NULL, *report = NULL;
	char interval[32];

	if (!fn || !fn->name || !s)
		return -EINVAL;
	hist = hist_format_compact(s);
	report = hist_format_report(fn, s, interval_s);
	if (!hist || !report)
		return -ENOMEM;
	format_interval(interval, sizeof(interval), interval_s);

	fields_adds(f, "MESSAGE", report);
	fields_add_common(f, message_id, priority);
	fields_adds(f, "FUNCTION", fn->name);
	fields_adds(f, "LAYER", layer_name(fn->layer));
	fields_adds(f, "INTERVAL_S", interval);
	fields_addf(f, "COUNT", "%" PRIu64, s->count);
	fields_addf(f, "TOTAL_US", "%" PRIu64, s->total_ns / 1000);
	if (s->count > 0) {
		/* with no calls there is no minimum, and 0 would read as a measurement */
		if (s->min_ns != UINT64_MAX)
			fields_addf(f, "MIN_US", "%" PRIu64, s->min_ns / 1000);
		fields_addf(f, "AVG_US", "%" PRIu64, s->total_ns / s->count / 1000);
		fields_addf(f, "MAX_US", "%" PRIu64, s->max_ns / 1000);
		fields_addf(f, "P50_US", "%" PRIu64, hist_percentile(s, 50) / 1000);
		fields_addf(f, "P90_US", "%" PRIu64, hist_percentile(s, 90) / 1000);
		fields_addf(f, "P99_US", "%" PRIu64, hist_percentile(s, 99) / 1000);
	}
	fields_addf(f, "SLOW_COUNT", "%" PRIu64, s->slow);
	fields_adds(f, "HIST", hist);
	return f->error;
}

int journal_summary_fields(const struct func *fn, const struct summary *s, double interval_s, char ***fields)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = summary_fields(fn, s, interval_s, LOG_INFO, SMBLAT_MID_SUMMARY, &f);
	if (k < 0)
		return k;
	return fields_steal(&f, fields);
}

int journal_write_view_summary(struct journal *j, const char *function, enum layer_id layer,
			       const struct summary *s, double interval_s, const struct record_field *extra,
			       unsigned int n, const char *message_id)
{
	_cleanup_fields_ struct fields f = {};
	struct func fn = { .name = (char *)function, .layer = layer };
	int k;

	/* the view's own kind of summary: its MESSAGE_ID in place of the generic one */
	k = summary_fields(&fn, s, interval_s, j->opts.priority_summary,
			   message_id ? message_id : SMBLAT_MID_SUMMARY, &f);
	for (unsigned int i = 0; k >= 0 && i < n; i++)
		fields_adds(&f, extra[i].name, extra[i].value);
	if (k < 0 || f.error) {
		j->failed++;
		return k < 0 ? k : f.error;
	}
	return fields_send(j, &f);
}

static int view_fields(const char *function, enum layer_id layer, const char *message_id, const char *message,
		       int priority, const struct record_field *extra, unsigned int n, struct fields *f)
{
	if (!function || !message_id || !message)
		return -EINVAL;
	fields_adds(f, "MESSAGE", message);
	fields_add_common(f, message_id, priority);
	fields_adds(f, "FUNCTION", function);
	fields_adds(f, "LAYER", layer_name(layer));
	for (unsigned int i = 0; i < n; i++) {
		if (!extra[i].value)
			continue;
		if (strcmp(extra[i].name, "STACK_FOLDED") == 0)
			fields_add_stack(f, extra[i].name, extra[i].value, ';', true, JOURNAL_STACK_MAX);
		else
			fields_adds(f, extra[i].name, extra[i].value);
	}
	return f->error;
}

int journal_write_view(struct journal *j, const char *function, enum layer_id layer, const char *message_id,
		       const char *message, const struct record_field *extra, unsigned int n)
{
	_cleanup_fields_ struct fields f = {};
	int k = view_fields(function, layer, message_id, message, j->opts.priority_summary, extra, n, &f);

	if (k < 0) {
		j->failed++;
		return k;
	}
	return fields_send(j, &f);
}

int journal_view_fields(const char *function, enum layer_id layer, const char *message_id,
			const char *message, const struct record_field *extra, unsigned int n, char ***fields)
{
	_cleanup_fields_ struct fields f = {};
	int k = view_fields(function, layer, message_id, message, LOG_INFO, extra, n, &f);

	return k < 0 ? k : fields_steal(&f, fields);
}

int journal_write_summary(struct journal *j, const struct func *fn, const struct summary *s,
			  double interval_s)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = summary_fields(fn, s, interval_s, j->opts.priority_summary, SMBLAT_MID_SUMMARY, &f);
	if (k < 0) {
		j->failed++;
		return k;
	}
	return fields_send(j, &f);
}

static uint64_t loss_total(const struct loss *l)
{
	return l->ringbuf + l->suppressed + l->write_failed + l->untimed;
}

/* " INODE_OP_UNLINK 10 (ring buffer full 8, rate limited 2)" */
static void loss_describe(FILE *m, const struct loss *l)
{
	static const char *const why[] = {
		"ring buffer full",
		"rate limited",
		"journal write failed",
		"not timed",
	};
	const uint64_t c[] = { l->ringbuf, l->suppressed, l->write_failed, l->untimed };
	unsigned int reasons = 0;

	for (unsigned int i = 0; i < 4; i++)
		reasons += c[i] > 0;
	fprintf(m, "%s %" PRIu64 " (", l->func->name, loss_total(l));
	for (unsigned int i = 0, k = 0; i < 4; i++) {
		if (c[i] == 0)
			continue;
		fprintf(m, "%s%s", k++ ? ", " : "", why[i]);
		if (reasons > 1)
			fprintf(m, " %" PRIu64, c[i]);
	}
	fputc(')', m);
}

static int loss_fields(const struct loss *l, unsigned int n, uint64_t misses, double interval_s, int priority,
		       struct fields *f)
{
	_cleanup_free_ char *msg = NULL, *list = NULL;
	size_t msg_len = 0, list_len = 0;
	uint64_t ringbuf = 0, suppressed = 0, failed = 0, untimed = 0;
	char interval[32];
	FILE *m, *ls;
	bool first = true;

	format_interval(interval, sizeof(interval), interval_s);
	for (unsigned int i = 0; i < n; i++) {
		ringbuf += l[i].ringbuf;
		suppressed += l[i].suppressed;
		failed += l[i].write_failed;
		untimed += l[i].untimed;
	}

	m = open_memstream(&msg, &msg_len);
	if (!m)
		return -ENOMEM;
	ls = open_memstream(&list, &list_len);
	if (!ls) {
		fclose(m);
		return -ENOMEM;
	}
	fprintf(m, "lost %" PRIu64 " %s in %s s", ringbuf + suppressed + failed + untimed,
		PLURAL(ringbuf + suppressed + failed + untimed, "event", "events"), interval);
	if (misses)
		fprintf(m, "; the kernel skipped %" PRIu64 " %s of the probes (recursion)", misses,
			PLURAL(misses, "run", "runs"));
	for (unsigned int i = 0; i < n; i++) {
		if (!l[i].func || !l[i].func->name || loss_total(&l[i]) == 0)
			continue;
		fputs(first ? ": " : ", ", m);
		loss_describe(m, &l[i]);
		fprintf(ls, "%s%s:%" PRIu64 "/%" PRIu64 "/%" PRIu64, first ? "" : " ", l[i].func->name,
			l[i].ringbuf, l[i].suppressed, l[i].write_failed);
		/* a fourth count only where there is one: the three are what readers expect */
		if (l[i].untimed)
			fprintf(ls, "/%" PRIu64, l[i].untimed);
		first = false;
	}
	if ((fclose(m) | fclose(ls)) != 0)
		return -ENOMEM;

	fields_adds(f, "MESSAGE", msg);
	fields_add_common(f, SMBLAT_MID_LOST, priority);
	fields_adds(f, "INTERVAL_S", interval);
	fields_addf(f, "LOST_RINGBUF", "%" PRIu64, ringbuf);
	fields_addf(f, "SUPPRESSED", "%" PRIu64, suppressed);
	fields_addf(f, "WRITE_FAILED", "%" PRIu64, failed);
	if (untimed)
		fields_addf(f, "UNTIMED", "%" PRIu64, untimed);
	if (misses)
		fields_addf(f, "RECURSION_MISSES", "%" PRIu64, misses);
	if (list_len > 0)
		fields_adds(f, "LOST_FUNCTIONS", list);
	return f->error;
}

int journal_loss_fields(const struct loss *l, unsigned int n, uint64_t misses, double interval_s,
			char ***fields)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = loss_fields(l, n, misses, interval_s, LOG_ERR, &f);
	if (k < 0)
		return k;
	return fields_steal(&f, fields);
}

int journal_write_loss(struct journal *j, const struct loss *l, unsigned int n, uint64_t misses,
		       double interval_s)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = loss_fields(l, n, misses, interval_s, j->opts.priority_lost, &f);
	if (k < 0) {
		j->failed++;
		return k;
	}
	return entry_send(j, &f, -1, l, n);
}

static const char *const status_mids[_STATUS_KIND_MAX] = {
	[STATUS_AGENT_START] = SMBLAT_MID_AGENT_START,
	[STATUS_AGENT_READY] = SMBLAT_MID_AGENT_READY,
	[STATUS_AGENT_STOP] = SMBLAT_MID_AGENT_STOP,
	[STATUS_AGENT_FAILED] = SMBLAT_MID_AGENT_FAILED,
	[STATUS_AGENT_DEGRADED] = SMBLAT_MID_AGENT_DEGRADED,
	[STATUS_LAYER_ATTACHED] = SMBLAT_MID_LAYER_ATTACHED,
	[STATUS_LAYER_WAITING] = SMBLAT_MID_LAYER_WAITING,
	[STATUS_LAYER_UNAVAILABLE] = SMBLAT_MID_LAYER_UNAVAILABLE,
	[STATUS_LAYER_OFF] = SMBLAT_MID_LAYER_OFF,
	[STATUS_PROBE_ATTACHED] = SMBLAT_MID_PROBE_ATTACHED,
	[STATUS_PROBE_WAITING] = SMBLAT_MID_PROBE_WAITING,
	[STATUS_PROBE_FAILED] = SMBLAT_MID_PROBE_FAILED,
	[STATUS_RELOAD_APPLIED] = SMBLAT_MID_RELOAD_APPLIED,
	[STATUS_RELOAD_REFUSED] = SMBLAT_MID_RELOAD_REFUSED,
	[STATUS_WRITER_FAILING] = SMBLAT_MID_WRITER_FAILING,
	[STATUS_WRITER_RESUMED] = SMBLAT_MID_WRITER_RESUMED,
};

/* MESSAGE as on stderr; the kind, what it is about, why and the counts as fields. */
static int status_fields(const struct status *s, struct fields *f)
{
	const char *state = status_layer_state(s->kind), *reason = status_reason_name(s->reason);

	if (s->kind >= _STATUS_KIND_MAX)
		return -EINVAL;
	if (s->layer)
		fields_addf(f, "MESSAGE", "%s: %s", s->layer, s->message ?: "");
	else
		fields_adds(f, "MESSAGE", s->message ?: "");
	fields_add_common(f, status_mids[s->kind], s->priority);
	if (s->layer)
		fields_adds(f, "LAYER", s->layer);
	if (state)
		fields_adds(f, "LAYER_STATE", state);
	if (s->function)
		fields_adds(f, "FUNCTION", s->function);
	if (reason)
		fields_adds(f, "REASON", reason);
	for (int c = 0; c < _COUNT_MAX; c++)
		if (s->has & (1u << c))
			fields_addf(f, status_count_name(c), "%" PRIu64, s->count[c]);
	return f->error;
}

int journal_status_fields(const struct status *s, char ***fields)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = status_fields(s, &f);
	if (k < 0)
		return k;
	return fields_steal(&f, fields);
}

int journal_write_status(struct journal *j, const struct status *s)
{
	_cleanup_fields_ struct fields f = {};
	int k;

	k = status_fields(s, &f);
	if (k < 0) {
		j->failed++;
		return k;
	}
	return fields_send(j, &f);
}

bool journal_is_stderr(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	/* "DEV:INODE" of the stream systemd connected, when stderr is still it */
	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}
