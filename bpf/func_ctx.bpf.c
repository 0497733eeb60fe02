// SPDX-License-Identifier: GPL-2.0
/* The func unit for kernels whose session kfuncs take the program's context. */
#define SESSION_KFUNCS_TAKE_CTX 1
#include "func.bpf.c"
