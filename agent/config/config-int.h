/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the config loader (config.c) and its keys (config-keys.c). */
#pragma once

#include <stdbool.h>

#include "config/config.h"

#include "base/macro.h"

enum section_kind {
	SECTION_NONE, /* before the first header */
	SECTION_AGENT,
	SECTION_JOURNAL,
	SECTION_HISTOGRAM,
	SECTION_SMB, /* a layer with groups= */
	SECTION_LAYER,
	SECTION_BLOCK,    /* a layer with disks= and queue_time= */
	SECTION_SMBD,     /* a layer with binary= */
	SECTION_SYSCALLS, /* a layer with select= */
	SECTION_PROBE,
	_SECTION_MAX,
};

#define S(k) (1u << (k))

/* What outlives one file: the main file and its drop-ins form one load. */
struct load {
	struct config *c;
	unsigned first_new_probe;
	/* [probe NAME] that set their stacks; the others follow [agent] */
	bool kstack_set[CONFIG_MAX_PROBES];
	bool ustack_set[CONFIG_MAX_PROBES];
	char *message; /* the first failure, "FILE:LINE: what" */
};

/* One file or string being parsed. */
struct loader {
	struct load *load;
	struct config *c;
	const char *name;
	const char *pos; /* the unread rest of the text */
	unsigned line;
	enum section_kind kind;
	enum layer_id layer;
	unsigned probe;
	char section[256];                      /* whole, inih's copy stops at 49 bytes */
	unsigned probe_line[CONFIG_MAX_PROBES]; /* where this file has [probe NAME], or 0 */
	/* mirrors inih: after a key, indented lines continue its value */
	bool key_in_section;
	bool continuation;
	const char *key;
	int error; /* negative errno of the first failure */
	unsigned error_line;
	char message[512];
};

int loader_fail(struct loader *l, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int loader_oom(struct loader *l);
/* Frees the user name unless it is the built-in default. */
void config_user_set(struct config *c, char *user);

/* One key of smblat.conf: the sections it may stand in and how it is set. */
struct key {
	const char *name;
	unsigned sections;
	bool list; /* may go on over indented lines */
	int (*set)(struct loader *l, const char *value, bool append);
};

/* The key NAME of one of the sections, or NULL. */
const struct key *key_find(const char *name, unsigned sections);
/* "[journal], [smb]": the sections that have a key NAME, or NULL when none has. */
const char *key_homes(const char *name, char *buf, size_t size);
/* Fails with the best message for a key this section does not have. */
int key_unknown(struct loader *l, const char *name);

/* keys-smb2.c: [smb2] servers= and sessions= */
int keys_smb2_servers(struct loader *l, const char *v, bool append);
int keys_smb2_sessions(struct loader *l, const char *v, bool append);
