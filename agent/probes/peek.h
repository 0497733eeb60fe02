/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading kernel memory through a BPF program run with BPF_PROG_TEST_RUN. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct peek;

int peek_open(struct peek **ret);
void peek_close(struct peek *p);
/* Copies len (< 4096) bytes at kernel address addr into buf; -errno on failure. */
int peek_read(void *p, uint64_t addr, void *buf, size_t len);
