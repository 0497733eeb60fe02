// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The status entries this machine cannot make the agent write (no cifs.ko
 * and no kernel module to load or unload; a journald whose failures the
 * agent can only report where it is back), written by the journal sink
 * with the codes and counts of their call sites (layers/cifs/smb.c, layers/func/func.c,
 * core/report.c), for tests/host/catalog.sh. The VM tests see them from
 * the agent itself.
 *   statusentries      writes one entry of each
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "sinks/journal.h"

static int write_one(struct journal *j, struct status s, const char *message)
{
	int k;

	s.message = message;
	k = journal_write_status(j, &s);
	if (k < 0)
		fprintf(stderr, "statusentries: %s: %s\n", message, strerror(-k));
	return k < 0;
}

int main(void)
{
	struct journal *j = NULL;
	struct status unloaded = { .kind = STATUS_LAYER_WAITING,
				   .reason = REASON_MODULE_UNLOADED,
				   .priority = LOG_NOTICE,
				   .layer = "smb" };
	int bad = 0;

	if (journal_new(NULL, &j) < 0)
		return 1;
	status_count_set(&unloaded, COUNT_DETACHED, 52);
	bad |= write_one(j,
			 (struct status) { .kind = STATUS_LAYER_WAITING,
					   .priority = LOG_NOTICE,
					   .reason = REASON_MODULE_NOT_LOADED,
					   .layer = "smb" },
			 "cifs module not loaded; attaching when it is");
	bad |= write_one(j, unloaded,
			 "cifs module unloaded: 52 probes detached; attaching again when "
			 "it is loaded");
	bad |= write_one(j,
			 (struct status) { .kind = STATUS_PROBE_WAITING,
					   .priority = LOG_NOTICE,
					   .reason = REASON_MODULE_NOT_LOADED,
					   .layer = "func",
					   .function = "EXT4_SYNC" },
			 "probe EXT4_SYNC: module ext4 not loaded; attaching when it is");
	bad |= write_one(j,
			 (struct status) { .kind = STATUS_PROBE_ATTACHED,
					   .priority = LOG_INFO,
					   .layer = "func",
					   .function = "EXT4_SYNC" },
			 "probe EXT4_SYNC: module ext4 loaded: attached");
	bad |= write_one(j,
			 (struct status) { .kind = STATUS_WRITER_FAILING,
					   .priority = LOG_ERR,
					   .reason = REASON_QUEUE_FULL },
			 "journal writes failing: journald is not keeping up, queue full; counting "
			 "what is not written");
	bad |= write_one(j, (struct status) { .kind = STATUS_WRITER_RESUMED, .priority = LOG_NOTICE },
			 "journal writes resumed after failures (Resource temporarily unavailable)");
	journal_free(j);
	return bad;
}
