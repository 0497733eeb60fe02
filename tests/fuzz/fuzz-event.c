/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary ring buffer bytes through layers_decode(), with
 * and without symbols and mounts, then through both sinks' formatting: the
 * journal entry's fields and every terminal format (to /dev/null).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/event.h"
#include "layers/layer.h"
#include "sinks/journal.h"
#include "sinks/term.h"
#include "fuzz.h"
#include "base/macro.h"

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81100000 T vfs_unlink\n"
			       "ffffffff81100800 T do_unlinkat\n"
			       "ffffffff81102000 T do_syscall_64\n"
			       "ffffffff81105000 T arch_rethook_trampoline\n"
			       "ffffffff81200000 D some_data\n"
			       "ffffffffc0a00000 t cifs_lookup\t[cifs]\n"
			       "ffffffffc0a01000 t cifs_unlink\t[cifs]\n"
			       "ffffffffc0c00000 t bpf_prog_6deef7357e7b4530_kretprobe_exit\t[bpf]\n";

static const char mountinfo[] = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
				"100 22 0:55 / /mnt/smb rw,relatime - cifs //srv/share rw,vers=3.1.1\n";

static struct func_table funcs;
static struct decoder full, bare;
static FILE *devnull;

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/fuzz-event.XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0)
		fail("cannot write a temporary file");
	return path;
}

static void add(enum layer_id l, const char *name, const char *symbol, const char *module, uint8_t ret_kind,
		uint8_t nargs)
{
	int id = func_table_add(&funcs, l, GROUP_NONE, name, symbol, module);

	if (id < 0)
		fail("func_table_add(%s) failed", name);
	funcs.v[id].kernel = symbol && !strchr(symbol, '/');
	funcs.v[id].cfg.ret_kind = ret_kind;
	funcs.v[id].cfg.nargs = nargs;
	funcs.v[id].cfg.threshold_ns = 10000000;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *ks_path = write_tmp(kallsyms), *mi_path = write_tmp(mountinfo);
	struct ksyms *ks;
	struct mounts *m;

	fuzz_report_init();
	/* id 0 matches the uprobe calls of the seed corpus (tests/fuzz/seeds-event.py) */
	add(LAYER_FUNC, "SLOWCALL", "/tmp/cap/slowprog:slow_call", NULL, RK_INT, 2);
	add(LAYER_SMB, "INODE_OP_UNLINK", "cifs_unlink", "cifs", RK_INT, 2);
	add(LAYER_SMB, "INODE_OP_LOOKUP", "cifs_lookup", "cifs", RK_PTR, 3);
	add(LAYER_FUNC, "READ", "vfs_unlink", NULL, RK_LONG, 6);
	add(LAYER_FUNC, "COUNT", "do_unlinkat", NULL, RK_UINT, 7); /* nargs beyond the array */
	add(LAYER_BLOCK, "NOTHING", NULL, NULL, RK_VOID, 0);
	if (ksyms_load_file(ks_path, &ks) < 0 || mounts_new(mi_path, &m) < 0)
		fail("cannot load the fake kallsyms or mountinfo");
	unlink(ks_path);
	unlink(mi_path);
	free(ks_path);
	free(mi_path);
	full = (struct decoder) {
		.funcs = &funcs, .ks = ks, .mounts = m, .boot_to_realtime_ns = 1700000000000000000ll
	};
	bare = (struct decoder) { .funcs = &funcs };
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		fail("cannot open /dev/null");
	return 0;
}

static void journal_check(const struct record *r)
{
	char **fields = NULL;
	int n = journal_event_fields(r, &fields);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(fields[i], '=');

		if (!eq)
			fail("field without '=': %s", fields[i]);
		*eq = '\0';
		if (!journal_field_name_valid(fields[i]))
			fail("invalid field name %s", fields[i]);
		free(fields[i]);
	}
	free(fields);
}

static void term_all(const struct record *r)
{
	static const struct term_opts opts[] = {
		{ .format = TERM_TEXT, .show_stack = true, .show_args = true, .show_ret = true },
		{ .format = TERM_TEXT },
		{ .format = TERM_CSV, .show_args = true, .show_ret = true },
		{ .folded = true },
	};

	for (size_t i = 0; i < ELEMENTSOF(opts); i++)
		term_print_event(devnull, &opts[i], r);
}

static void one(const struct decoder *d, const uint8_t *data, size_t size)
{
	struct record r;
	struct layer_env env = { .dec = d, .mounts = d->mounts };

	if (layers_decode(&env, data, size, &r) == 0) {
		if (r.nargs > SMBLAT_MAX_ARGS)
			fail("nargs %u beyond the array", r.nargs);
		journal_check(&r);
		term_all(&r);
	}
	event_record_clear(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private, aligned copy: the ring buffer hands out 8-byte aligned samples */
	uint64_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	one(&full, (const uint8_t *)copy, size);
	one(&bare, (const uint8_t *)copy, size);
	free(copy);
	return 0;
}
