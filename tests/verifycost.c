// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verifycost OBJECT BUDGET PROGRAM...: loads the named programs of a BPF
 * object on this kernel and prints the instructions the verifier went
 * through for each (bpf_prog_info.verified_insns); exits 1 if one went
 * over BUDGET, 77 if the object does not load here as it stands (the
 * agent sets its compat flags first, this does not).
 *
 * Each fentry clone is verified anew, so a template's verification is
 * paid once per function at start-up (P4); a path the verifier cannot
 * prune multiplies it. A test fixes a budget per kernel.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static bool wanted(const char *name, int argc, char **argv)
{
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

/*
 * VERIFYCOST_LOG=DIR: each program's instruction-level verifier log in
 * DIR/PROGRAM.log, to see where the verifier spends its walk (the source
 * lines it goes through most often).
 */
static void log_attach(struct bpf_program *p)
{
	static const size_t size = 256u << 20;
	char *buf = malloc(size);

	if (!buf)
		return;
	buf[0] = 0;
	bpf_program__set_log_level(p, 2);
	bpf_program__set_log_buf(p, buf, size);
}

static void log_write(struct bpf_program *p, const char *dir)
{
	size_t size;
	const char *buf = bpf_program__log_buf(p, &size);
	char path[4096];
	FILE *f;

	if (!buf)
		return;
	snprintf(path, sizeof(path), "%s/%s.log", dir, bpf_program__name(p));
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "verifycost: %s: %s\n", path, strerror(errno));
		return;
	}
	fputs(buf, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct bpf_program *p;
	struct bpf_object *o;
	unsigned long budget;
	const char *log;
	int over = 0, found = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: verifycost OBJECT BUDGET PROGRAM...\n");
		return 2;
	}
	budget = strtoul(argv[2], NULL, 10);
	log = getenv("VERIFYCOST_LOG");
	libbpf_set_print(quiet);
	o = bpf_object__open(argv[1]);
	if (!o) {
		fprintf(stderr, "verifycost: cannot open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	bpf_object__for_each_program (p, o) {
		bool on = wanted(bpf_program__name(p), argc, argv);

		bpf_program__set_autoload(p, on);
		found += on;
		if (on && log)
			log_attach(p);
	}
	if (found != argc - 3) {
		fprintf(stderr, "verifycost: %d of %d programs found in %s\n", found, argc - 3, argv[1]);
		return 2;
	}
	if (bpf_object__load(o)) {
		printf("verifycost: %s does not load here as it stands: %s\n", argv[1], strerror(errno));
		bpf_object__close(o);
		return 77;
	}
	bpf_object__for_each_program (p, o) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_program__autoload(p))
			continue;
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0 || !info.verified_insns) {
			printf("verifycost: no verified_insns for %s (kernel before 5.16)\n",
			       bpf_program__name(p));
			bpf_object__close(o);
			return 77;
		}
		if (log)
			log_write(p, log);
		printf("%s %u verified instructions (%u in the program, budget %lu)\n", bpf_program__name(p),
		       info.verified_insns, info.xlated_prog_len / 8, budget);
		over += info.verified_insns > budget;
	}
	bpf_object__close(o);
	return over ? 1 : 0;
}
