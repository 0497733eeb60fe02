// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The layers driven with the attach rights raised: they stay permitted
 * after the privilege drop, effective only around an attach or a detach.
 */
#include <syslog.h>

#include "base/log.h"
#include "base/privs.h"
#include "core/agent-int.h"

void agent_layers_privileged(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *),
			     void *userdata)
{
	/* Attach rights stay permitted after the drop, effective only around an attach. */
	if (a->dropped && privs_raise() < 0) {
		log_status(STATUS_AGENT_DEGRADED, REASON_PRIVILEGES, LOG_WARNING,
			   "cannot raise the attach capabilities: %m");
		return;
	}
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->layer[l])
			fn(a, l, userdata);
	if (a->dropped)
		privs_lower();
}
