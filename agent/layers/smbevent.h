/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SMB connection events of the smb2 layer (EF_SMB_EVENT): reconnects, sessions, trees, credits. */
#pragma once

#include "bpf/smblat.h"

struct event;
struct record;
struct mounts;

/*
 * The fields, MESSAGE and MESSAGE_ID of a connection event; the shares of
 * its server from m (may be NULL) when the event names no share itself.
 */
int smbevent_decode(const struct event *e, struct record *r, struct mounts *m);

/* MESSAGE_ID of event kind k (enum smb_event), NULL for none. */
const char *smbevent_message_id(unsigned int k);
