// SPDX-License-Identifier: LGPL-2.1-or-later
/* smblat: slow SMB, VFS, function and block operations as journal entries. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/syscalls.h"
#include "config/config.h"
#include "config/target.h"
#include "core/agent.h"
#include "layers/cifs/settings.h"
#include "layers/smbd/settings.h"
#include "layers/syscalls/settings.h"
#include "decode/jstacks.h"
#include "sinks/flame.h"
#include "smblat-config.h"
#include "base/macro.h"

#define EX_USAGE_ 2

enum {
	OPT_STDOUT = 0x100,
	OPT_INODE,
	OPT_FILE,
	OPT_ADSPACE,
	OPT_SUPER,
	OPT_LAYERS,
	OPT_BACKEND,
	OPT_HIST,
	OPT_LIST,
	OPT_CHECK,
	OPT_VERSION,
	OPT_FOLDED,
	OPT_STACKS,
	OPT_SVG,
	OPT_SYSCALLS,
	OPT_SMBD_PID,
	OPT_FLAMEGRAPH,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_BREAKDOWN,
};

static const struct option options[] = { { "config", required_argument, NULL, 'c' },
					 { "stdout", no_argument, NULL, OPT_STDOUT },
					 { "csv", no_argument, NULL, 'j' },
					 { "pid", required_argument, NULL, 'p' },
					 { "duration", required_argument, NULL, 'd' },
					 { "inode", no_argument, NULL, OPT_INODE },
					 { "file", no_argument, NULL, OPT_FILE },
					 { "adspace", no_argument, NULL, OPT_ADSPACE },
					 { "super", no_argument, NULL, OPT_SUPER },
					 { "layers", required_argument, NULL, OPT_LAYERS },
					 { "backend", required_argument, NULL, OPT_BACKEND },
					 { "hist", optional_argument, NULL, OPT_HIST },
					 { "breakdown", optional_argument, NULL, OPT_BREAKDOWN },
					 { "kernel-stack", no_argument, NULL, 'K' },
					 { "user-stack", no_argument, NULL, 'U' },
					 { "args", required_argument, NULL, 'a' },
					 { "folded", no_argument, NULL, OPT_FOLDED },
					 { "stacks", optional_argument, NULL, OPT_STACKS },
					 { "svg", required_argument, NULL, OPT_SVG },
					 { "syscalls", optional_argument, NULL, OPT_SYSCALLS },
					 { "smbd-pid", required_argument, NULL, OPT_SMBD_PID },
					 { "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
					 { "since", required_argument, NULL, OPT_SINCE },
					 { "until", required_argument, NULL, OPT_UNTIL },
					 { "function", required_argument, NULL, 'f' },
					 { "errors", no_argument, NULL, 'e' },
					 { "min-ms", required_argument, NULL, 'm' },
					 { "min-us", required_argument, NULL, 'u' },
					 { "list-probes", no_argument, NULL, OPT_LIST },
					 { "check-config", no_argument, NULL, OPT_CHECK },
					 { "verbose", no_argument, NULL, 'v' },
					 { "version", no_argument, NULL, OPT_VERSION },
					 { "help", no_argument, NULL, 'h' },
					 {} };

static void usage(FILE *f)
{
	fprintf(f, "Usage: smblat [OPTIONS] [MIN_MS]\n"
		   "       smblat --flamegraph FILE [--since TIME] [--until TIME] [FUNCTION...]\n"
		   "Trace slow SMB client operations (and more) into the journal.\n\n"
		   "  -c, --config FILE     configuration (default " SMBLAT_CONFIG_PATH ")\n"
		   "      --stdout          print events to the terminal instead of the journal\n"
		   "  -j, --csv             CSV lines ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us\n"
		   "                        on the terminal (implies --stdout)\n"
		   "  -p, --pid PID         trace this process only\n"
		   "  -d, --duration SECS   stop after SECS seconds (or 500ms, 2m)\n"
		   "      --inode --file --adspace --super\n"
		   "                        smb layer: only these operation groups\n"
		   "      --layers LIST     enable exactly these layers\n"
		   "                        (smb,smb2,block,func,smbd,syscalls)\n"
		   "      --backend NAME    auto, fentry, kprobe-multi or kprobe\n"
		   "      --hist[=SECS]     with --stdout: latency tables every SECS (default 5)\n"
		   "      --breakdown[=SECS] per-layer latency histograms side by side (syscall,\n"
		   "                        vfs, smb, smb2, block) every SECS (default 5): on\n"
		   "                        the terminal with --stdout, else in the journal\n"
		   "  -f, --function TARGET trace TARGET (kernel function, module:function,\n"
		   "                        /path/binary:symbol, usdt:PATH:PROVIDER:START,END,\n"
		   "                        syscall:NAME); repeatable; implies --layers func;\n"
		   "                        with --stdout funcslower columns\n"
		   "                        TIME COMM PID LAT(ms) RVAL FUNC ARGS\n"
		   "  -a, --args N          with -f: log the first N arguments\n"
		   "  -e, --errors          with -f: also log failed calls, whatever their latency\n"
		   "  -m, --min-ms MS       threshold in milliseconds (as MIN_MS)\n"
		   "  -u, --min-us US       threshold in microseconds\n"
		   "  -K, --kernel-stack    capture kernel stacks (default on)\n"
		   "  -U, --user-stack      capture user stacks\n"
		   "      --folded          folded stacks for flame graphs on the terminal\n"
		   "                        (implies --stdout)\n"
		   "      --stacks[=calls|time]\n"
		   "                        count calls and latency per distinct stack in the\n"
		   "                        kernel for every probe (-f, [probe], smbd, syscalls);\n"
		   "                        folded lines weigh calls (default) or time\n"
		   "      --svg FILE        at exit, a flame graph (SVG) of the counted stacks\n"
		   "      --syscalls[=WHO]  count and time every syscall of WHO: smbd (default),\n"
		   "                        pid:PID, comm:NAME, cgroup:PATH; a table as strace -c\n"
		   "      --smbd-pid PID    tsmbd's report for one smbd: time split, SMB2\n"
		   "                        requests, syscalls (implies --stdout --hist)\n"
		   "      --flamegraph FILE write a flame graph (SVG) of the journal's stacks of\n"
		   "                        the FUNCTIONs given (default: all) and exit\n"
		   "      --since TIME      with --flamegraph: from TIME (YYYY-MM-DD [HH:MM[:SS]],\n"
		   "                        now, or a DURATION ago written with a leading minus)\n"
		   "      --until TIME      with --flamegraph: up to TIME\n"
		   "      --list-probes     attach, list every target and its backend, exit\n"
		   "      --check-config    validate the configuration, print it, exit\n"
		   "  -v, --verbose         libbpf diagnostics on stderr\n"
		   "  -h, --help            this text\n"
		   "      --version         the version\n"
		   "  MIN_MS                threshold in milliseconds for every layer (0: all calls)\n");
}

struct cli {
	const char *config;
	bool check;
	bool groups_set;
	bool group[5];
	char *layers;
	char **funcs;
	unsigned int n_funcs;
	unsigned int args;
	bool errors;
	bool kstack, ustack;
	const char *backend;
	const char *pid;
	const char *min_ms;
	char *min_us;        /* -u, as "<N>us" */
	const char *min_arg; /* the threshold as given, for messages */
	const char *needs_f; /* an option that only means something with -f */
	bool micro;          /* -u: latencies in microseconds on the terminal */
	bool stacks;
	bool syscalls;
	const char *select; /* --syscalls=WHO */
	const char *smbd_pid;
	const char *flamegraph; /* --flamegraph FILE: write it from the journal and exit */
	const char *since, *until;
	char **functions; /* --flamegraph's FUNCTIONs */
	unsigned int n_functions;
};

