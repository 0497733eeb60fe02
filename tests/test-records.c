/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The structs the BPF programs and the agent share (bpf/smblat.h and the
 * headers it includes) laid out alike on both sides: every member's offset
 * as this compiler places it against the BTF of the BPF object the build
 * made, and the member count, so that a member added on one side only, or
 * moved, fails here (tetragon's alignchecker does the same).
 *   test-records OBJECT.bpf.o
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "bpf/smblat.h"
#include "bpf/view.h"
#include "base/macro.h"

#include "check.h"

struct member {
	const char *name;
	size_t offset;
};

struct layout {
	const char *name;
	size_t size;
	const struct member *members;
	size_t n;
};

#define M(s, m)                           \
	{                                 \
#m, offsetof(struct s, m) \
	}
#define LAYOUT(s, ...)                                                                                  \
	{                                                                                               \
#s, sizeof(struct s),                                                                   \
			(const struct member[]) {                                                       \
				__VA_ARGS__ },                                                          \
				sizeof((const struct member[]) { __VA_ARGS__ }) / sizeof(struct member) \
	}

static const struct layout layouts[] = {
	LAYOUT(func_cfg, M(func_cfg, threshold_ns), M(func_cfg, flags), M(func_cfg, sb_arg),
	       M(func_cfg, sb_kind), M(func_cfg, name_arg), M(func_cfg, name_kind), M(func_cfg, nargs),
	       M(func_cfg, ret_kind), M(func_cfg, frame_args), M(func_cfg, ret_fail), M(func_cfg, op)),
	LAYOUT(func_stats, M(func_stats, total_ns), M(func_stats, slow), M(func_stats, lost),
	       M(func_stats, untimed), M(func_stats, unmatched), M(func_stats, min_ns), M(func_stats, max_ns),
	       M(func_stats, mm_epoch), M(func_stats, hist)),
	LAYOUT(global_stats, M(global_stats, nest_overflow), M(global_stats, no_storage)),
	LAYOUT(probe_place, M(probe_place, addr), M(probe_place, offset)),
	LAYOUT(smblat_cfg, M(smblat_cfg, tgid), M(smblat_cfg, self_tgid), M(smblat_cfg, filter_comm),
	       M(smblat_cfg, compat), M(smblat_cfg, cgroup_id), M(smblat_cfg, comm)),
	LAYOUT(rec_head, M(rec_head, kind), M(rec_head, func_id), M(rec_head, end_ns),
	       M(rec_head, latency_ns), M(rec_head, pid), M(rec_head, tid), M(rec_head, uid),
	       M(rec_head, flags), M(rec_head, comm)),
	LAYOUT(rec_stacks, M(rec_stacks, kstack_sz), M(rec_stacks, ustack_sz), M(rec_stacks, uflags),
	       M(rec_stacks, pad), M(rec_stacks, kstack), M(rec_stacks, ustack)),
	LAYOUT(rec_call, M(rec_call, h), M(rec_call, ret), M(rec_call, args), M(rec_call, offcpu_ns),
	       M(rec_call, st)),
	LAYOUT(block_cfg, M(block_cfg, rq_arg), M(block_cfg, queue_time), M(block_cfg, n_devs),
	       M(block_cfg, devs)),
	LAYOUT(blk_start, M(blk_start, start_ns), M(blk_start, insert_ns), M(blk_start, issue_ns),
	       M(blk_start, sector), M(blk_start, bytes), M(blk_start, func_id), M(blk_start, pid),
	       M(blk_start, tid), M(blk_start, uid), M(blk_start, state), M(blk_start, comm)),
	LAYOUT(rec_block, M(rec_block, h), M(rec_block, sector), M(rec_block, queue_ns), M(rec_block, bytes),
	       M(rec_block, op), M(rec_block, disk)),
	LAYOUT(smb2_split, M(smb2_split, send_ns), M(smb2_split, rtt_ns), M(smb2_split, wake_ns)),
	LAYOUT(smb2_ids, M(smb2_ids, mid), M(smb2_ids, session), M(smb2_ids, async_id), M(smb2_ids, tree),
	       M(smb2_ids, status), M(smb2_ids, flags), M(smb2_ids, cmd), M(smb2_ids, credit_charge),
	       M(smb2_ids, credits), M(smb2_ids, pad)),
	LAYOUT(smb2_req, M(smb2_req, start_ns), M(smb2_req, alloc_ns), M(smb2_req, sent_ns),
	       M(smb2_req, recv_ns), M(smb2_req, ids), M(smb2_req, pid), M(smb2_req, tid), M(smb2_req, uid),
	       M(smb2_req, dev), M(smb2_req, flags), M(smb2_req, granted), M(smb2_req, pad),
	       M(smb2_req, comm), M(smb2_req, name), M(smb2_req, server)),
	LAYOUT(rec_smb2, M(rec_smb2, h), M(rec_smb2, ids), M(rec_smb2, conn_id), M(rec_smb2, dev),
	       M(rec_smb2, credits_granted), M(rec_smb2, event), M(rec_smb2, event_val), M(rec_smb2, split),
	       M(rec_smb2, name), M(rec_smb2, server)),
	LAYOUT(smb2_ctl, M(smb2_ctl, on), M(smb2_ctl, hook_id), M(smb2_ctl, hook_arg), M(smb2_ctl, hook_kref),
	       M(smb2_ctl, alloc_server_arg), M(smb2_ctl, pad), M(smb2_ctl, cmd_id), M(smb2_ctl, event_id),
	       M(smb2_ctl, ns_per_jiffy), M(smb2_ctl, keep_freed), M(smb2_ctl, n_servers),
	       M(smb2_ctl, n_sessions), M(smb2_ctl, pad2), M(smb2_ctl, servers), M(smb2_ctl, sessions)),
	LAYOUT(wire_req, M(wire_req, lat_us), M(wire_req, cmd), M(wire_req, pad)),
	LAYOUT(rec_wire, M(rec_wire, n), M(rec_wire, pad), M(rec_wire, ns), M(rec_wire, split),
	       M(rec_wire, req)),
	LAYOUT(rec_vfs_call, M(rec_vfs_call, c), M(rec_vfs_call, dev), M(rec_vfs_call, pad),
	       M(rec_vfs_call, name), M(rec_vfs_call, wire)),
	LAYOUT(procs_ctl, M(procs_ctl, smbd_inode), M(procs_ctl, exe_inode), M(procs_ctl, exe_fd),
	       M(procs_ctl, smbd), M(procs_ctl, acct_smbd), M(procs_ctl, acct_cgroup), M(procs_ctl, split),
	       M(procs_ctl, exit_id), M(procs_ctl, oplock_id), M(procs_ctl, lease_id), M(procs_ctl, seed_pid),
	       M(procs_ctl, str_sleep), M(procs_ctl, acct_comm), M(procs_ctl, seed_count), M(procs_ctl, pad),
	       M(procs_ctl, split_since_ns)),
	LAYOUT(split_thread, M(split_thread, tgid), M(split_thread, cur), M(split_thread, depth),
	       M(split_thread, stack), M(split_thread, ctdb_nest), M(split_thread, pad),
	       M(split_thread, io_pending), M(split_thread, since_ns), M(split_thread, first_ns),
	       M(split_thread, acc_ns), M(split_thread, n), M(split_thread, dead_ns)),
	LAYOUT(smbd_proc, M(smbd_proc, start_ns), M(smbd_proc, ppid), M(smbd_proc, disc_status),
	       M(smbd_proc, exit_how), M(smbd_proc, last_err_nr), M(smbd_proc, last_err),
	       M(smbd_proc, peer_len), M(smbd_proc, last_err_ns), M(smbd_proc, reason_ptr),
	       M(smbd_proc, location_ptr), M(smbd_proc, dead_ns), M(smbd_proc, peer), M(smbd_proc, reason),
	       M(smbd_proc, location), M(smbd_proc, syscall_ns), M(smbd_proc, syscalls),
	       M(smbd_proc, disk_read_ns), M(smbd_proc, disk_reads), M(smbd_proc, disk_write_ns),
	       M(smbd_proc, disk_writes), M(smbd_proc, breaks_sent), M(smbd_proc, breaks_done),
	       M(smbd_proc, ustack_sz), M(smbd_proc, strs_unread), M(smbd_proc, ustack),
	       M(smbd_proc, answers), M(smbd_proc, uflags)),
	LAYOUT(smbd_break_key, M(smbd_break_key, tgid), M(smbd_break_key, oplock), M(smbd_break_key, key)),
	LAYOUT(smbd_break, M(smbd_break, start_ns), M(smbd_break, from), M(smbd_break, to),
	       M(smbd_break, answers), M(smbd_break, pad)),
	LAYOUT(smbd_hdr_layout, M(smbd_hdr_layout, on), M(smbd_hdr_layout, current_idx),
	       M(smbd_hdr_layout, in_vector), M(smbd_hdr_layout, pad)),
	LAYOUT(smbd_req_key, M(smbd_req_key, tgid), M(smbd_req_key, pad), M(smbd_req_key, req)),
	LAYOUT(smbd_req_start, M(smbd_req_start, start_ns), M(smbd_req_start, func_id),
	       M(smbd_req_start, has_ids), M(smbd_req_start, ids), M(smbd_req_start, ustack)),
	LAYOUT(rec_smbd_req, M(rec_smbd_req, c), M(rec_smbd_req, ids)),
	LAYOUT(rec_smbd_exit, M(rec_smbd_exit, h), M(rec_smbd_exit, exit_code), M(rec_smbd_exit, status),
	       M(rec_smbd_exit, ppid), M(rec_smbd_exit, exit_how), M(rec_smbd_exit, last_err_nr),
	       M(rec_smbd_exit, last_err), M(rec_smbd_exit, unread), M(rec_smbd_exit, pad),
	       M(rec_smbd_exit, last_err_ago_ns), M(rec_smbd_exit, peer), M(rec_smbd_exit, reason),
	       M(rec_smbd_exit, location), M(rec_smbd_exit, st)),
	LAYOUT(rec_smbd_break, M(rec_smbd_break, h), M(rec_smbd_break, from), M(rec_smbd_break, to),
	       M(rec_smbd_break, key), M(rec_smbd_break, oplock), M(rec_smbd_break, pad)),
	LAYOUT(stack_key, M(stack_key, func_id), M(stack_key, tgid), M(stack_key, kstack),
	       M(stack_key, uflags), M(stack_key, ustack), M(stack_key, comm)),
	LAYOUT(ustack_val, M(ustack_val, frames), M(ustack_val, n), M(ustack_val, flags)),
	LAYOUT(ufile_key, M(ufile_key, ino), M(ufile_key, dev), M(ufile_key, pad)),
	LAYOUT(ufile_val, M(ufile_val, index), M(ufile_val, state)),
	LAYOUT(ufile_note, M(ufile_note, ino), M(ufile_note, dev), M(ufile_note, index), M(ufile_note, tgid),
	       M(ufile_note, path_off), M(ufile_note, path)),
	LAYOUT(urow, M(urow, pc), M(urow, cfa), M(urow, fp_at), M(urow, fp_off), M(urow, cfa_off)),
	LAYOUT(upage_key, M(upage_key, index), M(upage_key, page)),
	LAYOUT(upage_val, M(upage_val, first), M(upage_val, n)),
	LAYOUT(stack_count, M(stack_count, count), M(stack_count, total_ns)),
	LAYOUT(stack_lost, M(stack_lost, stack_full), M(stack_lost, keys_full)),
	LAYOUT(sys_info, M(sys_info, acct_id), M(sys_info, cls)),
	LAYOUT(acct_err_key, M(acct_err_key, id), M(acct_err_key, err)),
	LAYOUT(share_key, M(share_key, func_id), M(share_key, dev)),
	LAYOUT(view_ctl, M(view_ctl, share_on), M(view_ctl, pad)),
};

static void check_layout(const struct btf *btf, const struct layout *l)
{
	int id = btf__find_by_name_kind(btf, l->name, BTF_KIND_STRUCT);
	const struct btf_member *m;
	const struct btf_type *t;

	check(id > 0, "struct %s is not in the object's BTF", l->name);
	if (id <= 0)
		return;
	t = btf__type_by_id(btf, id);
	check(t->size == l->size, "struct %s: %u bytes in BPF, %zu here", l->name, t->size, l->size);
	check(btf_vlen(t) == l->n, "struct %s: %u members in BPF, %zu here", l->name, btf_vlen(t), l->n);
	m = btf_members(t);
	for (size_t i = 0; i < l->n && i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);

		check(strcmp(name, l->members[i].name) == 0, "struct %s: member %zu is %s in BPF, %s here",
		      l->name, i, name, l->members[i].name);
		check(btf_member_bit_offset(t, i) == 8 * l->members[i].offset,
		      "struct %s.%s: at byte %u in BPF, %zu here", l->name, name,
		      btf_member_bit_offset(t, i) / 8, l->members[i].offset);
	}
}

int main(int argc, char **argv)
{
	struct btf *btf;

	if (argc != 2) {
		fprintf(stderr, "usage: test-records OBJECT.bpf.o\n");
		return 2;
	}
	btf = btf__parse(argv[1], NULL);
	if (!btf) {
		fprintf(stderr, "test-records: BTF of %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < ELEMENTSOF(layouts); i++)
		check_layout(btf, &layouts[i]);
	btf__free(btf);
	return check_done("records");
}
