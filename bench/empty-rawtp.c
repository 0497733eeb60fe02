// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * empty-rawtp OBJECT PREFIX: loads bench/empty-rawtp.bpf.c's object,
 * attaches its programs whose names start with PREFIX, prints "ready" and
 * holds them until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	sigset_t set;
	int sig;

	if (argc != 3) {
		fprintf(stderr, "usage: empty-rawtp OBJECT PREFIX\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj)
		return 1;
	bpf_object__for_each_program (p, obj)
		bpf_program__set_autoload(p, strncmp(bpf_program__name(p), argv[2], strlen(argv[2])) == 0);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "empty-rawtp: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program (p, obj)
		if (bpf_program__autoload(p) && !bpf_program__attach(p)) {
			fprintf(stderr, "empty-rawtp: cannot attach %s\n", bpf_program__name(p));
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	bpf_object__close(obj);
	return 0;
}
