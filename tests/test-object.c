// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The three builds of the BPF object (session kfuncs with and without the
 * context; user stacks walked by the kernel) open through the one skeleton: same maps, programs and data
 * sections, in the same order, or the skeleton's pointers would go astray.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

static int failures;

#define CHECK(cond, ...)                              \
	do {                                          \
		if (!(cond)) {                        \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr);          \
			failures++;                   \
		}                                     \
	} while (0)

static void maps_same(struct bpf_object *a, struct bpf_object *b)
{
	struct bpf_map *ma = bpf_object__next_map(a, NULL), *mb = bpf_object__next_map(b, NULL);

	for (; ma && mb; ma = bpf_object__next_map(a, ma), mb = bpf_object__next_map(b, mb)) {
		CHECK(strcmp(bpf_map__name(ma), bpf_map__name(mb)) == 0, "map %s vs %s", bpf_map__name(ma),
		      bpf_map__name(mb));
		CHECK(bpf_map__type(ma) == bpf_map__type(mb) &&
			      bpf_map__key_size(ma) == bpf_map__key_size(mb) &&
			      bpf_map__value_size(ma) == bpf_map__value_size(mb) &&
			      bpf_map__max_entries(ma) == bpf_map__max_entries(mb),
		      "map %s differs in type or size", bpf_map__name(ma));
	}
	CHECK(!ma && !mb, "one object has more maps");
}

static void programs_same(struct bpf_object *a, struct bpf_object *b)
{
	struct bpf_program *pa = bpf_object__next_program(a, NULL), *pb = bpf_object__next_program(b, NULL);

	for (; pa && pb; pa = bpf_object__next_program(a, pa), pb = bpf_object__next_program(b, pb))
		CHECK(strcmp(bpf_program__name(pa), bpf_program__name(pb)) == 0 &&
			      strcmp(bpf_program__section_name(pa), bpf_program__section_name(pb)) == 0,
		      "program %s vs %s", bpf_program__name(pa), bpf_program__name(pb));
	CHECK(!pa && !pb, "one object has more programs");
}

int main(void)
{
	struct smblat_bpf *plain = object_open(false, false), *ctx = object_open(true, false),
			  *kus = object_open(false, true);

	CHECK(plain, "the plain object does not open: %m");
	CHECK(ctx, "the context object does not open through the skeleton: %m");
	CHECK(kus, "the kernel-walked user stacks object does not open through the skeleton: %m");
	if (plain && ctx) {
		maps_same(plain->obj, ctx->obj);
		programs_same(plain->obj, ctx->obj);
		CHECK(ctx->progs.usession && ctx->rodata && ctx->data,
		      "skeleton pointers unset on the context object");
	}
	if (plain && kus) {
		maps_same(plain->obj, kus->obj);
		programs_same(plain->obj, kus->obj);
		CHECK(kus->maps.ufiles && kus->rodata && kus->data,
		      "skeleton pointers unset on the kernel-walked user stacks object");
	}
	smblat_bpf__destroy(plain);
	smblat_bpf__destroy(ctx);
	smblat_bpf__destroy(kus);
	if (failures)
		fprintf(stderr, "test-object: %d failures\n", failures);
	return failures != 0;
}
