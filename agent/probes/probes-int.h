/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What probes.c (kernel functions, tracepoints) and uprobes.c (user space) share. */
#pragma once

#include <bpf/libbpf.h>

#include "probes/probes.h"
#include "bpf/view.h"
#include "bpf/smbd.h"
#include "smblat.skel.h"

/* BPF_TRACE_UPROBE_MULTI and BPF_F_UPROBE_MULTI_RETURN, Linux 6.6 (newer than Debian 12's uapi) */
#define UMULTI_ATTACH_TYPE 48
#define UMULTI_RETURN 1u

struct attachment {
	uint32_t id;
	int prog_fd[2];             /* fentry clones, -1 otherwise */
	int link_fd[2];
	struct bpf_link *link[2];   /* kprobe/uprobe links */
};

/*
 * One kprobe.multi entry/exit pair. A link cannot give up one of its
 * addresses: an id detached stays hooked but dormant (its func_cfg
 * disabled) and is revived in place rather than hooked twice; the links go
 * once no id of theirs is live.
 */
struct multi {
	struct attachment att;      /* the kprobe.multi or uprobe.multi links */
	uint32_t *ids;
	bool *live;
	uint32_t n_ids;
	uint32_t n_live;
};

struct probes {
	struct smblat_bpf *skel;
	const struct ksyms *ks;
	struct btfs *btfs;
	enum backend_choice choice;
	bool fentry;                /* template loaded: clones may work */
	bool kmulti;
	bool umulti;                /* uprobe.multi programs loaded; cleared when links are refused */
	bool smbd_ends;             /* smbd's request completions hooked (once for all begins) */
	bool kprobe;                /* the kernel has a kprobe PMU */
	char *kprobe_why;
	char *why;                  /* combined reason, owned */
	char *fentry_why;
	char *kmulti_why;
	struct attachment *att;
	uint32_t n_att;
	struct multi *multi;        /* kprobe.multi batches */
	uint32_t n_multi;
	struct {
		char *module;
		int fd;
	} btf_fds[8];
	uint32_t n_btf_fds;
	/* block and syscall layers */
	bool tp_btf;                /* tp_btf programs loaded and not refused yet */
	char *tp_btf_why;
	struct {
		char *name;
		struct bpf_link *link;
	} *tp;
	uint32_t n_tp;
};

/* "what: strerror(-err)", malloc'd. */
char *errdup(const char *what, int err);
/* A new slot in p->att for id, links empty; NULL without memory. */
struct attachment *attachment_new(struct probes *p, uint32_t id);
void attachment_release(struct attachment *a);
/* Keeps a batch's links as serving the ids in cookies; on -ENOMEM the caller releases att. */
int multi_keep(struct probes *p, const struct attachment *att, const uint64_t *cookies,
	       uint32_t n);
/* A dormant id of a live batch comes back in place; true when it did. */
bool multi_revive(struct probes *p, uint32_t id);

/* Records in f that backend what refused it with err. */
void set_failed(struct func *f, const char *what, int err);
