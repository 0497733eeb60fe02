/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Single configuration values: durations, sizes, booleans, numbers, names
 * and lists, parsed and formatted back. Nothing here knows about files,
 * sections or keys; config.c does and words the messages.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/suggest.h" /* suggest_name(), which the checks of values use */

#include "bpf/smblat.h"

/* FUNCTION names: the BPF side keeps them in SMBLAT_NAME_LEN with the NUL. */
#define VALUES_LABEL_MAX (SMBLAT_NAME_LEN - 1)
/* Process ids: PID_MAX_LIMIT of 64-bit kernels, the most kernel.pid_max takes. */
#define VALUES_PID_MAX 4194304U
/* Further than this and a suggestion is a guess rather than a typo. */

/* Attach backend wanted by the user for kernel functions. */
enum backend_choice {
	CHOICE_AUTO,
	CHOICE_FENTRY,
	CHOICE_KPROBE_MULTI,
	CHOICE_KPROBE,
	_CHOICE_MAX,
};

/* Where the BPF programs keep each thread's calls in progress. */
enum thread_state_choice {
	TSTATE_AUTO, /* task storage where the kernel has it, else the hash */
	TSTATE_TASK_STORAGE,
	TSTATE_HASH, /* a hash by thread id of max_threads entries */
	_TSTATE_MAX,
};

/*
 * errors= of a [probe] (-e, --errors=): off; yes, a failure as the
 * function's type says (a -errno of a kernel function, a negative signed
 * integer of a user function whose type is known); or a convention for
 * what a failed call returns, as wide as its type (a user function of
 * unknown type: a 64-bit long, or a 32-bit int when the upper half is 0).
 */
enum probe_errors {
	ERRORS_NO,
	ERRORS_YES,
	ERRORS_NEGATIVE,
	ERRORS_MINUS1,
	ERRORS_NULL,
	_ERRORS_MAX,
};

/* Indexed by value; exported so that callers can suggest near misses. */
extern const char *const values_priority_names[8]; /* LOG_EMERG .. LOG_DEBUG */
extern const char *const values_backend_names[_CHOICE_MAX];
extern const char *const values_thread_state_names[_TSTATE_MAX];
extern const char *const values_errors_names[_ERRORS_MAX];

/* "warning", "4", also "error" and "warn"; -EINVAL when unknown. */
int config_priority_from_name(const char *s);
const char *config_priority_name(int priority); /* NULL outside 0..7 */
int config_backend_from_name(const char *s);    /* "kprobe-multi" -> CHOICE_KPROBE_MULTI */
const char *config_backend_name(enum backend_choice b);
const char *config_thread_state_name(enum thread_state_choice t);
/* "no", "yes", "negative", "minus1", "null", and the booleans' other words; -EINVAL when none. */
int config_errors_from_name(const char *s);

/* "500us", "10ms", "1.5s", "2m"; bare numbers are milliseconds. */
int parse_duration_ns(const char *s, uint64_t *ns);
/* The same grammar, bare numbers in units of bare_ns (-d 3 is seconds). */
int values_parse_duration(const char *s, uint64_t bare_ns, uint64_t *ns);
/* Exact and parseable back: "10ms", "1500ms", "250us", "0". Returns buf. */
const char *format_duration_ns(char *buf, size_t size, uint64_t ns);
/* "4M", "64K", "1G", bare bytes */
int parse_size(const char *s, uint64_t *bytes);
/* Largest exact unit: "4M", "256K", "4097". Returns buf. */
const char *values_format_size(char *buf, size_t size, uint64_t bytes);
int parse_bool(const char *s, bool *b);
/* Plain decimal up to max: -EINVAL for anything else, -ERANGE above max. */
int values_parse_uint(const char *s, uint64_t max, uint64_t *ret);

/* Index of s in names (NULL entries skipped), or -EINVAL. */
int values_name_index(const char *s, const char *const *names, size_t n);

/* FUNCTION values: [probe NAME] labels and include=/exclude= entries. */
bool values_label_valid(const char *s);
/* Any byte below ' ' or DEL. */
bool values_has_control(const char *s);
/* Up to 32 of A-Z a-z 0-9 _ . -, not starting with '-'. */
bool values_user_name_valid(const char *s);

/* NULL-terminated string lists; a NULL list is empty. */
void values_strv_free(char **l);
bool values_strv_contains(char **l, const char *s);
int values_strv_push(char ***l, const char *s); /* appends a copy; -ENOMEM */
/*
 * Next element of a comma and/or whitespace separated list, copied into buf
 * (cut to fit), or NULL at the end; advances *p.
 */
const char *values_list_next(const char **p, char *buf, size_t size);
