/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel modules: which are loaded, which instance, which are installed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A module and its instance (kmodule_instance()). */
struct kmodule {
	char name[64];
	uint64_t instance;
};

/*
 * The loaded instance of a kernel module: its /sys/module inode, which
 * changes when it is unloaded and loaded again; 0 when it is not loaded.
 */
uint64_t kmodule_instance(const char *module);
/* Whether module is loaded, or installed for the running kernel (modules.dep). */
bool kmodule_known(const char *module);
/* The modules loaded now, by /proc/modules, and their instances; NULL when unknown. */
struct kmodule *kmodules_loaded(size_t *n);
