/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * smblat.conf: defaults, sections, files and drop-ins. The keys and their
 * limits are in config-keys.c, the dump in config-dump.c, single values
 * (durations, sizes, names, lists) in values.c.
 *
 * inih does the ini syntax. The installed libinih is built without
 * line numbers in the handler and without a callback on new sections, so
 * the line reader we hand to ini_parse_stream() counts lines and notices
 * section headers itself: that is what gives every message its FILE:LINE,
 * lets us reject empty or repeated [probe NAME] sections and keeps section
 * names longer than inih's 50 byte buffer intact.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config-int.h"
#include "bpf/view.h"
#include "base/macro.h"

#define FILE_MAX (1U << 20) /* a config file is a few KiB; refuse surprises */

#define WHITESPACE " \t\n\r\v\f"

/* Not strdup()ed so that config_init() cannot fail; config_free() knows it. */
static char default_user[] = "smblat";

/* ---- the configuration ----------------------------------------------------- */

void config_init(struct config *c)
{
	*c = (struct config) {
		.threshold_ns = 10 * NSEC_PER_MSEC,
		.kernel_stack = true,
		.user_stack = false,
		.ringbuf_bytes = 4ULL << 20,
		/* under what journald takes (about 2,450 a second measured); bursts of twice that */
		.rate_limit = 1000,
		.user = default_user,
		.backend = CHOICE_AUTO,
		.thread_state = TSTATE_AUTO,
		.max_threads = 4096,
		.journal = true,
		.priority_slow = LOG_WARNING,
		.priority_summary = LOG_INFO,
		.lost_interval_ns = 60 * NSEC_PER_SEC,
		.hist_interval_ns = 60 * NSEC_PER_SEC,
		.hist_per_share = true,
		.hist_per_share_max = SMBLAT_SHARE_VIEW_MAX,
		.smb2_events = true,
	};
	/* where the machine has what they trace (smblat.conf(5), enabled = auto) */
	for (enum layer_id l = 0; l < _LAYER_MAX; l++)
		c->layer[l].enabled = c->layer[l].automatic = l != LAYER_FUNC && l != LAYER_SYSCALLS;
	/* function probes are opt-in one [probe NAME] at a time */
	c->layer[LAYER_FUNC].enabled = true;
	/* a probe on every syscall of the machine: only when asked for, never by auto */
	c->layer[LAYER_SYSCALLS].enabled = false;
	c->smbd_exits = true;
	c->smbd_breaks = true;
	for (size_t g = 0; g < ELEMENTSOF(c->group); g++)
		c->group[g] = true;
}

void config_user_set(struct config *c, char *user)
{
	if (c->user != default_user)
		free(c->user);
	c->user = user;
}

static void probe_done(struct probe_config *p)
{
	free(p->label);
	free(p->target);
	free(p->file);
}

void config_free(struct config *c)
{
	free(c->comm);
	free(c->cgroup);
	free(c->smbd_binary);
	config_select_free(&c->sys_select);
	config_user_set(c, NULL);
	for (size_t i = 0; i < _LAYER_MAX; i++) {
		values_strv_free(c->layer[i].include);
		values_strv_free(c->layer[i].exclude);
	}
	values_strv_free(c->block_disks);
	values_strv_free(c->smb2_servers);
	values_strv_free(c->smb2_sessions);
	for (unsigned i = 0; i < c->n_probes; i++)
		probe_done(&c->probes[i]);
	free(c->probes);
	config_init(c);
}

static int probe_find(const struct config *c, const char *label);

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

bool config_wants(const struct config *c, enum layer_id l, const char *name, enum op_group g)
{
	const struct layer_config *lc = &c->layer[l];

	if (g > GROUP_NONE && g < _GROUP_MAX && !c->group[g])
		return false;
	if (lc->include && lc->include[0] && !name_in(lc->include, name))
		return false;
	return !name_in(lc->exclude, name);
}

