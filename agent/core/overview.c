// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The first screen: when the agent starts on a terminal and writes to the
 * journal, one line per layer says what is traced, what is not and why, in
 * place of the status lines the journal gets (smblat-fields(7)); and the
 * same per layer, with the backends and a row per function, for --list-probes.
 */
#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "core/agent-int.h"
#include "smblat-config.h"

/* "uprobe-multi" or "raw_tp, tp_btf": how the layer's functions are attached. */
static void backends(const struct func_table *t, enum layer_id l, char *buf, size_t size)
{
	bool seen[_BACKEND_MAX] = {};
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == l && func_attached(&t->v[i]))
			seen[t->v[i].backend] = true;
	for (int b = 0; b < _BACKEND_MAX && n < size; b++)
		if (seen[b])
			n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "", backend_name(b));
}

/* The widest layer name and description: every line's state starts in one column. */
static void widths(int *name, int *traces)
{
	*name = *traces = 0;
	for (int l = 0; l < _LAYER_MAX; l++) {
		if ((int)strlen(layer_name(l)) > *name)
			*name = (int)strlen(layer_name(l));
		if ((int)strlen(layer_table[l]->traces) > *traces)
			*traces = (int)strlen(layer_table[l]->traces);
	}
}

static void layer_line(struct agent *a, enum layer_id l, const char *prefix, FILE *out)
{
	const char *why = NULL;
	char via[64];
	int wn, wt;

	widths(&wn, &wt);
	fprintf(out, "%s%-*s %-*s ", prefix, wn, layer_name(l), wt, layer_table[l]->traces);
	if (!a->cfg->layer[l].enabled) {
		fputs("off: enabled = no\n", out);
		return;
	}
	switch (layer_table[l]->state(a->layer[l], &why)) {
	case LAYER_ACTIVE:
		backends(&a->funcs, l, via, sizeof(via));
		fprintf(out, "traced: %u %s (%s)\n", func_table_attached(&a->funcs, l),
			PLURAL(func_table_attached(&a->funcs, l), "function", "functions"), via);
		break;
	case LAYER_WAITING:
		fprintf(out, "waiting: %s\n", why ? why : "?");
		break;
	case LAYER_UNAVAILABLE:
		fprintf(out, "NOT traced: %s\n", why ? why : "?");
		break;
	case LAYER_OFF:
		fprintf(out, "off: %s\n", why ? why : "?");
		break;
	}
}

void overview_layers(struct agent *a, const char *prefix, FILE *out)
{
	for (int l = 0; l < _LAYER_MAX; l++)
		layer_line(a, l, prefix, out);
}

void overview_print(struct agent *a, FILE *out)
{
	fprintf(out, "smblat %s: calls of %.3f ms or longer into the journal (%s)\n", SMBLAT_VERSION,
		a->cfg->threshold_ns / 1e6, a->opt->config_path ? a->opt->config_path : "built-in defaults");
	overview_layers(a, "  ", out);
	fputs("  see them:  journalctl -t smblat -f      every function: smblat --list-probes\n"
	      "  layers:    enabled = auto, yes or no in smblat.conf (smblat.conf(5))\n",
	      out);
	fflush(out);
}

/* --list-probes: the backends, layers and features, then a row per function. */
void overview_list_probes(struct agent *a, FILE *out)
{
	const char *why = NULL;
	enum backend be = probes_kernel_backend(a->probes, &why);
	char buf[256];

	if (be == BACKEND_NONE)
		fprintf(out, "# kernel functions: no backend: %s\n", why ? why : "?");
	else
		fprintf(out, "# kernel functions: %s first, falling back per function\n", backend_name(be));
	why = probes_tp_btf_why(a->probes);
	fprintf(out, "# tracepoints: %s\n", why ? why : "tp_btf first, raw_tp when refused");
	overview_layers(a, "# layer ", out);
	fprintf(out, "# per-thread state: %s\n", probes_thread_state(a->probes, buf, sizeof(buf)));
	features_list(a->features, out);
	fprintf(out, "%-28s %-6s %-36s %-14s %s\n", "FUNCTION", "LAYER", "TARGET", "BACKEND", "STATUS");
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		char target[256];

		snprintf(target, sizeof(target), "%s%s%s%s", f->symbol ? f->symbol : "-",
			 f->module ? " [" : "", f->module ? f->module : "", f->module ? "]" : "");
		layer_list_row(out, f->name, f->layer, target,
			       func_attached(f) ? backend_name(f->backend) : "-",
			       func_state_text(f, buf, sizeof(buf)));
	}
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->cfg->layer[l].enabled && layer_table[l]->list)
			layer_table[l]->list(a->layer[l], out);
}