static int fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "smblat: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'smblat --help'.\n");
	return -EX_USAGE_;
}

/* -d and --hist: the durations of smblat.conf, bare numbers in seconds. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	return values_parse_duration(s, 1000000000ULL, ns);
}

static int parse_args(int argc, char **argv, struct cli *cli, struct run_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "c:jp:d:KUa:f:em:u:vh", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			cli->config = optarg;
			break;
		case OPT_STDOUT:
			o->to_stdout = true;
			break;
		case 'j':
			o->term.format = TERM_CSV;
			o->to_stdout = true;
			break;
		case 'p':
			cli->pid = optarg;
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration_ns) < 0 || !o->duration_ns)
				return fail_usage("invalid duration \"%s\": seconds expected", optarg);
			break;
		case OPT_INODE:
		case OPT_FILE:
		case OPT_ADSPACE:
		case OPT_SUPER:
			cli->groups_set = true;
			cli->group[GROUP_INODE + (c - OPT_INODE)] = true;
			break;
		case OPT_LAYERS:
			cli->layers = optarg;
			break;
		case OPT_BACKEND:
			cli->backend = optarg;
			break;
		case OPT_BREAKDOWN:
			o->breakdown = true;
			o->hist_interval_ns = 5000000000ULL;
			if (optarg &&
			    (parse_seconds(optarg, &o->hist_interval_ns) < 0 || !o->hist_interval_ns))
				return fail_usage("invalid --breakdown interval \"%s\"", optarg);
			break;
		case OPT_HIST:
			o->hist_only = true;
			o->hist_interval_ns = 5000000000ULL;
			if (optarg &&
			    (parse_seconds(optarg, &o->hist_interval_ns) < 0 || !o->hist_interval_ns))
				return fail_usage("invalid --hist interval \"%s\"", optarg);
			break;
		case 'K':
			cli->kstack = true;
			o->term.show_stack = true;
			break;
		case 'e':
			cli->errors = true;
			cli->needs_f = "-e";
			break;
		case 'm':
			cli->min_ms = cli->min_arg = optarg;
			break;
		case 'u':
			free(cli->min_us);
			if (asprintf(&cli->min_us, "%sus", optarg) < 0)
				return -ENOMEM;
			cli->min_ms = cli->min_us;
			cli->min_arg = optarg;
			o->term.micro = true;
			break;
		case 'U':
			cli->ustack = true;
			o->term.show_stack = true;
			break;
		case 'a': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 0 || n > SMBLAT_MAX_ARGS)
				return fail_usage("invalid --args \"%s\": 0 to 6", optarg);
			cli->args = n;
			o->term.show_args = n > 0;
			cli->needs_f = "-a";
			break;
		}
		case OPT_FOLDED:
			o->term.folded = true;
			o->to_stdout = true;
			break;
		case OPT_STACKS:
			cli->stacks = true;
			if (optarg && strcmp(optarg, "calls") && strcmp(optarg, "time"))
				return fail_usage("invalid --stacks=%s: calls or time", optarg);
			o->stacks_by_time = optarg && !strcmp(optarg, "time");
			break;
		case OPT_SVG:
			o->svg_path = optarg;
			break;
		case OPT_SYSCALLS:
			cli->syscalls = true;
			cli->select = optarg;
			break;
		case OPT_SMBD_PID:
			cli->smbd_pid = optarg;
			break;
		case OPT_FLAMEGRAPH:
			cli->flamegraph = optarg;
			break;
		case OPT_SINCE:
			cli->since = optarg;
			break;
		case OPT_UNTIL:
			cli->until = optarg;
			break;
		case 'f': {
			char **v = realloc(cli->funcs, (cli->n_funcs + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			cli->funcs = v;
			v[cli->n_funcs++] = optarg;
			o->term.show_ret = true;
			break;
		}
		case OPT_LIST:
			o->list_probes = true;
			break;
		case OPT_CHECK:
			cli->check = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_VERSION:
			printf("smblat %s\n", SMBLAT_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -EX_USAGE_;
		}
	}
	if (cli->flamegraph) {
		/* the rest are FUNCTION names */
		cli->functions = argv + optind;
		cli->n_functions = argc - optind;
		return 0;
	}
	if ((cli->since || cli->until))
		return fail_usage("%s goes with --flamegraph", cli->since ? "--since" : "--until");
	if (cli->smbd_pid) {
		/* tsmbd's report: tables on the terminal */
		o->to_stdout = true;
		if (!o->hist_only) {
			o->hist_only = true;
			o->hist_interval_ns = 5000000000ULL;
		}
	}
	if (optind < argc) {
		if (cli->min_ms)
			return fail_usage("threshold given twice (MIN_MS and -m/-u): \"%s\"", argv[optind]);
		cli->min_ms = cli->min_arg = argv[optind++];
	}
	/* one command traces functions as funcslower does, in its columns */
	if (cli->n_funcs && o->term.format == TERM_TEXT)
		o->term.format = TERM_FUNCSLOWER;
	if (optind < argc)
		return fail_usage("unexpected argument \"%s\"", argv[optind]);
	if (o->breakdown && o->hist_only)
		return fail_usage("%s: --breakdown prints its own tables", "--hist");
	if (o->breakdown && (o->term.format == TERM_CSV || o->term.folded))
		return fail_usage("%s prints tables, not events: -j and --folded do not go with it",
				  "--breakdown");
	/* on the terminal the breakdown replaces the event lines, as --hist does */
	if (o->breakdown && o->to_stdout)
		o->hist_only = true;
	else if (o->hist_only && !o->to_stdout)
		return fail_usage("%s needs --stdout", "--hist");
	if (cli->needs_f && !cli->n_funcs)
		return fail_usage("%s needs -f TARGET (it applies to function probes)", cli->needs_f);
	if (o->hist_only && (o->term.format == TERM_CSV || o->term.folded))
		return fail_usage("%s prints tables, not events: -j and --folded do not go with it",
				  "--hist");
	return 0;
}

