// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SMBD_SMB2_CANCEL: the one SMB2 command smbd exports no handler for (its
 * smbd_smb2_request_process_cancel() is static in every Samba) and sends
 * no reply to, so neither end of the other requests' timing sees it. It is
 * timed over its smbd_smb2_request_dispatch(), entry to return, told from
 * the other requests there by the command of its inbound SMB2 header
 * (bpf/smbd.bpf.c), which needs the request's layout (reqlayout.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "layers/smbd/cancel.h"
#include "layers/smbd/views.h"
#include "base/macro.h"

#define NAME "smbd"
#define FUNCTION "SMBD_SMB2_CANCEL"

static const char *const dispatch[] = { "smbd_smb2_request_dispatch" };
static const struct uprog_pair cancel_begin = UPROG_PAIR(smbd_cancel_dispatch, umulti_smbd_cancel_dispatch);
static const struct uprog_pair cancel_end = UPROG_PAIR(smbd_cancel_dispatch_ret,
						       umulti_smbd_cancel_dispatch_ret);

/* As every SMB2 request of the layer: its threshold and stacks, the NTSTATUS in hex. */
static void configure(const struct layer_env *env, struct func *f)
{
	const struct config *c = env->cfg;

	f->cfg = (struct func_cfg) {
		.threshold_ns = config_layer_threshold_ns(c, LAYER_SMBD),
		.flags = FF_ENABLED | (c->user_stack ? FF_USTACK : 0) |
			 (c->layer[LAYER_SMBD].stacks ? FF_STACKS_USER : 0),
		.ret_kind = RK_PTR,
	};
	probes_update(env->probes, f);
}

void smbd_cancel_sync(const struct layer_env *env, const char *lib, bool want, unsigned int *attached,
		      unsigned int *detached)
{
	char target[512], missing[128] = "", buf[256];
	struct func *f;
	int r;

	snprintf(target, sizeof(target), "%s:%s", lib, dispatch[0]);
	want = want && config_wants(env->cfg, LAYER_SMBD, FUNCTION);
	f = smbd_view_func(env, FUNCTION, want ? target : NULL);
	if (!f)
		return;
	if (func_attached(f) && !want) {
		*detached += smbd_cancel_detach(env, FUNC_DISABLED);
		return;
	}
	if (!want)
		return;
	configure(env, f);
	if (func_attached(f))
		return;
	/* the return first: an entry without its return would leave a CANCEL in flight */
	r = smbd_hook(env, f, &cancel_end, lib, dispatch, NULL, 1, true, missing, sizeof(missing));
	if (r >= 0)
		r = smbd_hook(env, f, &cancel_begin, lib, dispatch, NULL, 1, false, missing, sizeof(missing));
	if (r < 0) {
		probes_detach(env->probes, f, FUNC_NOT_FOUND, NULL);
		func_set_state(f, r == -ENOENT ? FUNC_NOT_FOUND : FUNC_FAILED, "%s: %s", lib,
			       r == -ENOENT ? "no smbd_smb2_request_dispatch" : strerror(-r));
		log_layer(NAME, STATUS_PROBE_FAILED, r == -ENOENT ? REASON_NOT_FOUND : REASON_ATTACH_FAILED,
			  LOG_WARNING, FUNCTION " not attached: %s", func_state_text(f, buf, sizeof(buf)));
		return;
	}
	probes_skel(env->probes)->bss->smbd_cancel_id = f->id + 1;
	(*attached)++;
}

unsigned int smbd_cancel_detach(const struct layer_env *env, enum func_state why)
{
	struct func *f = smbd_view_func(env, FUNCTION, NULL);

	probes_skel(env->probes)->bss->smbd_cancel_id = 0;
	if (!f || !func_attached(f))
		return 0;
	probes_detach(env->probes, f, why, NULL);
	return 1;
}
