/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The status service: each status goes to the sink once and to stderr only
 * when stderr is not where the sink writes, or when the sink did not take it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>

#include "base/log.h"

#include "check.h"

static struct {
	int calls;
	int ret;
	struct status last;
	char message[256];
	char layer[32];
} sink;

static int sink_fn(void *userdata, const struct status *s)
{
	sink.calls++;
	sink.last = *s;
	snprintf(sink.message, sizeof(sink.message), "%s", s->message);
	snprintf(sink.layer, sizeof(sink.layer), "%s", s->layer ? s->layer : "");
	return sink.ret;
}

static int err_fd;

/* What reached stderr since the last call. */
static char *stderr_take(void)
{
	static char buf[4096];
	ssize_t n;

	fflush(stderr);
	n = pread(err_fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	ftruncate(err_fd, 0);
	lseek(err_fd, 0, SEEK_SET);
	return buf;
}

int main(void)
{
	int saved = dup(STDERR_FILENO);
	struct status s = { .kind = STATUS_RELOAD_APPLIED, .priority = LOG_INFO };
	char *out;

	err_fd = memfd_create("stderr", 0);
	dup2(err_fd, STDERR_FILENO);

	/* no sink: stderr */
	log_layer("smb", STATUS_LAYER_WAITING, REASON_MODULE_NOT_LOADED, LOG_NOTICE, "cifs %s", "not loaded");
	out = stderr_take();
	check(strcmp(out, "smblat: smb: cifs not loaded\n") == 0, "stderr without a sink: \"%s\"", out);

	/* a sink beside stderr: both, once each, with the codes */
	log_set_sink(sink_fn, NULL, true);
	log_layer("smb", STATUS_LAYER_WAITING, REASON_MODULE_NOT_LOADED, LOG_NOTICE, "cifs %s", "not loaded");
	out = stderr_take();
	check(strcmp(out, "smblat: smb: cifs not loaded\n") == 0, "stderr beside the sink: \"%s\"", out);
	check(sink.calls == 1, "sink called %d times", sink.calls);
	check(sink.last.kind == STATUS_LAYER_WAITING && sink.last.reason == REASON_MODULE_NOT_LOADED &&
		      sink.last.priority == LOG_NOTICE,
	      "codes: kind %d reason %d priority %d", sink.last.kind, sink.last.reason, sink.last.priority);
	check(strcmp(sink.message, "cifs not loaded") == 0 && strcmp(sink.layer, "smb") == 0,
	      "sink got \"%s\" of \"%s\"", sink.message, sink.layer);

	/* stderr is the journal: the sink only */
	log_set_sink(sink_fn, NULL, false);
	status_count_set(&s, COUNT_PROBES_ADDED, 0);
	status_count_set(&s, COUNT_ATTACHED, 7);
	log_emit(&s, "reload: applied: %d", 3);
	out = stderr_take();
	check(out[0] == '\0', "stderr is the journal, yet: \"%s\"", out);
	check(sink.calls == 2, "sink called %d times", sink.calls);
	check(sink.last.has == ((1u << COUNT_PROBES_ADDED) | (1u << COUNT_ATTACHED)) &&
		      sink.last.count[COUNT_ATTACHED] == 7 && sink.last.count[COUNT_PROBES_ADDED] == 0,
	      "counts: has 0x%x", sink.last.has);
	check(strcmp(sink.message, "reload: applied: 3") == 0, "message \"%s\"", sink.message);

	/* the sink could not take it: stderr after all, nothing lost */
	sink.ret = -EAGAIN;
	log_status(STATUS_WRITER_FAILING, REASON_QUEUE_FULL, LOG_ERR, "journal writes failing");
	out = stderr_take();
	check(strcmp(out, "smblat: journal writes failing\n") == 0, "refused status on stderr: \"%s\"", out);
	check(sink.calls == 3, "sink called %d times", sink.calls);

	/* a terminal with the first screen: layer statuses to the sink only, others as ever */
	sink.ret = 0;
	log_set_sink(sink_fn, NULL, true);
	log_stderr_skip(1u << STATUS_LAYER_OFF);
	log_layer("smb2", STATUS_LAYER_OFF, REASON_NO_MODULE, LOG_NOTICE, "layer off");
	out = stderr_take();
	check(out[0] == '\0', "a skipped kind on stderr: \"%s\"", out);
	check(sink.calls == 4 && sink.last.kind == STATUS_LAYER_OFF, "skipped kind not in the sink");
	log_status(STATUS_AGENT_READY, REASON_NONE, LOG_INFO, "ready");
	out = stderr_take();
	check(strcmp(out, "smblat: ready\n") == 0, "another kind: \"%s\"", out);
	sink.ret = -EAGAIN; /* refused: stderr after all, skipped or not */
	log_layer("smb2", STATUS_LAYER_OFF, REASON_NO_MODULE, LOG_NOTICE, "layer off");
	out = stderr_take();
	check(strcmp(out, "smblat: smb2: layer off\n") == 0, "refused, skipped kind: \"%s\"", out);
	log_stderr_skip(0);

	/* names: one per code */
	check(strcmp(status_count_name(COUNT_NOT_ATTACHED), "NOT_ATTACHED") == 0, "count name");
	check(strcmp(status_reason_name(REASON_MODULE_NOT_LOADED), "module-not-loaded") == 0, "reason name");
	check(strcmp(status_layer_state(STATUS_LAYER_OFF), "off") == 0, "layer state");
	check(!status_layer_state(STATUS_PROBE_FAILED), "a probe kind has no LAYER_STATE");
	for (int c = 0; c < _COUNT_MAX; c++)
		check(status_count_name(c), "count %d has no name", c);

	log_set_sink(NULL, NULL, true);
	dup2(saved, STDERR_FILENO);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return EXIT_FAILURE;
	}
	printf("all log checks passed\n");
	return EXIT_SUCCESS;
}
