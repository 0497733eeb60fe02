/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's state, shared by agent.c and the parts split from it (smb.c, report.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include "core/agent.h"
#include "probes/btfargs.h"
#include "decode/event.h"
#include "sinks/journal.h"
#include "symbols/mounts.h"
#include "probes/probes.h"
#include "probes/stats.h"

struct agent {
	struct config *cfg;
	const struct run_opts *opt;
	sd_event *loop;
	struct ksyms *ks;
	struct btfs *btfs;
	struct usyms *us;
	struct mounts *mounts;
	struct probes *probes;
	struct ring_buffer *rb;
	struct journal *journal;
	struct stats *stats;
	struct func_table funcs;
	struct decoder dec;
	bool smb_attached;
	bool dropped;               /* privileges dropped */
	/* per function id */
	struct summary *acc;        /* since the last summary */
	struct loss *loss;          /* since the last loss report */
	uint64_t written, failed;
	/* rate limit: token bucket over all events */
	double tokens;
	uint64_t tokens_at_ns;
	uint64_t hist_interval_ns;
	uint64_t last_summary_ns;
	uint64_t last_loss_ns;
	/* reliability: the journal writer thread (writer.c), and its last reported error */
	struct writer *writer;
	int writer_error;
	/* reliability: what SIGHUP compares with (reload.c) */
	struct reload *reload;
	/* smb.c: the cifs module attached to (its /sys/module inode), 0 for none */
	uint64_t smb_module_ino;
};

static inline uint64_t agent_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One line on stderr, and a status entry in the journal when that is the sink. */
void agent_status(struct agent *a, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* agent.c: attaches one [probe] section (func layer); 0 even when it could not attach. */
int func_probe_add(struct agent *a, const struct probe_config *pc);

/* reload.c: SIGHUP. Applies the file again; a broken one changes nothing. */
int reload_init(struct agent *a);
int reload_config(struct agent *a);
void reload_free(struct agent *a);

/* smb.c: whether [smb] include/exclude/groups select f. */
bool smb_func_wanted(const struct config *c, const struct func *f);

/* smb.c: resolves the cifs ops of the running kernel and attaches them; -ENOENT: cifs not loaded. */
int smb_attach(struct agent *a);
/*
 * smb.c, every few seconds: attaches when cifs is loaded, detaches when it
 * is unloaded (or unloaded and loaded again), with privileges raised as needed.
 */
void smb_watch(struct agent *a);
/* smb.c: detaches every cifs probe (also whole kprobe.multi links); the ids stay. */
#define SMB_UNLOADED "cifs module unloaded"
#define SMB_DISABLED "smb layer disabled"
unsigned int smb_detach(struct agent *a, const char *why);

/* smb2.c: finds the mid hooks of this kernel's cifs and attaches them (the smb2 layer). */
int smb2_attach(struct agent *a);
/*
 * Which argument of symbol holds what hook h needs: the SMB2 header at
 * allocation, else the mid or (*kref set) its refcount. -ENOENT: no such
 * function in btf; -EINVAL: a prototype without such an argument.
 */
int smb2_hook_arg(const struct btf *btf, enum smb2_hook h, const char *symbol, uint8_t *arg,
		  uint8_t *kref);

/* report.c: reads the BPF counters; writes summaries and/or loss reports. */
void report_now(struct agent *a, bool summaries, bool losses);

/* smbd.c: uprobes on Samba's smbd VFS and SMB2 request handlers, every process. */
int smbd_attach(struct agent *a);

/* usdt.c: [probe NAME] target = usdt:PATH:PROVIDER:START,END. */
int usdt_probe_add(struct agent *a, const struct probe_config *pc);
/* report.c: entries written and failed since start, wherever they were counted. */
void report_counts(struct agent *a, uint64_t *written, uint64_t *failed);
/* report.c: says on stderr when journal writes start or stop failing. */
void report_writer_health(struct agent *a);
/*
 * report.c: at exit, after the last loss report: stops the writer and says
 * on stderr what it could not deliver (the journal is what failed).
 */
void report_writer_stop(struct agent *a);
