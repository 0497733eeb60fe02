/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/ksyms.h"

#include "check.h"

static const char synthetic[] = "ffffffff81000000 T _stext\n"
				"ffffffff81000000 t _text_local\n"
				"ffffffff81001000 T vfs_read\n"
				"ffffffff81000800 T early_func\n" /* out of order */
				"ffffffff82000000 D some_data\n"
				"ffffffff82000100 r local_ro\n"
				"ffffffff82000200 b bss_obj\n"
				"0000000000000000 A fixed_percpu_data\n"
				"ffffffffc0a01000 t cifs_unlink\t[cifs]\n"
				"ffffffffc0a00000 T cifs_mount\t[cifs]\n"
				"ffffffffc0a10000 d cifs_file_ops\t[cifs]\n"
				"ffffffffc0b00000 t dup_name\t[other]\n"
				"ffffffff81002000 t dup_name\n"
				"ffffffff81002800 t dup_name\n"
				"ffffffff81003000 t alias_local\n"
				"ffffffff81003000 W weak_fn\n"
				"ffffffffc0c00000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n"
				"garbage line\n"
				"ffffffffc0a02000 t cifs_last\t[cifs]"; /* no trailing newline */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* Wall time swings with whatever else the machine runs; CPU time is what the load costs. */
static double cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static void check_format(const struct ksyms *k, uint64_t addr, int want_r, const char *want)
{
	char buf[128];
	int r;

	r = ksyms_format(k, addr, buf, sizeof(buf));
	check(r == want_r && strcmp(buf, want) == 0, "format(0x%llx) = %d \"%s\", want %d \"%s\"",
	      (unsigned long long)addr, r, buf, want_r, want);
}

static void check_find(const struct ksyms *k, uint64_t addr, const char *name, uint64_t off)
{
	const struct ksym *s;
	uint64_t o = ~0ull;

	s = ksyms_find(k, addr, &o);
	if (!name) {
		check(!s, "find(0x%llx) = %s, want none", (unsigned long long)addr, s ? s->name : "");
		return;
	}
	check(s && strcmp(s->name, name) == 0 && o == off, "find(0x%llx) = %s+0x%llx, want %s+0x%llx",
	      (unsigned long long)addr, s ? s->name : "(none)", (unsigned long long)o, name,
	      (unsigned long long)off);
}

static void check_lookup(const struct ksyms *k, const char *name, const char *module, uint64_t want_addr,
			 char want_type)
{
	const struct ksym *s = ksyms_lookup(k, name, module);

	if (!want_addr) {
		check(!s, "lookup(%s, %s) found 0x%llx", name, module ?: "NULL",
		      s ? (unsigned long long)s->addr : 0ull);
		return;
	}
	check(s && s->addr == want_addr && s->type == want_type, "lookup(%s, %s) = 0x%llx %c, want 0x%llx %c",
	      name, module ?: "NULL", s ? (unsigned long long)s->addr : 0ull, s ? s->type : '-',
	      (unsigned long long)want_addr, want_type);
}