static int apply_layers(struct config *c, const char *list)
{
	char *dup = strdup(list), *save = NULL;
	int r = 0;

	if (!dup)
		return -ENOMEM;
	for (int l = 0; l < _LAYER_MAX; l++)
		c->layer[l].enabled = c->layer[l].automatic = false;
	for (char *t = strtok_r(dup, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		int l = layer_from_name(t);

		if (l < 0) {
			char known[128] = "";

			for (int k = 0, n = 0; k < _LAYER_MAX; k++)
				n += snprintf(known + n, sizeof(known) - n, "%s%s", k ? ", " : "",
					      layer_names[k]);
			fprintf(stderr, "smblat: unknown layer \"%s\" (%s)\nTry 'smblat --help'.\n", t,
				known);
			r = -EX_USAGE_;
			break;
		}
		c->layer[l].enabled = true;
	}
	free(dup);
	return r;
}

static int add_function_probes(struct config *c, const struct cli *cli)
{
	struct probe_config *v;

	if (!cli->n_funcs)
		return 0;
	v = realloc(c->probes, (c->n_probes + cli->n_funcs) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->probes = v;
	for (unsigned int i = 0; i < cli->n_funcs; i++) {
		const char *t = cli->funcs[i], *problem, *hint;
		struct probe_config *p;
		struct target tg;
		int r = target_parse(t, &tg, &problem);

		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			fprintf(stderr, "smblat: -f %s: the target %s\nTry 'smblat --help'.\n", t, problem);
			return -EX_USAGE_;
		}
		if (tg.kind == TARGET_SYSCALL && syscalls_nr(tg.symbol) < 0) {
			hint = syscalls_suggest(tg.symbol);
			fprintf(stderr, "smblat: -f %s: no syscall \"%s\" on this architecture%s%s%s\n", t,
				tg.symbol, hint ? ", did you mean \"syscall:" : "", hint ? hint : "",
				hint ? "\"?" : "");
			target_done(&tg);
			return -EX_USAGE_;
		}
		target_done(&tg);
		p = &v[c->n_probes++];

		*p = (struct probe_config) {
			.label = strdup(cli->funcs[i]),
			.target = strdup(cli->funcs[i]),
			.kernel_stack = c->kernel_stack,
			.user_stack = c->user_stack,
			.args = cli->args,
			.errors = cli->errors,
			.stacks = cli->stacks,
			.cli = true,
		};
		if (!p->label || !p->target)
			return -ENOMEM;
	}
	c->layer[LAYER_FUNC].enabled = true;
	/* funcslower's use: the targets alone, but for layers the file enables by name */
	for (int l = 0; l < _LAYER_MAX && !cli->layers; l++)
		if (c->layer[l].automatic)
			c->layer[l].enabled = c->layer[l].automatic = false;
	return 0;
}

/* --syscalls, --smbd-pid, --stacks: layers and views on top of the file's. */
static int apply_views(struct config *c, const struct cli *cli)
{
	const char *problem;
	char *end;
	int r;

	if (cli->syscalls || cli->smbd_pid) {
		/* asked for by name: auto (which leaves it off) does not apply */
		c->layer[LAYER_SYSCALLS].enabled = true;
		c->layer[LAYER_SYSCALLS].automatic = false;
		/* the view alone, unless layers or functions are named too */
		for (enum layer_id l = 0; !cli->layers && !cli->n_funcs && l < _LAYER_MAX; l++)
			if (c->layer[l].automatic)
				c->layer[l].enabled = false;
	}
	if (cli->select) {
		r = syscalls_select_parse(cli->select, &syscalls_settings(c)->select, &problem);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			char msg[256];

			snprintf(msg, sizeof(msg), "invalid --syscalls=%%s: the selection %s", problem);
			return fail_usage(msg, cli->select);
		}
	}
	if (cli->smbd_pid) {
		long pid = strtol(cli->smbd_pid, &end, 10);

		if (*end || pid <= 0 || pid > 0x3fffffff)
			return fail_usage("invalid --smbd-pid \"%s\"", cli->smbd_pid);
		/* everything of that one process: its requests, its time, its syscalls */
		c->pid = pid;
		c->layer[LAYER_SMBD].enabled = true;
		c->layer[LAYER_SMBD].automatic = false;
		smbd_settings(c)->split = true;
		if (!cli->select)
			syscalls_select_free(&syscalls_settings(c)->select);
	}
	if (cli->stacks) {
		c->layer[LAYER_SMBD].stacks = c->layer[LAYER_SYSCALLS].stacks = true;
		for (unsigned int i = 0; i < c->n_probes; i++)
			c->probes[i].stacks = true;
	}
	return 0;
}

