/* SPDX-License-Identifier: GPL-2.0 */
/* From a function argument to the super_block and dentry it concerns (smb layer, smb2 origin). */
#ifndef SMBLAT_VFS_BPF_H
#define SMBLAT_VFS_BPF_H

#include "core.bpf.h"

/* Chase one argument to the super_block it belongs to. */
static __always_inline struct super_block *arg_sb(__u8 kind, __u64 p)
{
	if (!p)
		return NULL;
	switch (kind) {
	case AK_INODE:
		return BPF_CORE_READ((struct inode *)p, i_sb);
	case AK_DENTRY:
		return BPF_CORE_READ((struct dentry *)p, d_sb);
	case AK_FILE:
		return BPF_CORE_READ((struct file *)p, f_inode, i_sb);
	case AK_SB:
		return (struct super_block *)p;
	case AK_FOLIO:
		if (bpf_core_type_exists(struct folio))
			return BPF_CORE_READ((struct folio *)p, mapping, host, i_sb);
		return NULL;
	case AK_PAGE:
		return BPF_CORE_READ((struct page *)p, mapping, host, i_sb);
	case AK_MAPPING:
		return BPF_CORE_READ((struct address_space *)p, host, i_sb);
	case AK_KIOCB:
		return BPF_CORE_READ((struct kiocb *)p, ki_filp, f_inode, i_sb);
	case AK_PATH:
		return BPF_CORE_READ((struct path *)p, dentry, d_sb);
	case AK_RAC:
		return BPF_CORE_READ((struct readahead_control *)p, mapping, host, i_sb);
	case AK_VMA:
		return BPF_CORE_READ((struct vm_area_struct *)p, vm_file, f_inode, i_sb);
	}
	return NULL;
}

static __always_inline struct dentry *arg_dentry(__u8 kind, __u64 p)
{
	if (!p)
		return NULL;
	switch (kind) {
	case AK_DENTRY:
		return (struct dentry *)p;
	case AK_FILE:
		return BPF_CORE_READ((struct file *)p, f_path.dentry);
	case AK_PATH:
		return BPF_CORE_READ((struct path *)p, dentry);
	case AK_KIOCB:
		return BPF_CORE_READ((struct kiocb *)p, ki_filp, f_path.dentry);
	case AK_VMA:
		return BPF_CORE_READ((struct vm_area_struct *)p, vm_file, f_path.dentry);
	}
	return NULL;
}

static __always_inline bool sb_is_smb(struct super_block *sb)
{
	unsigned long magic;

	if (!sb)
		return false;
	magic = BPF_CORE_READ(sb, s_magic);
	return magic == SMB_SUPER_MAGIC_CIFS || magic == SMB_SUPER_MAGIC_SMB2;
}

/* The share (its mount's device) a call with arguments args was on; 0: none. */
static __always_inline __u32 vfs_dev(const struct func_cfg *fc, const __u64 *args)
{
	struct super_block *sb = arg_sb(fc->sb_kind, arg_at(args, fc->sb_arg));

	return sb ? BPF_CORE_READ(sb, s_dev) : 0;
}

/* Device and file name of the call in f, as fc says where to find them. */
static __always_inline void vfs_fill(struct rec_vfs_call *v, const struct func_cfg *fc, const __u64 *args)
{
	struct super_block *sb = arg_sb(fc->sb_kind, arg_at(args, fc->sb_arg));
	struct dentry *de = arg_dentry(fc->name_kind, arg_at(args, fc->name_arg));
	const unsigned char *name;

	if (sb) {
		v->dev = BPF_CORE_READ(sb, s_dev);
		v->c.h.flags |= RF_HAS_DEV;
	}
	if (de) {
		name = BPF_CORE_READ(de, d_name.name);
		if (name && bpf_probe_read_kernel_str(v->name, sizeof(v->name), name) > 0)
			v->c.h.flags |= RF_HAS_NAME;
	}
}

#endif