static void test_synthetic(const char *dir)
{
	char path[256];
	struct ksyms *k = NULL;
	const struct ksym *s;
	int r;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_file(path, synthetic);
	r = ksyms_load_file(path, &k);
	check(r == 0, "load synthetic: %s", strerror(-r));
	if (r < 0)
		return;

	check(ksyms_count_text(k) == 13, "text count %zu", ksyms_count_text(k));
	check(ksyms_count_data(k) == 4, "data count %zu", ksyms_count_data(k));

	check_find(k, 0, NULL, 0);
	check_find(k, 0xffffffff80000000ull, NULL, 0);
	check_find(k, 0xffffffff81000000ull, "_stext", 0); /* T beats t */
	check_find(k, 0xffffffff81000900ull, "early_func", 0x100);
	check_find(k, 0xffffffff81001005ull, "vfs_read", 5);
	check_find(k, 0xffffffff81003010ull, "weak_fn", 0x10); /* W beats t */
	check_find(k, 0xffffffff82000100ull, NULL, 0);         /* data is never a frame */
	check_find(k, 0xffffffffc0a01234ull, "cifs_unlink", 0x234);
	check_find(k, 0xffffffffc0a02001ull, "cifs_last", 1);
	/*
	 * Past the last symbol of vmlinux or of a module lies text kallsyms does
	 * not name (BPF programs JITed after the table was read): no symbol
	 * covers it, rather than the last one with a huge offset.
	 */
	check_find(k, 0xffffffff81003fffull, "weak_fn", 0xfff);
	check_find(k, 0xffffffff81004000ull, NULL, 0);
	check_find(k, 0xffffffffc0030d31ull, NULL, 0);
	check_find(k, 0xffffffffc0a80000ull, NULL, 0);
	check_format(k, 0xffffffffc0030d31ull, -ENOENT, "0xffffffffc0030d31");

	s = ksyms_find(k, 0xffffffffc0a00010ull, NULL);
	check(s && s->module && strcmp(s->module, "cifs") == 0 && s->type == 'T', "cifs_mount module/type");
	/* modules share one string */
	check(s && ksyms_find(k, 0xffffffffc0a01000ull, NULL)->module == s->module,
	      "module names not pooled");

	check_format(k, 0xffffffffc0a0104eull, 0, "cifs_unlink+0x4e [cifs]");
	check_format(k, 0xffffffff8100112full, 0, "vfs_read+0x12f");
	check_format(k, 0xffffffffc0c00008ull, 0, "bpf_prog_6deef7357e7b4530_sd_fw_egress+0x8 [bpf]");
	check_format(k, 0x1234, -ENOENT, "0x1234");
	check_format(k, 0, -ENOENT, "0x0");

	check_lookup(k, "cifs_file_ops", NULL, 0xffffffffc0a10000ull, 'd');
	check_lookup(k, "cifs_file_ops", "cifs", 0xffffffffc0a10000ull, 'd');
	check_lookup(k, "cifs_file_ops", "vmlinux", 0, 0);
	check_lookup(k, "cifs_file_ops", "other", 0, 0);
	check_lookup(k, "dup_name", NULL, 0xffffffff81002000ull, 't');
	check_lookup(k, "dup_name", "other", 0xffffffffc0b00000ull, 't');
	check_lookup(k, "some_data", NULL, 0xffffffff82000000ull, 'D');
	check_lookup(k, "local_ro", "vmlinux", 0xffffffff82000100ull, 'r');
	check_lookup(k, "bss_obj", NULL, 0xffffffff82000200ull, 'b');
	check_lookup(k, "vfs_read", NULL, 0xffffffff81001000ull, 'T');
	check_lookup(k, "fixed_percpu_data", NULL, 0, 0);
	check_lookup(k, "no_such_symbol", NULL, 0, 0);
	check_lookup(k, "vfs_rea", NULL, 0, 0);

	/* A module loaded after start. */
	{
		char more[sizeof(synthetic) + 128];

		snprintf(more, sizeof(more), "%s\nffffffffc0d00000 t smb2_new\t[smb2x]\n", synthetic);
		write_file(path, more);
	}
	r = ksyms_reload(k);
	check(r == 0, "reload: %s", strerror(-r));
	check_format(k, 0xffffffffc0d00010ull, 0, "smb2_new+0x10 [smb2x]");
	check_lookup(k, "cifs_file_ops", "cifs", 0xffffffffc0a10000ull, 'd');

	/* A failed reload keeps what was there. */
	unlink(path);
	r = ksyms_reload(k);
	check(r == -ENOENT, "reload of a missing file: %d", r);
	check_format(k, 0xffffffffc0d00010ull, 0, "smb2_new+0x10 [smb2x]");

	ksyms_free(k);
}

static void test_restricted(const char *dir)
{
	char path[256];
	struct ksyms *k = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/restricted", dir);
	write_file(path, "0000000000000000 T _stext\n"
			 "0000000000000000 T vfs_read\n"
			 "0000000000000000 t cifs_unlink\t[cifs]\n");
	r = ksyms_load_file(path, &k);
	check(r == -EPERM && !k, "all-zero kallsyms gave %d", r);
	check(ksyms_explain(r) && strstr(ksyms_explain(r), "kptr_restrict"), "no reason for -EPERM");

	write_file(path, "");
	r = ksyms_load_file(path, &k);
	check(r == -ENODATA, "empty kallsyms gave %d", r);

	r = ksyms_load_file("/nonexistent/kallsyms", &k);
	check(r == -ENOENT, "missing file gave %d", r);
	unlink(path);
}

/* The padding symbols before functions (__pfx_, __cfi_) are not kept: half of 6.x's text symbols. */
static void test_padding(const char *dir)
{
	char path[256];
	struct ksyms *k = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/padding", dir);
	write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000ff0 T __pfx_vfs_read\n"
			 "ffffffff81001000 T vfs_read\n"
			 "ffffffff810011f0 t __cfi_vfs_write\n"
			 "ffffffff81001200 T vfs_write\n"
			 "ffffffffc0a00ff0 t __pfx_cifs_unlink\t[cifs]\n"
			 "ffffffffc0a01000 t cifs_unlink\t[cifs]\n");
	r = ksyms_load_file(path, &k);
	check(r == 0, "load padding: %s", strerror(-r));
	if (k) {
		check(ksyms_count_text(k) == 4, "%zu text symbols, want 4 without the padding",
		      ksyms_count_text(k));
		check_find(k, 0xffffffff81001004ull, "vfs_read", 4);
		check_find(k, 0xffffffff810011f4ull, "vfs_read", 0x1f4);
		check_find(k, 0xffffffffc0a01010ull, "cifs_unlink", 0x10);
		check(!ksyms_lookup(k, "__pfx_vfs_read", NULL), "__pfx_vfs_read kept");
	}
	ksyms_free(k);
	unlink(path);
}

