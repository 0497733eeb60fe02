/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Near misses of names: "unknown X \"y\", did you mean \"z\"?" */
#pragma once

#include <stddef.h>

/* How far a word may be from a name to be suggested it. */
#define SUGGEST_DISTANCE 2

/* Levenshtein distance; UINT_MAX for words over 64 bytes. */
unsigned suggest_distance(const char *a, const char *b);
/* The name nearest to word within SUGGEST_DISTANCE, not word itself; or NULL. */
const char *suggest_name(const char *word, const char *const *names, size_t n);
