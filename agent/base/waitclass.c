// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdbool.h>
#include <string.h>

#include "base/waitclass.h"
#include "base/macro.h"

/*
 * By the innermost frame that says: a futex wait calls schedule() through
 * a timed wait (schedule_hrtimeout), a socket read through
 * schedule_timeout, so the specific names are looked for before the
 * generic ones. A prefix ends in '*'.
 */
static const struct {
	const char *name;
	enum wait_class cls;
} specific[] = {
	{ "futex_wait*", WAIT_FUTEX },
	{ "io_schedule*", WAIT_IO },
	{ "folio_wait*", WAIT_IO },
	{ "wait_on_page_bit*", WAIT_IO },
	{ "__wait_on_buffer", WAIT_IO },
	{ "blk_mq_get_tag", WAIT_IO },
	{ "bit_wait_io", WAIT_IO },
	{ "jbd2_log_wait_commit", WAIT_IO },
	{ "sk_wait_data", WAIT_NETWORK },
	{ "sk_stream_wait_memory", WAIT_NETWORK },
	{ "inet_csk_accept", WAIT_NETWORK },
	{ "inet_wait_for_connect", WAIT_NETWORK },
	{ "tcp_recvmsg*", WAIT_NETWORK },
	{ "udp_recvmsg", WAIT_NETWORK },
	{ "unix_stream_read_generic", WAIT_NETWORK },
	{ "__skb_wait_for_more_packets", WAIT_NETWORK },
	{ "sock_poll", WAIT_NETWORK },
	/* the SMB client: a request's response, the server's credits */
	{ "wait_for_response", WAIT_NETWORK },
	{ "wait_for_free_credits", WAIT_NETWORK },
	{ "wait_for_compound_request", WAIT_NETWORK },
	{ "do_nanosleep", WAIT_SLEEP },
	{ "hrtimer_nanosleep", WAIT_SLEEP },
	{ "clock_nanosleep", WAIT_SLEEP },
	{ "common_nsleep", WAIT_SLEEP },
};

static const struct {
	const char *name;
	enum wait_class cls;
} generic[] = {
	{ "__mutex_lock*", WAIT_LOCK },        { "mutex_lock*", WAIT_LOCK },
	{ "rwsem_down_*", WAIT_LOCK },         { "down_read*", WAIT_LOCK },
	{ "down_write*", WAIT_LOCK },          { "rt_mutex*", WAIT_LOCK },
	{ "percpu_rwsem_wait", WAIT_LOCK },    { "schedule_timeout", WAIT_LOCK },
	{ "wait_for_completion*", WAIT_LOCK }, { "preempt_schedule*", WAIT_PREEMPTED },
	{ "irqentry_exit*", WAIT_PREEMPTED },  { "exit_to_user_mode*", WAIT_PREEMPTED },
};

static bool name_is(const char *name, const char *pat)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return strncmp(name, pat, n - 1) == 0;
	return strcmp(name, pat) == 0;
}

enum wait_class waitclass_of(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; names[i] && j < ELEMENTSOF(specific); j++)
			if (name_is(names[i], specific[j].name))
				return specific[j].cls;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; names[i] && j < ELEMENTSOF(generic); j++)
			if (name_is(names[i], generic[j].name))
				return generic[j].cls;
	return WAIT_OTHER;
}

const char *waitclass_name(enum wait_class c)
{
	static const char *const names[_WAIT_MAX] = {
		[WAIT_OTHER] = "other",         [WAIT_IO] = "io",       [WAIT_FUTEX] = "futex",
		[WAIT_NETWORK] = "network",     [WAIT_SLEEP] = "sleep", [WAIT_LOCK] = "lock",
		[WAIT_PREEMPTED] = "preempted",
	};

	return (unsigned int)c < _WAIT_MAX ? names[c] : "other";
}
