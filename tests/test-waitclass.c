// SPDX-License-Identifier: LGPL-2.1-or-later
/* What an off-CPU stack waited on, from its kernel functions (base/waitclass.c). */
#include <string.h>

#include "base/macro.h"
#include "base/waitclass.h"
#include "check.h"

#define CLASS(...)                                                \
	({                                                        \
		const char *const s_[] = { __VA_ARGS__ };         \
		waitclass_name(waitclass_of(s_, ELEMENTSOF(s_))); \
	})

int main(void)
{
	/* the specific wait wins over the generic timed wait it goes through */
	check(strcmp(CLASS("__schedule", "schedule", "schedule_hrtimeout_range", "futex_wait_queue",
			   "__futex_wait", "futex_wait", "do_futex"),
		     "futex") == 0,
	      "futex wait");
	check(strcmp(CLASS("__schedule", "schedule", "schedule_timeout", "sk_wait_data",
			   "tcp_recvmsg_locked"),
		     "network") == 0,
	      "socket receive");
	check(strcmp(CLASS("__schedule", "schedule", "wait_for_response", "compound_send_recv",
			   "smb2_compound_op"),
		     "network") == 0,
	      "SMB client's wait for the server");
	check(strcmp(CLASS("__schedule", "schedule", "io_schedule", "folio_wait_bit_common"), "io") == 0,
	      "I/O");
	check(strcmp(CLASS("__schedule", "schedule", "do_nanosleep", "hrtimer_nanosleep"), "sleep") == 0,
	      "sleep");
	check(strcmp(CLASS("__schedule", "schedule", "schedule_preempt_disabled", "__mutex_lock"), "lock") ==
		      0,
	      "mutex");
	check(strcmp(CLASS("__schedule", "preempt_schedule_irq", "irqentry_exit"), "preempted") == 0,
	      "preempted");
	check(strcmp(CLASS("__schedule", "schedule", NULL, "worker_thread"), "other") == 0, "other");
	return check_done("waitclass");
}
