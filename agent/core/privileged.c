// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The layers driven with the attach rights raised: they stay permitted
 * after the privilege drop, effective only around an attach or a detach.
 */
#include "base/privs.h"
#include "core/agent-int.h"

int agent_privileged_enter(struct agent *a)
{
	return a->dropped ? privs_raise() : 0;
}

void agent_privileged_leave(struct agent *a)
{
	if (a->dropped)
		(void)privs_lower();
}

void agent_layers_each(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *), void *userdata)
{
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->layer[l])
			fn(a, l, userdata);
}

int agent_layers_privileged(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *),
			    void *userdata)
{
	int r = agent_privileged_enter(a);

	if (r < 0)
		return r;
	agent_layers_each(a, fn, userdata);
	agent_privileged_leave(a);
	return 0;
}
