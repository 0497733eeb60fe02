/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SMB connection events of the smb2 layer (REC_SMB_EVENT): reconnects, sessions, trees, credits. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/func.h"
#include "bpf/smblat.h"

struct rec_smb2;
struct record;
struct mounts;
struct layer_env;
struct prog_unit;

/* The connection events of the cifs loaded now: their FUNCTIONs, their tracepoints attached. */
struct smbevents {
	const struct prog_unit *unit; /* whose programs the tracepoints are */
	struct func *f[_SMB_EV_MAX];
	bool tp_on[_SMB_EV_MAX][2];
};

/*
 * Events as the configuration wants them: from cifs tracepoints, or from
 * the requests the mid hooks (attached with req_backend) see; each one's
 * func id in event_id, SMB2_NO_HOOK when off. Returns how many are on.
 */
unsigned int smbevent_sync(struct smbevents *ev, const struct layer_env *env, enum backend req_backend,
			   uint32_t event_id[_SMB_EV_MAX]);
/* Every event off, its tracepoints detached, its func in state why. */
void smbevent_off(struct smbevents *ev, const struct layer_env *env, enum func_state why, const char *detail,
		  uint32_t event_id[_SMB_EV_MAX]);

/*
 * The fields, MESSAGE and MESSAGE_ID of a connection event; the shares of
 * its server from m (may be NULL) when the event names no share itself.
 */
int smbevent_decode(const struct rec_smb2 *e, struct record *r, struct mounts *m);

/* MESSAGE_ID of event kind k (enum smb_event), NULL for none. */
const char *smbevent_message_id(unsigned int k);
