// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smb2 layer's mid hooks: which cifs functions allocate, answer, send
 * and release mids on this kernel, and where the mid is among their
 * arguments, from the module's BTF or, where cifs has none (before Linux
 * 5.11), from functions known by name to take it first.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>

#include "layers/cifs/smb2.h"
#include "symbols/ksyms.h"

/* Newest names first; the first one this kernel has is used. */
static const char *const hook_candidates[_SMB2_HOOK_MAX][4] = {
	[SMB2_HOOK_ALLOC] = { "smb2_mid_entry_alloc", "__smb2_mid_entry_alloc" },
	[SMB2_HOOK_RESPONSE] = { "dequeue_mid" },
	[SMB2_HOOK_DONE] = { "delete_mid", "cifs_delete_mid" },
	[SMB2_HOOK_FREE] = { "__release_mid", "_cifs_mid_q_entry_release" },
	[SMB2_HOOK_SUBMIT] = { "compound_send_recv" },
	[SMB2_HOOK_SUBMIT_ASYNC] = { "cifs_call_async" },
	[SMB2_HOOK_SENT] = { "smb_send_rqst", "__smb_send_rqst" },
};

/*
 * Without cifs BTF no prototype says where the mid is: functions known to
 * take it (the header at allocation) first. The release is then the first
 * reference dropped after the response (release_mid and its predecessor
 * take the mid; the last reference's function takes a kref, which cannot
 * be turned back into its mid without the struct's layout).
 */
static const char *const hook_by_name[_SMB2_HOOK_MAX][4] = {
	[SMB2_HOOK_ALLOC] = { "smb2_mid_entry_alloc", "__smb2_mid_entry_alloc" },
	[SMB2_HOOK_RESPONSE] = { "dequeue_mid" },
	[SMB2_HOOK_DONE] = { "delete_mid", "cifs_delete_mid" },
	[SMB2_HOOK_FREE] = { "release_mid", "cifs_mid_q_entry_release" },
};

/* The struct a pointer type points to, or NULL. */
static const char *pointee_struct(const struct btf *btf, uint32_t id)
{
	int r = btf__resolve_type(btf, id);
	const struct btf_type *t = r > 0 ? btf__type_by_id(btf, r) : NULL;

	if (!t || !btf_is_ptr(t))
		return NULL;
	r = btf__resolve_type(btf, t->type);
	t = r > 0 ? btf__type_by_id(btf, r) : NULL;
	return t && btf_is_struct(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

/* The prototype of function symbol in btf; NULL with r set (-ENOENT, -EINVAL) when there is none. */
static const struct btf_type *func_proto(const struct btf *btf, const char *symbol, int *r)
{
	int id = btf ? btf__find_by_name_kind(btf, symbol, BTF_KIND_FUNC) : -ENOENT;
	const struct btf_type *fn = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;

	*r = id < 0 ? -ENOENT : -EINVAL;
	return proto && btf_is_func_proto(proto) ? proto : NULL;
}

int smb2_hook_arg(const struct btf *btf, enum smb2_hook h, const char *symbol, uint8_t *arg, uint8_t *kref)
{
	const struct btf_type *proto;
	const struct btf_param *p;
	int r;

	proto = func_proto(btf, symbol, &r);
	if (!proto)
		return r;
	p = btf_params(proto);
	if (h >= SMB2_HOOK_SUBMIT) {
		/* submissions and sends: only when they run matters */
		*arg = 0;
		*kref = 0;
		return 0;
	}
	for (int i = 0; i < btf_vlen(proto) && i < SMBLAT_MAX_ARGS; i++) {
		const char *s = pointee_struct(btf, p[i].type);

		if (!s)
			continue;
		if (h == SMB2_HOOK_ALLOC ? strstr(s, "hdr") != NULL : strcmp(s, "mid_q_entry") == 0) {
			*arg = i;
			*kref = 0;
			return 0;
		}
		if (h != SMB2_HOOK_ALLOC && strcmp(s, "kref") == 0) {
			*arg = i;
			*kref = 1;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * The allocation's argument that is the connection, + 1 (0: none): where a
 * mid no longer points to its server (7.x), the request keeps it from there.
 */
static uint8_t alloc_server_arg(const struct btf *btf, const char *symbol)
{
	int r;
	const struct btf_type *proto = func_proto(btf, symbol, &r);

	if (!proto)
		return 0;
	for (int i = 0; i < btf_vlen(proto) && i < SMBLAT_MAX_ARGS; i++) {
		const char *s = pointee_struct(btf, btf_params(proto)[i].type);

		if (s && strcmp(s, "TCP_Server_Info") == 0)
			return (uint8_t)(i + 1);
	}
	return 0;
}

/* The first candidate this kernel has; fills ctl's argument layout. */
const char *smb2_hook_resolve(const struct btf *btf, const struct ksyms *ks, enum smb2_hook h,
			      struct smb2_ctl *ctl)
{
	for (int i = 0; !btf && i < 4 && hook_by_name[h][i]; i++)
		if (ksyms_lookup(ks, hook_by_name[h][i], "cifs")) {
			ctl->hook_arg[h] = 0;
			ctl->hook_kref[h] = 0;
			return hook_by_name[h][i];
		}
	for (int i = 0; btf && i < 4 && hook_candidates[h][i]; i++) {
		const char *s = hook_candidates[h][i];

		if (smb2_hook_arg(btf, h, s, &ctl->hook_arg[h], &ctl->hook_kref[h]) < 0)
			continue;
		if (h == SMB2_HOOK_ALLOC)
			ctl->alloc_server_arg = alloc_server_arg(btf, s);
		return s;
	}
	return NULL;
}

const char *smb2_hook_name(enum smb2_hook h)
{
	return (unsigned int)h < _SMB2_HOOK_MAX ? hook_candidates[h][0] : NULL;
}
