/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-share view of the SMB layers (smb, smb2): each FUNCTION's calls
 * counted again per share they were on (BPF: bpf/view.bpf.h), summarized
 * per share and per server, as journal entries or a table on the terminal.
 */
#pragma once

#include "layers/layer.h"

struct shareview;

int shareview_new(struct shareview **ret);
struct smblat_bpf;
struct config;
/* Before the object loads: the view's size as [histogram] per_share_max= says (the units' setup). */
void shareview_setup(struct smblat_bpf *skel, const struct config *c);
void shareview_free(struct shareview *v);

/* Per-share counting on or off, as [histogram] per_share= says now. */
void shareview_enable(const struct layer_env *env);

/*
 * What the FUNCTIONs of layer did since the last call: one summary per
 * FUNCTION and share, one per FUNCTION and server (its shares merged);
 * calls the view had no room for are said in a status line.
 */
void shareview_summarize(struct shareview *v, const struct layer_env *env, enum layer_id layer,
			 const struct summary_out *out);