static int apply_cli(struct config *c, const struct cli *cli)
{
	char *end;
	int r;

	if (cli->pid) {
		long pid = strtol(cli->pid, &end, 10);

		if (*end || pid <= 0 || pid > 0x3fffffff)
			return fail_usage("invalid pid \"%s\"", cli->pid);
		c->pid = pid;
	}
	if (cli->min_ms) {
		if (parse_duration_ns(cli->min_ms, &c->threshold_ns) < 0)
			return fail_usage(cli->min_ms == cli->min_us ?
						  "invalid threshold \"%s\": microseconds expected" :
						  "invalid threshold \"%s\": milliseconds expected",
					  cli->min_arg);
		for (int l = 0; l < _LAYER_MAX; l++)
			c->layer[l].threshold_set = false;
		for (unsigned int i = 0; i < c->n_probes; i++)
			c->probes[i].threshold_set = false;
	}
	if (cli->groups_set)
		for (int g = GROUP_INODE; g <= GROUP_SUPER; g++)
			smb_settings(c)->group[g] = cli->group[g];
	if (cli->layers && (r = apply_layers(c, cli->layers)) < 0)
		return r;
	if (cli->backend) {
		r = config_backend_from_name(cli->backend);
		if (r < 0)
			return fail_usage("unknown backend \"%s\" (auto, fentry, kprobe-multi, kprobe)",
					  cli->backend);
		c->backend = r;
	}
	if (cli->kstack)
		c->kernel_stack = true;
	if (cli->ustack)
		c->user_stack = true;
	r = apply_views(c, cli);
	return r < 0 ? r : add_function_probes(c, cli);
}