int config_carry_cli(struct config *to, const struct config *from)
{
	for (unsigned i = 0; i < from->n_probes; i++) {
		const struct probe_config *p = &from->probes[i];
		struct probe_config *v;

		if (!p->cli || probe_find(to, p->label) >= 0)
			continue;
		v = realloc(to->probes, (to->n_probes + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		to->probes = v;
		v[to->n_probes] = *p;
		v[to->n_probes].label = strdup(p->label);
		v[to->n_probes].target = strdup(p->target);
		v[to->n_probes].file = p->file ? strdup(p->file) : NULL;
		to->n_probes++;
		if (!v[to->n_probes - 1].label || !v[to->n_probes - 1].target)
			return -ENOMEM;
	}
	return 0;
}

static const char *const smbd_paths[] = {
	"/usr/sbin/smbd",
	"/usr/local/samba/sbin/smbd",
	"/usr/local/sbin/smbd",
};

char *config_smbd_binary(const struct config *c)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (c->smbd_binary)
		return strdup(c->smbd_binary);
	for (const char *p = path; p && *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (n == 0 || p[0] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s/smbd", (int)n, p);
		if (access(buf, X_OK) == 0)
			return strdup(buf);
	}
	for (size_t i = 0; i < ELEMENTSOF(smbd_paths); i++)
		if (access(smbd_paths[i], X_OK) == 0)
			return strdup(smbd_paths[i]);
	return NULL;
}

uint32_t config_rate_burst(const struct config *c)
{
	if (c->rate_burst_set)
		return c->rate_burst ? c->rate_burst : c->rate_limit;
	/* twice the limit: 2000 by default, half the writer's queue of 4096 */
	return c->rate_limit > UINT32_MAX / 2 ? UINT32_MAX : 2 * c->rate_limit;
}

uint64_t config_layer_threshold_ns(const struct config *c, enum layer_id l)
{
	const struct layer_config *lc = &c->layer[l];

	return lc->threshold_set ? lc->threshold_ns : c->threshold_ns;
}

uint64_t config_probe_threshold_ns(const struct config *c, const struct probe_config *p)
{
	return p->threshold_set ? p->threshold_ns : config_layer_threshold_ns(c, LAYER_FUNC);
}

/* ---- loading --------------------------------------------------------------- */

/* Keeps the first failure only; it is printed once the parse stops. */
int loader_fail(struct loader *l, int error, const char *fmt, ...)
{
	va_list ap;

	if (l->error)
		return l->error;
	va_start(ap, fmt);
	vsnprintf(l->message, sizeof(l->message), fmt, ap);
	va_end(ap);
	l->error = error;
	l->error_line = l->line;
	return error;
}

int loader_oom(struct loader *l)
{
	return loader_fail(l, -ENOMEM, "%s", strerror(ENOMEM));
}

/* Older inih leaves " ; comment" on continuation lines; cut it as on the first line. */
static int key_continue(struct loader *l, const struct key *k, const char *value)
{
	char buf[256];
	size_t n;

	snprintf(buf, sizeof(buf), "%s", value);
	for (n = 1; buf[0] && buf[n]; n++)
		if (buf[n] == ';' && isspace((unsigned char)buf[n - 1])) {
			buf[n] = '\0';
			break;
		}
	return k->set(l, buf, true);
}

static int loader_key(struct loader *l, const char *name, const char *value)
{
	const struct key *k;
	const char *homes;
	char buf[128];

	if (l->kind == SECTION_NONE) {
		homes = key_homes(name, buf, sizeof(buf));
		if (homes)
			return loader_fail(l, -EINVAL,
					   "key \"%s\" comes before any section, it belongs in %s", name,
					   homes);
		return loader_fail(l, -EINVAL, "key \"%s\" comes before any section", name);
	}
	k = key_find(name, S(l->kind));
	if (!k)
		return key_unknown(l, name);
	if (l->continuation && !k->list)
		return loader_fail(l, -EINVAL,
				   "indented line continues the value of \"%s\", which takes one value "
				   "(do not indent keys)",
				   name);
	l->key = k->name;
	if (l->continuation)
		return key_continue(l, k, value);
	return k->set(l, value, false);
}

static int ini_handler_cb(void *userdata, const char *section, const char *name, const char *value)
{
	struct loader *l = userdata;

	if (l->error)
		return 0;
	l->key_in_section = true;
	return loader_key(l, name, value) >= 0;
}

static int probe_find(const struct config *c, const char *label)
{
	for (unsigned i = 0; i < c->n_probes; i++)
		if (strcmp(c->probes[i].label, label) == 0)
			return (int)i;
	return -ENOENT;
}

static int probe_new(struct loader *l, const char *label)
{
	struct config *c = l->c;
	struct probe_config *n;

	if (c->n_probes >= CONFIG_MAX_PROBES)
		return loader_fail(l, -EINVAL, "too many [probe] sections, at most %d", CONFIG_MAX_PROBES);
	n = realloc(c->probes, (c->n_probes + 1) * sizeof(*n));
	if (!n)
		return loader_oom(l);
	c->probes = n;
	n = &c->probes[c->n_probes];
	*n = (struct probe_config) {
		.label = strdup(label),
		.file = strdup(l->name),
		.line = l->line,
		/* until the load ends; then [agent] stacks apply unless set here */
		.kernel_stack = c->kernel_stack,
		.user_stack = c->user_stack,
	};
	if (!n->label || !n->file) {
		probe_done(n);
		return loader_oom(l);
	}
	l->load->kstack_set[c->n_probes] = false;
	l->load->ustack_set[c->n_probes] = false;
	return (int)c->n_probes++;
}

/* [probe NAME]: a drop-in may amend a probe of an earlier file, not repeat one. */
static int section_probe(struct loader *l, const char *label)
{
	int i;

	if (!*label)
		return loader_fail(l, -EINVAL, "[probe] needs a name: [probe NAME]");
	if (!values_label_valid(label))
		return loader_fail(l, -EINVAL,
				   "invalid probe name \"%s\", expected up to %d of A-Z a-z 0-9 _ . : -",
				   label, VALUES_LABEL_MAX);
	i = probe_find(l->c, label);
	if (i >= 0 && l->probe_line[i])
		return loader_fail(l, -EINVAL, "duplicate section [probe %s], first at line %u", label,
				   l->probe_line[i]);
	if (i < 0)
		i = probe_new(l, label);
	if (i < 0)
		return i;
	l->probe_line[i] = l->line;
	l->probe = (unsigned)i;
	l->kind = SECTION_PROBE;
	return 0;
}

static int section_enter(struct loader *l, char *name)
{
	static const char *const fixed[] = {
		"agent", "journal", "histogram", "smb", "smb2", "block", "smbd", "syscalls", "probe",
	};
	const char *hint;
	size_t n;
	int i;

	/* inih keeps blanks inside the brackets; [ agent ] means [agent] */
	name += strspn(name, WHITESPACE);
	n = strlen(name);
	while (n > 0 && isspace((unsigned char)name[n - 1]))
		name[--n] = '\0';
	snprintf(l->section, sizeof(l->section), "%s", name);

	if (strncmp(name, "probe", 5) == 0 && (!name[5] || isspace((unsigned char)name[5])))
		return section_probe(l, name + 5 + strspn(name + 5, WHITESPACE));
	if (strcmp(name, "agent") == 0)
		l->kind = SECTION_AGENT;
	else if (strcmp(name, "journal") == 0)
		l->kind = SECTION_JOURNAL;
	else if (strcmp(name, "histogram") == 0)
		l->kind = SECTION_HISTOGRAM;
	/* every layer has a section named after it, but func: [probe NAME] configures it */
	else if ((i = values_name_index(name, layer_names, _LAYER_MAX)) >= 0 && i != LAYER_FUNC) {
		l->layer = (enum layer_id)i;
		l->kind = i == LAYER_SMB      ? SECTION_SMB :
			  i == LAYER_BLOCK    ? SECTION_BLOCK :
			  i == LAYER_SMBD     ? SECTION_SMBD :
			  i == LAYER_SYSCALLS ? SECTION_SYSCALLS :
						SECTION_LAYER;
	} else {
		n = strcspn(name, WHITESPACE);
		if (name[n]) {
			/* [prbe foo] */
			char word[16];

			if (n < sizeof(word)) {
				memcpy(word, name, n);
				word[n] = '\0';
				if (values_distance(word, "probe") <= VALUES_SUGGEST_DISTANCE)
					return loader_fail(l, -EINVAL,
							   "unknown section [%s], did you mean [probe%s]?",
							   name, name + n);
			}
			return loader_fail(l, -EINVAL, "unknown section [%s]", name);
		}
		hint = values_suggest(name, fixed, ELEMENTSOF(fixed));
		if (hint && strcmp(hint, "probe") == 0)
			return loader_fail(l, -EINVAL, "unknown section [%s], did you mean [probe NAME]?",
					   name);
		if (hint)
			return loader_fail(l, -EINVAL, "unknown section [%s], did you mean [%s]?", name,
					   hint);
		return loader_fail(l, -EINVAL, "unknown section [%s]", name);
	}
	return 0;
}

/*
 * Sees each line before inih does: tells key lines that continue a value
 * from the others and enters sections, with the same rules as inih
 * (comments first, then continuations, then "[...]").
 */
static int loader_classify(struct loader *l, char *line)
{
	char *s = line + strspn(line, WHITESPACE), *e, *rest;
	bool was_space = false;

	l->continuation = false;
	if (!*s || *s == ';' || *s == '#')
		return 0;
	if (l->key_in_section && s > line) {
		l->continuation = true;
		return 0;
	}
	if (*s != '[')
		return 0;
	for (e = s + 1; *e && *e != ']' && !(was_space && *e == ';'); e++)
		was_space = isspace((unsigned char)*e);
	if (*e != ']')
		return 0; /* inih reports the missing ']' */
	rest = e + 1 + strspn(e + 1, WHITESPACE);
	if (*rest && *rest != ';' && *rest != '#')
		return loader_fail(l, -EINVAL, "unexpected text after the section header: \"%.*s\"",
				   (int)strcspn(rest, "\r\n"), rest);

	l->key_in_section = false;
	/* a copy: inih still has to see the line as it is */
	char name[256];
	snprintf(name, sizeof(name), "%.*s", (int)(e - s - 1), s + 1);
	return section_enter(l, name);
}

/* An fgets() for ini_parse_stream() over our buffer, one line per call. */
static char *loader_read(char *buf, int size, void *userdata)
{
	struct loader *l = userdata;
	const char *eol;
	size_t n;

	if (l->error || !*l->pos)
		return NULL;
	l->line++;
	eol = strchrnul(l->pos, '\n');
	n = (size_t)(eol - l->pos);
	/* inih needs room for "\r\n\0" past the text */
	if (size < 4 || n > (size_t)size - 3) {
		loader_fail(l, -EINVAL,
			    "line longer than %d characters; long lists can go on over indented lines",
			    size < 4 ? 0 : size - 3);
		return NULL;
	}
	memcpy(buf, l->pos, n);
	if (*eol)
		buf[n++] = '\n';
	buf[n] = '\0';
	l->pos = *eol ? eol + 1 : eol;

	/* inih only skips a BOM when it is built to; do it ourselves */
	if (l->line == 1 && strncmp(buf, "\xef\xbb\xbf", 3) == 0)
		memmove(buf, buf + 3, n - 3 + 1);

	if (loader_classify(l, buf) < 0)
		return NULL;
	return buf;
}

/* Keeps the first message of a load; the caller of config_load() says it. */
__attribute__((format(printf, 2, 3))) static void load_say(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->message)
		return;
	va_start(ap, fmt);
	if (vasprintf(&ld->message, fmt, ap) < 0)
		ld->message = NULL;
	va_end(ap);
}

static int loader_report(const struct loader *l)
{
	load_say(l->load, "%s:%u: %s", l->name, l->error_line, l->message);
	return l->error;
}

static int load_text(struct load *ld, const char *name, const char *text)
{
	struct loader *l;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l) {
		load_say(ld, "%s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	*l = (struct loader) {
		.load = ld,
		.c = ld->c,
		.name = name,
		.pos = text,
		.kind = SECTION_NONE,
	};
	r = ini_parse_stream(loader_read, l, ini_handler_cb, l);
	if (l->error && (r <= 0 || l->error_line <= (unsigned)r))
		r = loader_report(l);
	else if (r > 0) {
		load_say(ld, "%s:%d: syntax error, expected [section] or key = value", name, r);
		r = -EINVAL;
	} else if (r < 0) {
		load_say(ld, "%s: %s", name, strerror(ENOMEM));
		r = -ENOMEM;
	}
	free(l);
	return r;
}

/* Reads all of f; NUL bytes would end the text early without a word. */
static int read_text(struct load *ld, FILE *f, const char *name, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, size = 0;

	for (;;) {
		size_t k;

		if (size - n < 4096) {
			char *nb;

			if (size >= FILE_MAX) {
				load_say(ld, "%s: larger than %u bytes, not a configuration file", name,
					 FILE_MAX);
				return -EFBIG;
			}
			size = size ? size * 2 : 8192;
			nb = realloc(buf, size + 1);
			if (!nb) {
				load_say(ld, "%s: %s", name, strerror(ENOMEM));
				return -ENOMEM;
			}
			buf = nb;
		}
		k = fread(buf + n, 1, size - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		int r = errno ?: EIO;

		load_say(ld, "%s: %s", name, strerror(r));
		return -r;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		unsigned line = 1;

		for (const char *p = buf; *p; p++)
			line += *p == '\n';
		load_say(ld, "%s:%u: NUL byte, not a text file", name, line);
		return -EINVAL;
	}
	*ret = buf;
	buf = NULL;
	return 0;
}

/* 0 when loaded, 1 when missing and missing_ok. */
static int load_file(struct load *ld, const char *path, bool missing_ok)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	int r;

	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		if (r == -ENOENT && missing_ok)
			return 1;
		load_say(ld, "%s: %m", path);
		return r;
	}
	if (fstat(fileno(f), &st) < 0) {
		r = -errno;
		load_say(ld, "%s: %m", path);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		load_say(ld, "%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	r = read_text(ld, f, path, &text);
	if (r < 0)
		return r;
	return load_text(ld, path, text);
}

static int dropin_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	/* dot files are editor and package manager leftovers */
	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
}

/* Byte order, not the locale's: the order of drop-ins must not depend on LANG. */
static int dropin_compare(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dropins(struct load *ld, const char *path)
{
	_cleanup_free_ char *dir = NULL;
	struct dirent **list = NULL;
	int n, r = 0;

	if (asprintf(&dir, "%s.d", path) < 0) {
		dir = NULL;
		load_say(ld, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	n = scandir(dir, &list, dropin_filter, dropin_compare);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		r = -errno;
		load_say(ld, "%s: %m", dir);
		return r;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (r >= 0 && asprintf(&p, "%s/%s", dir, list[i]->d_name) < 0) {
			p = NULL;
			load_say(ld, "%s: %s", dir, strerror(ENOMEM));
			r = -ENOMEM;
		}
		/* a directory that happens to end in .conf is not a drop-in */
		if (r >= 0 && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
			r = load_file(ld, p, false);
		free(list[i]);
	}
	free(list);
	return r < 0 ? r : 0;
}

static void load_start(struct load *ld, struct config *c)
{
	ld->c = c;
	ld->first_new_probe = c->n_probes;
}

static int load_finish(struct load *ld)
{
	struct config *c = ld->c;

	for (unsigned i = 0; i < c->n_probes; i++) {
		struct probe_config *p = &c->probes[i];

		if (!p->target) {
			load_say(ld, "%s:%u: [probe %s] has no target, e.g. target = vfs_read", p->file,
				 p->line, p->label);
			return -EINVAL;
		}
		if (i < ld->first_new_probe)
			continue;
		if (!ld->kstack_set[i])
			p->kernel_stack = c->kernel_stack;
		if (!ld->ustack_set[i])
			p->user_stack = c->user_stack;
	}
	return 0;
}

/* The message goes to the caller, or to stderr when it wants none back. */
static int load_end(struct load *ld, int r, char **error)
{
	if (r < 0 && !ld->message)
		load_say(ld, "%s", strerror(-r));
	if (r < 0 && error) {
		*error = ld->message;
		ld->message = NULL;
	} else if (r < 0) {
		fprintf(stderr, "%s\n", ld->message ? ld->message : strerror(-r));
	}
	free(ld->message);
	free(ld);
	return r;
}

int config_load(struct config *c, const char *path, bool missing_ok, char **error)
{
	struct load *ld = calloc(1, sizeof(*ld));
	int r;

	if (error)
		*error = NULL;
	if (!ld)
		return -ENOMEM;
	load_start(ld, c);
	r = load_file(ld, path, missing_ok);
	/* drop-ins apply even without the main file, as systemd's do */
	if (r >= 0)
		r = load_dropins(ld, path);
	if (r >= 0)
		r = load_finish(ld);
	return load_end(ld, r, error);
}

int config_load_string(struct config *c, const char *name, const char *text, char **error)
{
	struct load *ld;
	int r;

	if (error)
		*error = NULL;
	if (!text)
		return -EINVAL;
	ld = calloc(1, sizeof(*ld));
	if (!ld)
		return -ENOMEM;
	load_start(ld, c);
	r = load_text(ld, name ? name : "(string)", text);
	if (r >= 0)
		r = load_finish(ld);
	return load_end(ld, r, error);
}