/* An ASan+UBSan build (tests/run's build-san) spends several times the CPU. */
#if defined(__SANITIZE_ADDRESS__)
#define CPU_SCALE 5
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPU_SCALE 5
#endif
#endif
#ifndef CPU_SCALE
#define CPU_SCALE 1
#endif

/* 350k lines shaped like a distribution kernel with modules loaded. */
static void test_big(const char *dir)
{
	char path[256];
	struct ksyms *k = NULL;
	FILE *f;
	double t, c;
	int r;

	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "we");
	if (!f) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	for (unsigned i = 0; i < 300000; i++)
		fprintf(f, "%016llx %c some_kernel_function_name_%u\n", 0xffffffff81000000ull + i * 0x40ull,
			"TtDr"[i % 4], i);
	for (unsigned i = 0; i < 50000; i++)
		fprintf(f, "%016llx %c module_function_%u\t[mod%u]\n",
			0xffffffffc0000000ull + (49999 - i) * 0x80ull, "tTd"[i % 3], i, i / 1000);
	fclose(f);

	t = now_ms();
	c = cpu_ms();
	r = ksyms_load_file(path, &k);
	c = cpu_ms() - c;
	t = now_ms() - t;
	check(r == 0, "load big: %s", strerror(-r));
	printf("synthetic 350k-line kallsyms loaded in %.1f ms (%.1f ms CPU)\n", t, c);
	check(c < 200 * CPU_SCALE, "load took %.1f ms CPU", c);
	if (k) {
		check_find(k, 0xffffffff81000000ull + 4 * 0x40 + 3, "some_kernel_function_name_4", 3);
		check_find(k, 0xffffffffc0000000ull + 0x80 * (49999 - 1) + 1, "module_function_1", 1);
		check_lookup(k, "module_function_49997", "mod49", 0xffffffffc0000100ull, 'd');
		check_lookup(k, "some_kernel_function_name_299999", NULL,
			     0xffffffff81000000ull + 299999 * 0x40ull, 'r');
	}
	ksyms_free(k);
	unlink(path);
}

static void test_live(void)
{
	struct ksyms *k = NULL;
	const struct ksym *s, *f;
	uint64_t off = 0;
	char buf[128];
	double t, c;
	int r;

	t = now_ms();
	c = cpu_ms();
	r = ksyms_load(&k);
	c = cpu_ms() - c;
	t = now_ms() - t;
	if (r == -EPERM && geteuid() != 0) {
		printf("live: skipped, %s\n", ksyms_explain(r));
		return;
	}
	check(r == 0, "load /proc/kallsyms: %s%s%s", strerror(-r), ksyms_explain(r) ? ": " : "",
	      ksyms_explain(r) ?: "");
	if (r < 0)
		return;
	printf("/proc/kallsyms: %zu text, %zu data symbols loaded in %.1f ms (%.1f ms CPU)\n",
	       ksyms_count_text(k), ksyms_count_data(k), t, c);

	s = ksyms_lookup(k, "vfs_read", NULL);
	check(s && !s->module, "vfs_read not found in vmlinux");
	if (s) {
		f = ksyms_find(k, s->addr + 5, &off);
		check(f && strcmp(f->name, "vfs_read") == 0 && off == 5, "find(vfs_read+5) = %s+0x%llx",
		      f ? f->name : "(none)", (unsigned long long)off);
		ksyms_format(k, s->addr + 5, buf, sizeof(buf));
		check(strcmp(buf, "vfs_read+0x5") == 0, "format(vfs_read+5) = %s", buf);
	}

	t = now_ms();
	r = ksyms_reload(k);
	printf("reload in %.1f ms\n", now_ms() - t);
	check(r == 0, "reload /proc/kallsyms: %s", strerror(-r));
	ksyms_free(k);
}

int main(void)
{
	char dir[] = "/tmp/test-ksyms.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	test_synthetic(dir);
	test_restricted(dir);
	test_padding(dir);
	test_big(dir);
	test_live();
	rmdir(dir);

	return check_done("ksyms");
}