/* --since/--until: "YYYY-MM-DD[ HH:MM[:SS]]" local time, "-DURATION" ago, "now". */
static int parse_when(const char *s, uint64_t *us)
{
	static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d" };
	struct timespec now;
	uint64_t ago;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	if (strcmp(s, "now") == 0) {
		*us = now.tv_sec * 1000000ULL + now.tv_nsec / 1000;
		return 0;
	}
	if (s[0] == '-') {
		if (values_parse_duration(s + 1, 1000000000ULL, &ago) < 0)
			return -EINVAL;
		*us = now.tv_sec * 1000000ULL + now.tv_nsec / 1000 - ago / 1000;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(formats); i++) {
		const char *end;

		memset(&tm, 0, sizeof(tm));
		end = strptime(s, formats[i], &tm);
		if (end && !*end) {
			tm.tm_isdst = -1;
			*us = (uint64_t)mktime(&tm) * 1000000ULL;
			return 0;
		}
	}
	return -EINVAL;
}

/* --flamegraph FILE [FUNCTION...]: the journal's stacks as a picture, no agent. */
static int flamegraph(const struct cli *cli, const struct run_opts *o)
{
	char **fns = calloc(cli->n_functions + 1, sizeof(*fns)), title[512], sub[256];
	struct jstacks_query q = { .functions = (const char *const *)fns };
	struct jstacks_result res;
	struct folded f = {};
	struct flame_opts fo = { .title = title, .subtitle = sub, .by_time = o->stacks_by_time };
	size_t n = 0;
	FILE *out;
	int r;

	if (!fns)
		return 1;
	for (unsigned int i = 0; i < cli->n_functions; i++)
		fns[i] = cli->functions[i];
	if ((cli->since && parse_when(cli->since, &q.since_us) < 0) ||
	    (cli->until && parse_when(cli->until, &q.until_us) < 0)) {
		free(fns);
		return -fail_usage("invalid time \"%s\": YYYY-MM-DD [HH:MM[:SS]], -DURATION or now",
				   cli->since && parse_when(cli->since, &q.since_us) < 0 ? cli->since :
											   cli->until);
	}
	r = jstacks_read(&q, &f, &res);
	if (r < 0) {
		fprintf(stderr, "smblat: cannot read the journal: %s\n", strerror(-r));
		goto out;
	}
	if (!res.entries) {
		fprintf(stderr, "smblat: no stacks of %s in the journal%s\n",
			cli->n_functions ? cli->functions[0] : "any FUNCTION",
			cli->since || cli->until ? " in that time range" : "");
		r = -ENOENT;
		goto out;
	}
	n = (size_t)snprintf(title, sizeof(title), "smblat:");
	for (unsigned int i = 0; i < cli->n_functions && n < sizeof(title); i++)
		n += (size_t)snprintf(title + n, sizeof(title) - n, " %s", cli->functions[i]);
	if (!cli->n_functions)
		snprintf(title + n, sizeof(title) - n, " all functions");
	{
		time_t t0 = (time_t)(res.first_us / 1000000), t1 = (time_t)(res.last_us / 1000000);
		char a[32], b[32];

		strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S", localtime(&t0));
		strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", localtime(&t1));
		snprintf(sub, sizeof(sub), "%s to %s, %u %s entries, widths: %s", a, b, res.entries,
			 res.slow_calls ? "slow-call" : "counted-stack",
			 o->stacks_by_time ? "latency (us)" : "calls");
	}
	out = strcmp(cli->flamegraph, "-") ? fopen(cli->flamegraph, "we") : stdout;
	if (!out) {
		r = -errno;
		fprintf(stderr, "smblat: %s: %m\n", cli->flamegraph);
		goto out;
	}
	r = flame_write(out, &f, &fo);
	if (out != stdout && fclose(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		fprintf(stderr, "smblat: %s: %s\n", cli->flamegraph, strerror(-r));
	else
		fprintf(stderr, "smblat: %zu stacks from %u entries written to %s\n", f.n, res.entries,
			cli->flamegraph);
out:
	folded_free(&f);
	free(fns);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct run_opts o = { .term.format = TERM_TEXT };
	struct cli cli = {};
	struct config c;
	int r;

	if (agent_config_register() < 0) {
		fprintf(stderr, "smblat: a layer's section of smblat.conf does not fit struct config\n");
		return 1;
	}
	config_init(&c);
	r = parse_args(argc, argv, &cli, &o);
	if (r == 0 && cli.flamegraph) {
		r = flamegraph(&cli, &o);
		free(cli.funcs);
		free(cli.min_us);
		return r;
	}
	if (r == 0) {
		o.config_path = cli.config ? cli.config : SMBLAT_CONFIG_PATH;
		o.config_explicit = cli.config != NULL;
		if (config_load(&c, o.config_path, !o.config_explicit, NULL) < 0)
			r = -EX_CONFIG_;
	}
	if (r == 0)
		r = apply_cli(&c, &cli);
	if (r == 0 && o.breakdown) {
		r = breakdown_configure(&c, cli.layers != NULL);
		if (!o.to_stdout)
			c.hist_interval_ns = o.hist_interval_ns;
	}
	free(cli.funcs);
	free(cli.min_us);
	if (r == -EX_CONFIG_) {
		config_free(&c);
		return EX_CONFIG_;
	}
	if (r < 0) {
		config_free(&c);
		return r == -EX_USAGE_ ? EX_USAGE_ : 1;
	}
	if (cli.check) {
		config_dump(&c, stdout);
		config_free(&c);
		return 0;
	}
	r = agent_run(&c, &o);
	config_free(&c);
	return r;
}
