// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The command line read and checked: getopt records, the checks below judge
 * it whole, one group of options each (modes, thresholds, function probes,
 * the process, the output), in that order.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "cli/cli.h"
#include "config/values.h"
#include "smblat-config.h"

/* --hist, --breakdown and --smbd-pid: a table every 5 s unless told */
#define TABLE_INTERVAL_NS (5 * NSEC_PER_SEC)

static const struct option options[] = {
	{ "config", required_argument, NULL, 'c' },
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
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "args", required_argument, NULL, 'a' },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "stacks", optional_argument, NULL, OPT_STACKS },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "syscalls", optional_argument, NULL, OPT_SYSCALLS },
	{ "profile", optional_argument, NULL, OPT_PROFILE },
	{ "smbd-pid", required_argument, NULL, OPT_SMBD_PID },
	{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "function", required_argument, NULL, 'f' },
	{ "errors", optional_argument, NULL, 'e' },
	{ "min-ms", required_argument, NULL, 'm' },
	{ "min-us", required_argument, NULL, 'u' },
	{ "list-probes", no_argument, NULL, OPT_LIST },
	{ "check-config", no_argument, NULL, OPT_CHECK },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{},
};
#define SHORT_OPTIONS "c:jp:d:KUa:f:em:u:vh"

static void usage(FILE *f)
{
	fprintf(f, "Usage: smblat [OPTIONS] [MIN_MS]\n"
		   "       smblat --flamegraph FILE [--since TIME] [--until TIME] [FUNCTION...]\n"
		   "Trace slow SMB client operations (and more) into the journal.\n\n"
		   "  -c, --config FILE     configuration (default " SMBLAT_CONFIG_PATH ")\n"
		   "      --stdout          print events to the terminal instead of the journal\n"
		   "  -j, --csv             CSV lines ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us\n"
		   "                        on the terminal (implies --stdout); with -K or -U\n"
		   "                        a STACK column of folded frames\n"
		   "  -p, --pid PID         trace this process only\n"
		   "  -d, --duration SECS   stop after SECS seconds (or 500ms, 2m)\n"
		   "      --inode --file --adspace --super\n"
		   "                        smb layer: only these operation groups\n"
		   "      --layers LIST     enable exactly these layers\n"
		   "                        (smb,smb2,block,func,smbd,syscalls,profile)\n"
		   "      --backend NAME    auto, fentry, kprobe-multi or kprobe\n"
		   "      --hist[=SECS]     with --stdout: latency tables every SECS (default 5)\n"
		   "      --breakdown[=SECS] per-layer latency histograms side by side (syscall,\n"
		   "                        vfs, smb, smb2, block) every SECS (default 5): on\n"
		   "                        the terminal with --stdout, else in the journal\n"
		   "  -f, --function TARGET trace TARGET (kernel function, module:function,\n"
		   "                        /path/binary:symbol, usdt:PATH:PROVIDER:START,END,\n"
		   "                        syscall:NAME); once per TARGET, repeatable for\n"
		   "                        others; implies --layers func; with --stdout\n"
		   "                        funcslower columns TIME COMM PID LAT(ms) RVAL FUNC ARGS\n"
		   "  -a, --args N          with -f: log the first N arguments\n"
		   "  -e, --errors[=HOW]    with -f: also log failed calls, whatever their latency:\n"
		   "                        by the return type (DWARF, BTF), or HOW a failed\n"
		   "                        call returns: negative, minus1 or null\n"
		   "  -m, --min-ms MS       threshold in milliseconds (as MIN_MS)\n"
		   "  -u, --min-us US       threshold in microseconds\n"
		   "  -K, --kernel-stack    capture kernel stacks (default on)\n"
		   "  -U, --user-stack      capture user stacks\n"
		   "      --offcpu          time off-CPU of each slow call (OFFCPU_US, ONCPU_US)\n"
		   "                        and the wait stacks that took it; hooks sched_switch\n"
		   "      --folded          folded stacks for flame graphs on the terminal\n"
		   "                        (implies --stdout)\n"
		   "      --stacks[=calls|time]\n"
		   "                        count calls and latency per distinct stack in the\n"
		   "                        kernel for every probe (-f, [probe], smbd, syscalls);\n"
		   "                        folded lines weigh calls (default) or time\n"
		   "      --svg FILE        at exit, a flame graph (SVG) of the counted stacks;\n"
		   "                        FILE is opened at start, as the user smblat becomes\n"
		   "      --syscalls[=WHO]  count and time every syscall of WHO: smbd (default),\n"
		   "                        pid:PID, comm:NAME, cgroup:PATH; a table as strace -c\n"
		   "      --profile[=HZ]    a CPU profile: the kernel and user stacks on each CPU,\n"
		   "                        sampled HZ times a second (default 99), counted as\n"
		   "                        FUNCTION PROFILE; of -p PID's process, else of all\n"
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

const char *cli_option_name(int code)
{
	/* filled once per code: callers keep the pointer */
	static char names[_OPT_MAX][24];

	if (code <= 0 || code >= _OPT_MAX)
		return "MIN_MS";
	for (const struct option *o = options; !names[code][0] && o->name; o++)
		if (o->val == code && code < 0x100)
			snprintf(names[code], sizeof(names[code]), "-%c", code);
		else if (o->val == code)
			snprintf(names[code], sizeof(names[code]), "--%s", o->name);
	return names[code][0] ? names[code] : "MIN_MS";
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("smblat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'smblat --help'.\n", stderr);
	return -EINVAL;
}

/* ---- reading: every option as given, nothing judged yet ---- */

static int record(struct cli *cli, int c, char *arg)
{
	if (c == 'f') {
		char **v = realloc(cli->funcs, (cli->n_funcs + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cli->funcs = v;
		v[cli->n_funcs++] = arg;
	}
	cli->arg[c] = arg;
	if (cli->n[c] < UINT8_MAX)
		cli->n[c]++;
	return 0;
}

/* ---- the checks, one group of options each ---- */

/* A value given twice would lose the first without a word; -f twice would count each call twice. */
static int check_repeats(const struct cli *cli)
{
	for (const struct option *o = options; o->name; o++)
		if (o->has_arg != no_argument && o->val != 'f' && cli->n[o->val] > 1)
			return cli_usage_error("%s given twice: give it once", cli_option_name(o->val));
	for (unsigned int i = 0; i < cli->n_funcs; i++)
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(cli->funcs[i], cli->funcs[j]) == 0)
				return cli_usage_error("-f %s given twice: each call would be counted twice",
						       cli->funcs[i]);
	return 0;
}

/* --since/--until: "YYYY-MM-DD[ HH:MM[:SS]]" local time, "-DURATION" ago, "now". */
static int parse_when(const char *s, uint64_t *us)
{
	static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d" };
	struct timespec now;
	uint64_t now_us, ago;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	now_us = now.tv_sec * 1000000ULL + now.tv_nsec / 1000;
	if (strcmp(s, "now") == 0) {
		*us = now_us;
		return 0;
	}
	if (s[0] == '-') {
		if (values_parse_duration(s + 1, NSEC_PER_SEC, &ago) < 0)
			return -EINVAL;
		*us = now_us - ago / 1000;
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

/* --stacks[=calls|time]: what folded lines and flame graphs weigh. */
static int check_weights(const struct cli *cli, struct run_opts *o)
{
	const char *stacks = cli->arg[OPT_STACKS];

	if (stacks && strcmp(stacks, "calls") && strcmp(stacks, "time"))
		return cli_usage_error("invalid --stacks=%s: calls or time", stacks);
	o->stacks_by_time = stacks && strcmp(stacks, "time") == 0;
	return 0;
}

/* --flamegraph reads the journal and traces nothing: what would trace has no place beside it. */
static int check_flamegraph(struct cli *cli, struct run_opts *o)
{
	static const int goes_with[] = { OPT_FLAMEGRAPH, OPT_SINCE, OPT_UNTIL, OPT_STACKS, 'v' };

	for (int c = 0; c < _OPT_MAX; c++) {
		bool ok = !cli->n[c];

		for (size_t i = 0; !ok && i < ELEMENTSOF(goes_with); i++)
			ok = goes_with[i] == c;
		if (!ok)
			return cli_usage_error("%s does not go with --flamegraph, which draws the journal's "
					       "stacks and traces nothing",
					       cli_option_name(c));
	}
	if (cli->arg[OPT_SINCE] && parse_when(cli->arg[OPT_SINCE], &cli->since_us) < 0)
		return cli_usage_error("invalid --since \"%s\": YYYY-MM-DD [HH:MM[:SS]], -DURATION or now",
				       cli->arg[OPT_SINCE]);
	if (cli->arg[OPT_UNTIL] && parse_when(cli->arg[OPT_UNTIL], &cli->until_us) < 0)
		return cli_usage_error("invalid --until \"%s\": YYYY-MM-DD [HH:MM[:SS]], -DURATION or now",
				       cli->arg[OPT_UNTIL]);
	return check_weights(cli, o);
}

static int check_modes(struct cli *cli, struct run_opts *o)
{
	if (cli->n[OPT_FLAMEGRAPH])
		return check_flamegraph(cli, o);
	if (cli->n[OPT_SINCE] || cli->n[OPT_UNTIL])
		return cli_usage_error("%s goes with --flamegraph",
				       cli->n[OPT_SINCE] ? "--since" : "--until");
	if (cli->n[OPT_CHECK] && cli->n[OPT_LIST])
		return cli_usage_error("--check-config attaches nothing, --list-probes attaches: give one");
	if (cli->n[OPT_SVG] && (cli->n[OPT_CHECK] || cli->n[OPT_LIST]))
		return cli_usage_error("--svg draws what a run counted: %s does not run",
				       cli->n[OPT_CHECK] ? "--check-config" : "--list-probes");
	o->list_probes = cli->n[OPT_LIST];
	o->verbose = cli->n['v'];
	return 0;
}

/* -m, -u and MIN_MS are the same threshold: one of them. */
static int check_threshold(struct cli *cli)
{
	static const int codes[] = { 'm', 'u', 0 };
	const char *first = NULL;

	if (cli->n_rest > 1)
		return cli_usage_error("unexpected argument \"%s\"", cli->rest[1]);
	for (size_t i = 0; i < ELEMENTSOF(codes); i++) {
		const char *v = codes[i] ? cli->arg[codes[i]] : cli->n_rest ? cli->rest[0] : NULL;
		const char *name = cli_option_name(codes[i]);
		int r;

		if (!v)
			continue;
		if (first)
			return cli_usage_error("the threshold given twice (%s and %s): give one", first,
					       name);
		first = name;
		/* bare numbers: microseconds for -u, milliseconds for the others */
		r = codes[i] == 'u' ? values_parse_duration(v, 1000, &cli->threshold_ns) :
				      parse_duration_ns(v, &cli->threshold_ns);
		if (r < 0)
			return cli_usage_error("invalid threshold \"%s\": %s expected", v,
					       codes[i] == 'u' ? "microseconds" : "milliseconds");
		cli->threshold_set = true;
	}
	return 0;
}

/* -a and -e shape the -f probes. */
static int check_probes(struct cli *cli)
{
	const char *a = cli->arg['a'];
	char *end;
	long n;

	if (!cli->n_funcs && (cli->n['a'] || cli->n['e']))
		return cli_usage_error("%s needs -f TARGET (it applies to function probes)",
				       cli->n['a'] ? "-a" : "-e");
	if (cli->n['e']) {
		const char *how = cli->arg['e'];
		int e = how ? config_errors_from_name(how) : ERRORS_YES;

		if (e < 0 || e == ERRORS_NO)
			return cli_usage_error("invalid --errors=%s: negative, minus1 or null", how);
		cli->errors = e;
	}
	if (!a)
		return 0;
	n = strtol(a, &end, 10);
	if (!*a || *end || n < 0 || n > SMBLAT_MAX_ARGS)
		return cli_usage_error("invalid --args \"%s\": 0 to %d", a, SMBLAT_MAX_ARGS);
	cli->args = (unsigned int)n;
	return 0;
}

static int parse_pid(const char *option, const char *s, uint32_t *pid)
{
	uint64_t v;
	int r = values_parse_uint(s, VALUES_PID_MAX, &v);

	if (r == -ERANGE)
		return cli_usage_error("invalid %s \"%s\": at most %u, the kernel's largest pid", option, s,
				       VALUES_PID_MAX);
	if (r < 0 || v == 0)
		return cli_usage_error("invalid %s \"%s\": a process id expected", option, s);
	*pid = (uint32_t)v;
	return 0;
}

/* Which processes: -p, or --smbd-pid's one smbd, not both. */
static int check_process(struct cli *cli)
{
	int r;

	if (cli->arg['p'] && cli->arg[OPT_SMBD_PID])
		return cli_usage_error("-p and --smbd-pid both choose the process: give one");
	if (cli->arg['p'] && (r = parse_pid("pid", cli->arg['p'], &cli->pid)) < 0)
		return r;
	if (cli->arg[OPT_SMBD_PID] &&
	    (r = parse_pid("--smbd-pid", cli->arg[OPT_SMBD_PID], &cli->smbd_pid)) < 0)
		return r;
	if (cli->arg[OPT_BACKEND] && config_backend_from_name(cli->arg[OPT_BACKEND]) < 0)
		return cli_usage_error("unknown backend \"%s\" (auto, fentry, kprobe-multi, kprobe)",
				       cli->arg[OPT_BACKEND]);
	return 0;
}

/* -d and the table intervals: durations as in smblat.conf, bare numbers in seconds. */
static int parse_seconds(const char *what, const char *s, uint64_t *ns)
{
	if (values_parse_duration(s, NSEC_PER_SEC, ns) < 0 || !*ns)
		return cli_usage_error("invalid %s \"%s\": seconds expected", what, s);
	return 0;
}

/* --hist, --breakdown, --smbd-pid: tables at an interval instead of event lines. */
static int check_tables(const struct cli *cli, struct run_opts *o)
{
	int which = cli->n[OPT_BREAKDOWN] ? OPT_BREAKDOWN : cli->n[OPT_HIST] ? OPT_HIST : OPT_SMBD_PID;
	const char *name = cli_option_name(which);

	o->breakdown = cli->n[OPT_BREAKDOWN];
	if (!cli->n[which])
		return 0;
	if (o->breakdown && cli->n[OPT_HIST])
		return cli_usage_error("--hist: --breakdown prints its own tables");
	if (o->term.format == TERM_CSV || o->term.folded)
		return cli_usage_error("%s prints tables, not events: -j and --folded do not go with it",
				       name);
	if (which == OPT_HIST && !o->to_stdout)
		return cli_usage_error("--hist needs --stdout");
	/* on the terminal the breakdown replaces the event lines, as --hist does */
	o->hist_only = o->to_stdout;
	o->hist_interval_ns = TABLE_INTERVAL_NS;
	/* --smbd-pid takes --hist=SECONDS for its interval */
	if (which != OPT_SMBD_PID && cli->arg[which])
		return parse_seconds(which == OPT_HIST ? "--hist interval" : "--breakdown interval",
				     cli->arg[which], &o->hist_interval_ns);
	return 0;
}

/* Where events go and in which shape. */
static int check_output(const struct cli *cli, struct run_opts *o)
{
	int r;

	if (cli->n['j'] && cli->n[OPT_FOLDED])
		return cli_usage_error("-j and --folded are two shapes of the same lines: give one");
	/* -j, --folded and tsmbd's report are terminal formats */
	o->to_stdout = cli->n[OPT_STDOUT] || cli->n['j'] || cli->n[OPT_FOLDED] || cli->n[OPT_SMBD_PID];
	/* one command traces functions as funcslower does, in its columns */
	o->term.format = cli->n['j'] ? TERM_CSV : cli->n_funcs ? TERM_FUNCSLOWER : TERM_TEXT;
	o->term.folded = cli->n[OPT_FOLDED];
	o->term.show_stack = cli->n['K'] || cli->n['U'];
	o->term.show_ret = cli->n_funcs > 0;
	o->term.show_args = cli->args > 0;
	o->term.micro = cli->arg['u'] != NULL;
	if ((r = check_weights(cli, o)) < 0)
		return r;
	o->svg_path = cli->arg[OPT_SVG];
	if (cli->arg['d'] && (r = parse_seconds("duration", cli->arg['d'], &o->duration_ns)) < 0)
		return r;
	return check_tables(cli, o);
}

int cli_parse(int argc, char **argv, struct cli *cli, struct run_opts *o)
{
	int c, r;

	*cli = (struct cli) {};
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == OPT_VERSION) {
			printf("smblat %s\n", SMBLAT_VERSION);
			return 1;
		}
		if (c == '?' || c == ':' || c <= 0 || c >= _OPT_MAX)
			return -EINVAL; /* getopt said what */
		if ((r = record(cli, c, optarg)) < 0)
			return r;
	}
	cli->rest = argv + optind;
	cli->n_rest = argc - optind;
	r = check_repeats(cli);
	if (r == 0)
		r = check_modes(cli, o);
	if (r < 0 || cli->n[OPT_FLAMEGRAPH])
		return r;
	r = check_threshold(cli);
	if (r == 0)
		r = check_probes(cli);
	if (r == 0)
		r = check_process(cli);
	if (r == 0)
		r = check_output(cli, o);
	return r;
}

void cli_free(struct cli *cli)
{
	free(cli->funcs);
	*cli = (struct cli) {};
}
