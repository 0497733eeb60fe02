/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smblat.conf parsing, validation, drop-ins and dump; argv[1] is the source root. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config.h"
#include "config/target.h"
#include "core/agent.h"
#include "layers/block/settings.h"
#include "layers/cifs/settings.h"
#include "layers/smbd/settings.h"
#include "layers/syscalls/settings.h"
#include "base/syscalls.h"

#include "check.h"
#include "base/macro.h"

/* This file's own CHECK names only the condition. */
#undef CHECK
#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                              \
		}                                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                                                   \
	do {                                                                                              \
		const char *_a = (a), *_b = (b);                                                          \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                                  \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
				_a ?: "(null)", _b ?: "(null)");                                          \
			failures++;                                                                       \
		}                                                                                         \
	} while (0)

/* ---- stderr capture ---- */

static int saved_stderr = -1;
static FILE *captured;

static void capture_begin(void)
{
	fflush(stderr);
	captured = tmpfile();
	if (!captured) {
		perror("tmpfile");
		exit(EXIT_FAILURE);
	}
	saved_stderr = dup(STDERR_FILENO);
	dup2(fileno(captured), STDERR_FILENO);
}

/* Returns what was written to stderr since capture_begin(), malloc'd. */
static char *capture_end(void)
{
	char *buf;
	long n;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	n = ftell(captured);
	buf = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (!buf)
		exit(EXIT_FAILURE);
	rewind(captured);
	if (n > 0 && fread(buf, 1, (size_t)n, captured) != (size_t)n)
		exit(EXIT_FAILURE);
	fclose(captured);
	return buf;
}

/* Loads text on top of the defaults into c; *err gets stderr (caller frees). */
static int load(struct config *c, const char *text, char **err)
{
	int r;

	config_init(c);
	capture_begin();
	r = config_load_string(c, "t.conf", text, NULL);
	*err = capture_end();
	return r;
}

static char *dump(const struct config *c)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		exit(EXIT_FAILURE);
	config_dump(c, f);
	fclose(f);
	return buf;
}

/* The text must fail with exactly this one line. */
static void check_error(const char *text, const char *expected, int line)
{
	struct config c;
	char *err;
	int r = load(&c, text, &err);

	if (r != -EINVAL || strcmp(err, expected) != 0) {
		fprintf(stderr, "%s:%d: r=%d, stderr \"%s\", expected \"%s\"\n", __FILE__, line, r, err,
			expected);
		failures++;
	}
	free(err);
	config_free(&c);
}
#define CHECK_ERROR(text, expected) check_error(text, expected, __LINE__)

/* The text must fail with one "t.conf:LINE: ..." line containing needle. */
static void check_error_at(const char *text, unsigned at, const char *needle, int line)
{
	struct config c;
	char prefix[32], *err, *nl;
	int r = load(&c, text, &err);

	snprintf(prefix, sizeof(prefix), "t.conf:%u: ", at);
	nl = strchr(err, '\n');
	if (r != -EINVAL || strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, needle) || !nl ||
	    nl[1]) {
		fprintf(stderr, "%s:%d: r=%d, stderr \"%s\", expected one line \"%s...%s...\"\n", __FILE__,
			line, r, err, prefix, needle);
		failures++;
	}
	free(err);
	config_free(&c);
}
#define CHECK_ERROR_AT(text, at, needle) check_error_at(text, at, needle, __LINE__)

static void load_ok(struct config *c, const char *text, int line)
{
	char *err;
	int r = load(c, text, &err);

	if (r != 0 || *err) {
		fprintf(stderr, "%s:%d: r=%d, stderr \"%s\"\n", __FILE__, line, r, err);
		failures++;
	}
	free(err);
}
#define LOAD_OK(c, text) load_ok(c, text, __LINE__)

/* ---- values ---- */

static void test_durations(void)
{
	static const struct {
		const char *s;
		int r;
		uint64_t ns;
	} cases[] = {
		{ "500us", 0, 500000 },
		{ "10ms", 0, 10000000 },
		{ "1.5s", 0, 1500000000 },
		{ "2m", 0, 120000000000ULL },
		{ "2min", 0, 120000000000ULL },
		{ "1h", 0, 3600000000000ULL },
		{ "250ns", 0, 250 },
		{ "3µs", 0, 3000 },
		{ "10", 0, 10000000 },
		{ "0.5", 0, 500000 },
		{ "0", 0, 0 },
		{ "0s", 0, 0 },
		{ "10 ms", 0, 10000000 },
		{ "1.000000000000000000000s", 0, 1000000000 },
		{ "18446744073709551615ns", 0, UINT64_MAX },
		{ "18446744073709551616ns", -ERANGE, 0 },
		{ "99999999999999h", -ERANGE, 0 },
		{ "1.5ns", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "ms", -EINVAL, 0 },
		{ "-1ms", -EINVAL, 0 },
		{ " 1ms", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 },
		{ ".5s", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "10parsecs", -EINVAL, 0 },
		{ "10MS", -EINVAL, 0 },
		{ "1.0000000000000000000001s", -EINVAL, 0 },
	};
	static const uint64_t round[] = {
		0, 1, 999, 1000, 1500, 10000000, 1500000000, 60000000000ULL, UINT64_MAX,
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		uint64_t ns = 12345;
		int r = parse_duration_ns(cases[i].s, &ns);

		if (r != cases[i].r || (r == 0 && ns != cases[i].ns)) {
			fprintf(stderr, "parse_duration_ns(\"%s\") = %d, %llu\n", cases[i].s, r,
				(unsigned long long)ns);
			failures++;
		}
	}
	CHECK(parse_duration_ns(NULL, &(uint64_t) { 0 }) == -EINVAL);

	for (size_t i = 0; i < ELEMENTSOF(round); i++) {
		char buf[32];
		uint64_t ns = 0;

		format_duration_ns(buf, sizeof(buf), round[i]);
		if (parse_duration_ns(buf, &ns) != 0 || ns != round[i]) {
			fprintf(stderr, "duration %llu formats as \"%s\", parses back as %llu\n",
				(unsigned long long)round[i], buf, (unsigned long long)ns);
			failures++;
		}
	}
	char buf[32];
	CHECK_STR(format_duration_ns(buf, sizeof(buf), 10000000), "10ms");
	CHECK_STR(format_duration_ns(buf, sizeof(buf), 1500000000), "1500ms");
	CHECK_STR(format_duration_ns(buf, sizeof(buf), 60000000000ULL), "60s");
	CHECK_STR(format_duration_ns(buf, sizeof(buf), 0), "0");
}

static void test_sizes(void)
{
	static const struct {
		const char *s;
		int r;
		uint64_t b;
	} cases[] = {
		{ "4M", 0, 4 << 20 },
		{ "64K", 0, 64 << 10 },
		{ "64k", 0, 64 << 10 },
		{ "1G", 0, 1 << 30 },
		{ "4MiB", 0, 4 << 20 },
		{ "4096", 0, 4096 },
		{ "0", 0, 0 },
		{ "17179869183G", 0, 17179869183ULL << 30 },
		{ "17179869184G", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "4T", -EINVAL, 0 },
		{ "4 M", -EINVAL, 0 },
		{ "-4M", -EINVAL, 0 },
		{ "4MB", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		uint64_t b = 12345;
		int r = parse_size(cases[i].s, &b);

		if (r != cases[i].r || (r == 0 && b != cases[i].b)) {
			fprintf(stderr, "parse_size(\"%s\") = %d, %llu\n", cases[i].s, r,
				(unsigned long long)b);
			failures++;
		}
	}
}

static void test_bools(void)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "YES", "True" };
	static const char *const no[] = { "no", "false", "off", "0", "No", "OFF" };
	static const char *const bad[] = { "", "y", "2", "yess", "enabled", " yes" };
	bool b;

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		b = false;
		CHECK(parse_bool(yes[i], &b) == 0 && b);
		b = true;
		CHECK(parse_bool(no[i], &b) == 0 && !b);
	}
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		CHECK(parse_bool(bad[i], &b) == -EINVAL);
}

static void test_names(void)
{
	CHECK(config_priority_from_name("warning") == LOG_WARNING);
	CHECK(config_priority_from_name("err") == LOG_ERR);
	CHECK(config_priority_from_name("error") == LOG_ERR);
	CHECK(config_priority_from_name("0") == LOG_EMERG);
	CHECK(config_priority_from_name("7") == LOG_DEBUG);
	CHECK(config_priority_from_name("8") == -EINVAL);
	CHECK(config_priority_from_name("-1") == -EINVAL);
	CHECK(config_priority_from_name("Warning") == -EINVAL);
	CHECK_STR(config_priority_name(LOG_NOTICE), "notice");
	CHECK(config_priority_name(8) == NULL);
	CHECK(config_backend_from_name("kprobe-multi") == CHOICE_KPROBE_MULTI);
	CHECK(config_backend_from_name("fentry") == CHOICE_FENTRY);
	CHECK(config_backend_from_name("uprobe") == -EINVAL);
	CHECK_STR(config_backend_name(CHOICE_KPROBE), "kprobe");
}

/* ---- sections ---- */

static void test_defaults(void)
{
	struct config c;

	config_init(&c);
	CHECK(c.threshold_ns == 10000000);
	CHECK(c.pid == 0 && !c.comm && !c.cgroup);
	CHECK(c.kernel_stack && !c.user_stack);
	CHECK(c.ringbuf_bytes == 0); /* auto: from rate_limit */
	CHECK(c.rate_limit == 1000 && !c.rate_burst_set && config_rate_burst(&c) == 2000);
	CHECK_STR(c.user, "smblat");
	CHECK(c.backend == CHOICE_AUTO);
	CHECK(c.journal && c.priority_slow == LOG_WARNING && c.priority_summary == LOG_INFO);
	CHECK(c.lost_interval_ns == 60000000000ULL && c.hist_interval_ns == 60000000000ULL);
	/* every layer but func where the machine has what it traces; syscalls (a probe on every
	 * syscall of the machine) and profile (a clock on every CPU) only when asked for */
	for (int l = 0; l < _LAYER_MAX; l++)
		if (l != LAYER_SYSCALLS && l != LAYER_PROFILE)
			CHECK(c.layer[l].enabled && c.layer[l].automatic == (l != LAYER_FUNC));
	CHECK(!c.layer[LAYER_SYSCALLS].enabled && !c.layer[LAYER_SYSCALLS].automatic);
	CHECK(!c.layer[LAYER_PROFILE].enabled && !c.layer[LAYER_PROFILE].automatic);
	for (int l = 0; l < _LAYER_MAX; l++)
		CHECK(!c.layer[l].threshold_set && !c.layer[l].include && !c.layer[l].exclude);
	CHECK(smb_settings(&c)->group[GROUP_INODE] && smb_settings(&c)->group[GROUP_FILE] &&
	      smb_settings(&c)->group[GROUP_ADSPACE] && smb_settings(&c)->group[GROUP_SUPER]);
	CHECK(c.n_probes == 0 && !c.probes);
	CHECK(config_layer_threshold_ns(&c, LAYER_BLOCK) == 10000000);
	config_free(&c);
	/* config_free leaves defaults behind, so a second one is harmless */
	config_free(&c);
	CHECK_STR(c.user, "smblat");
}

/* The burst follows the limit unless given: a lower rate_limit alone must not keep 2000. */
static void test_rate_burst(void)
{
	struct config c;

	config_init(&c);
	LOAD_OK(&c, "[agent]\nrate_limit = 5\n");
	CHECK(config_rate_burst(&c) == 10);
	config_free(&c);
	LOAD_OK(&c, "[agent]\nrate_limit = 5\nrate_burst = 0\n");
	CHECK(config_rate_burst(&c) == 5); /* 0: as many as rate_limit */
	config_free(&c);
	LOAD_OK(&c, "[agent]\nrate_burst = 300\n");
	CHECK(config_rate_burst(&c) == 300 && c.rate_limit == 1000);
	config_free(&c);
	LOAD_OK(&c, "[agent]\nrate_limit = 0\n");
	CHECK(config_rate_burst(&c) == 0); /* no limit, no bucket */
	config_free(&c);
	LOAD_OK(&c, "[agent]\nrate_limit = 4294967295\n");
	CHECK(config_rate_burst(&c) == UINT32_MAX);
	config_free(&c);
}

static void test_every_section(void)
{
	struct config c;

	LOAD_OK(&c, "[agent]\n"
		    "threshold = 500us\n"
		    "pid = 4242\n"
		    "comm = smbd\n"
		    "cgroup = /sys/fs/cgroup/system.slice/smbd.service\n"
		    "kernel_stack = no\n"
		    "user_stack = on\n"
		    "ringbuf_size = 16M\n"
		    "rate_limit = 100\n"
		    "rate_burst = 500\n"
		    "user = nobody\n"
		    "backend = kprobe-multi\n"
		    "[journal]\n"
		    "enabled = false\n"
		    "priority_slow = notice\n"
		    "priority_summary = 7\n"
		    "lost_interval = 5m\n"
		    "[histogram]\n"
		    "interval = 0\n"
		    "[smb]\n"
		    "enabled = no\n"
		    "threshold = 20ms\n"
		    "groups = file, super\n"
		    "[smb2]\n"
		    "enabled = yes\n"
		    "threshold = 1s\n"
		    "[block]\n"
		    "enabled = 1\n"
		    "include = BLOCK_RQ\n"
		    "[smbd]\n"
		    "enabled = true\n"
		    "exclude = SMBD_VFS_FSYNC\n"
		    "binary = /opt/samba/sbin/smbd\n");
	CHECK(c.threshold_ns == 500000);
	CHECK(c.pid == 4242);
	CHECK_STR(c.comm, "smbd");
	CHECK_STR(c.cgroup, "/sys/fs/cgroup/system.slice/smbd.service");
	CHECK(!c.kernel_stack && c.user_stack);
	CHECK(c.ringbuf_bytes == 16 << 20);
	CHECK(c.rate_limit == 100 && c.rate_burst == 500 && config_rate_burst(&c) == 500);
	CHECK_STR(c.user, "nobody");
	CHECK(c.backend == CHOICE_KPROBE_MULTI);
	CHECK(!c.journal && c.priority_slow == LOG_NOTICE && c.priority_summary == LOG_DEBUG);
	CHECK(c.lost_interval_ns == 300000000000ULL);
	CHECK(c.hist_interval_ns == 0);
	CHECK(!c.layer[LAYER_SMB].enabled && c.layer[LAYER_SMB].threshold_set &&
	      c.layer[LAYER_SMB].threshold_ns == 20000000);
	CHECK(!smb_settings(&c)->group[GROUP_INODE] && smb_settings(&c)->group[GROUP_FILE] &&
	      !smb_settings(&c)->group[GROUP_ADSPACE] && smb_settings(&c)->group[GROUP_SUPER]);
	CHECK(smb_settings(&c)->group[GROUP_NONE]);
	CHECK(c.layer[LAYER_SMB2].enabled && config_layer_threshold_ns(&c, LAYER_SMB2) == 1000000000);
	CHECK(c.layer[LAYER_BLOCK].enabled && !c.layer[LAYER_BLOCK].threshold_set);
	CHECK(config_layer_threshold_ns(&c, LAYER_BLOCK) == 500000);
	CHECK(c.layer[LAYER_BLOCK].include && !strcmp(c.layer[LAYER_BLOCK].include[0], "BLOCK_RQ") &&
	      !c.layer[LAYER_BLOCK].include[1]);
	CHECK(c.layer[LAYER_SMBD].enabled && c.layer[LAYER_SMBD].exclude &&
	      !strcmp(c.layer[LAYER_SMBD].exclude[0], "SMBD_VFS_FSYNC"));
	CHECK_STR(smbd_settings(&c)->binary, "/opt/samba/sbin/smbd");
	config_free(&c);

	/* [syscalls] select=: one grammar, the last assignment wins; the smbd views' switches */
	LOAD_OK(&c, "[syscalls]\nselect = pid:7\nselect = smbd, comm:sysprog cgroup:/a/b\n"
		    "[smbd]\nvfs = yes\nexits = no\nexit_errors = yes\ntime_split = yes\nstacks = yes\n");
	CHECK(syscalls_settings(&c)->select.smbd && !syscalls_settings(&c)->select.pid);
	CHECK_STR(syscalls_settings(&c)->select.comm, "sysprog");
	CHECK_STR(syscalls_settings(&c)->select.cgroup, "/a/b");
	CHECK(smbd_settings(&c)->vfs && !smbd_settings(&c)->exits && smbd_settings(&c)->breaks &&
	      smbd_settings(&c)->split && c.layer[LAYER_SMBD].stacks);
	CHECK(smbd_settings(&c)->exit_errors);
	config_free(&c);
	CHECK(!smbd_settings(&c)->vfs && smbd_settings(&c)->exits && !smbd_settings(&c)->split &&
	      !syscalls_settings(&c)->select.smbd && !smbd_settings(&c)->exit_errors);
	CHECK_ERROR_AT("[syscalls]\nselect = pid:0\n", 2, "select = pid:0 has an invalid pid");
	CHECK_ERROR_AT("[syscalls]\nselect = comm:a_name_too_long_x\n", 2, "longer than 15 bytes");
	CHECK_ERROR_AT("[syscalls]\nselect = cgroup:rel\n", 2, "wants an absolute cgroup path");
	CHECK_ERROR_AT("[syscalls]\nselect = smb\n", 2, "wants smbd, pid:PID, comm:NAME or cgroup:PATH");
	CHECK_ERROR_AT("[syscalls]\nselect = pid:1,pid:2\n", 2, "names more than one pid");
	CHECK_ERROR_AT("[smb]\nstacks = yes\n", 2, "unknown key \"stacks\" in [smb]");

	/* empty strings unset; "user =" keeps root */
	LOAD_OK(&c, "[agent]\ncomm = smbd\ncomm =\nuser =\ncgroup=\n[smbd]\nbinary = /x/smbd\nbinary =\n");
	CHECK(!c.comm && !c.user && !c.cgroup && !smbd_settings(&c)->binary);
	config_free(&c);
}

static void test_syntax(void)
{
	struct config c;

	/* BOM, CRLF, comments of both kinds, inline " ;" comments, "key: value", [ blanks ] */
	LOAD_OK(&c, "\xef\xbb\xbf# comment\r\n"
		    "; comment\r\n"
		    "[ agent ]   ; the agent\r\n"
		    "threshold = 5ms ; five\r\n"
		    "  \r\n"
		    "pid: 7\r\n");
	CHECK(c.threshold_ns == 5000000 && c.pid == 7);
	config_free(&c);

	LOAD_OK(&c, "");
	config_free(&c);
	LOAD_OK(&c, "\n\n# nothing\n");
	config_free(&c);
	/* no newline at the end */
	LOAD_OK(&c, "[agent]\npid = 3");
	CHECK(c.pid == 3);
	config_free(&c);
	/* the same ordinary section twice: later values override */
	LOAD_OK(&c, "[agent]\npid = 3\n[journal]\n[agent]\npid = 4\n");
	CHECK(c.pid == 4);
	config_free(&c);
}

static void test_errors(void)
{
	CHECK_ERROR("[agent]\nthreshold = 5ms\ntreshold = 3\n",
		    "t.conf:3: unknown key \"treshold\" in [agent], did you mean \"threshold\"?\n");
	CHECK_ERROR("[agnet]\n", "t.conf:1: unknown section [agnet], did you mean [agent]?\n");
	CHECK_ERROR("\n[prob x]\n", "t.conf:2: unknown section [prob x], did you mean [probe x]?\n");
	CHECK_ERROR("[probes]\n", "t.conf:1: unknown section [probes], did you mean [probe NAME]?\n");
	CHECK_ERROR("[foo]\n", "t.conf:1: unknown section [foo]\n");
	CHECK_ERROR("[agent]\nfoo = 1\n", "t.conf:2: unknown key \"foo\" in [agent]\n");
	CHECK_ERROR("[agent]\npriority_slow = info\n",
		    "t.conf:2: unknown key \"priority_slow\" in [agent], it belongs in [journal]\n");
	CHECK_ERROR("[agent]\ngroups = inode\n",
		    "t.conf:2: unknown key \"groups\" in [agent], it belongs in [smb]\n");
	CHECK_ERROR("[smb2]\nbinary = /usr/sbin/smbd\n",
		    "t.conf:2: unknown key \"binary\" in [smb2], it belongs in [smbd]\n");
	CHECK_ERROR_AT("[smbd]\nbinary = sbin/smbd\n", 2, "must be an absolute path");
	CHECK_ERROR("[smb2]\ngroups = inode\n",
		    "t.conf:2: unknown key \"groups\" in [smb2], it belongs in [smb]\n");
	CHECK_ERROR("threshold = 1\n",
		    "t.conf:1: key \"threshold\" comes before any section, it belongs in [agent], [smb], "
		    "[smb2], [block], [smbd], [syscalls], [profile], [probe NAME]\n");
	CHECK_ERROR("[agent]\ngarbage\n", "t.conf:2: syntax error, expected [section] or key = value\n");
	CHECK_ERROR("[agent\n", "t.conf:1: syntax error, expected [section] or key = value\n");
	/* the first error wins, whichever kind it is */
	CHECK_ERROR("[agent]\ngarbage\npid = x\n",
		    "t.conf:2: syntax error, expected [section] or key = value\n");
	CHECK_ERROR("[agent]\npid = x\ngarbage\n", "t.conf:2: invalid number \"x\" for pid\n");
	CHECK_ERROR_AT("[agent] junk\n", 1, "unexpected text after the section header");
	CHECK_ERROR_AT("[agent]\nthreshold = 5\n  pid = 3\n", 3,
		       "indented line continues the value of \"threshold\"");

	CHECK_ERROR("[agent]\nthreshold = 10parsecs\n",
		    "t.conf:2: invalid duration \"10parsecs\" for threshold, use e.g. 500us, 10ms or 1.5s "
		    "(a bare number is in ms)\n");
	CHECK_ERROR_AT("[agent]\nthreshold = -1\n", 2, "invalid duration");
	CHECK_ERROR_AT("[agent]\nthreshold =\n", 2, "invalid duration");
	CHECK_ERROR_AT("[agent]\nthreshold = 99999999999999h\n", 2, "out of range");
	CHECK_ERROR_AT("[agent]\npid = -1\n", 2, "invalid number \"-1\" for pid");
	CHECK_ERROR_AT("[agent]\npid = 0x10\n", 2, "invalid number");
	CHECK_ERROR_AT("[agent]\npid = 99999999\n", 2, "out of range");
	CHECK_ERROR_AT("[agent]\ncomm = averyveryverylongname\n", 2, "longer than 15 characters");
	CHECK_ERROR_AT("[agent]\ncgroup = system.slice\n", 2, "not an absolute path");
	CHECK_ERROR_AT("[agent]\nkernel_stack = maybe\n", 2, "invalid boolean \"maybe\" for kernel_stack");
	CHECK_ERROR("[agent]\nringbuf_size = 5000\n",
		    "t.conf:2: ringbuf_size = 5000 must be a power of two between 4K and 1G (e.g. 4K)\n");
	CHECK_ERROR_AT("[agent]\nringbuf_size = 1K\n", 2, "power of two");
	CHECK_ERROR_AT("[agent]\nringbuf_size = 2G\n", 2, "power of two");
	CHECK_ERROR_AT("[agent]\nringbuf_size = lots\n", 2, "invalid size");
	CHECK_ERROR_AT("[agent]\nringbuf_size = automatic\n", 2, "invalid size");
	CHECK_ERROR_AT("[agent]\nrate_limit = 4294967296\n", 2, "out of range");
	CHECK_ERROR_AT("[agent]\nuser = -root\n", 2, "invalid user name");
	CHECK_ERROR("[agent]\nbackend = kprobe_multi\n",
		    "t.conf:2: unknown backend \"kprobe_multi\", did you mean \"kprobe-multi\"?\n");
	CHECK_ERROR("[agent]\nbackend = ebpf\n", "t.conf:2: unknown backend \"ebpf\"\n");
	CHECK_ERROR_AT("[journal]\npriority_slow = warnin\n", 2, "did you mean \"warning\"?");
	CHECK_ERROR_AT("[journal]\npriority_summary = 8\n", 2, "invalid syslog priority \"8\"");
	CHECK_ERROR_AT("[journal]\nlost_interval = 0\n", 2, "too short");
	CHECK_ERROR_AT("[histogram]\ninterval = 500ms\n", 2, "0 (off) or at least 1s");
	CHECK_ERROR_AT("[smb]\ngroups = inodes\n", 2, "unknown group \"inodes\", did you mean \"inode\"?");
	CHECK_ERROR_AT("[smb]\ninclude = FOO BA/R\n", 2, "invalid function name \"BA/R\"");
	CHECK_ERROR_AT("[smbd]\nenabled = perhaps\n", 2,
		       "invalid value \"perhaps\" for enabled, use auto, yes or no");

	/* probes */
	CHECK_ERROR("[agent]\n\n[probe X]\nthreshold = 1ms\n",
		    "t.conf:3: [probe X] has no target, e.g. target = vfs_read\n");
	CHECK_ERROR("[probe X]\n", "t.conf:1: [probe X] has no target, e.g. target = vfs_read\n");
	CHECK_ERROR("[probe A]\ntarget = a\n[probe A]\ntarget = b\n",
		    "t.conf:3: duplicate section [probe A], first at line 1\n");
	CHECK_ERROR("[probe]\n", "t.conf:1: [probe] needs a name: [probe NAME]\n");
	CHECK_ERROR_AT("[probe a b]\n", 1, "invalid probe name \"a b\"");
	CHECK_ERROR_AT("[probe a/b]\n", 1, "invalid probe name");
	CHECK_ERROR_AT("[probe X]\ntarget =\n", 2, "target is empty");
	CHECK_ERROR_AT("[probe X]\ntarget = vfs read\n", 2, "blanks");
	/* config.c refuses an empty target first; the parser alone must not read before it */
	{
		struct target tg;
		const char *problem;

		CHECK(target_parse("", &tg, &problem) == -EINVAL && problem);
	}
	CHECK_ERROR_AT("[probe X]\ntarget = cifs:\n", 2, "empty part");
	CHECK_ERROR_AT("[probe X]\ntarget = usdt:/bin/x:prov\n", 2, "usdt:PATH:PROVIDER:START,END");
	CHECK_ERROR_AT("[probe X]\ntarget = usdt:/bin/x:prov:start\n", 2, "entry and return");
	CHECK_ERROR_AT("[probe X]\ntarget = syscall:Open\n", 2, "syscall:NAME");
	CHECK_ERROR_AT("[probe X]\ntarget = a\nargs = 7\n", 3, "from 0 to 6");
	CHECK_ERROR_AT("[probe X]\ntarget = a\nargs = -1\n", 3, "from 0 to 6");
	CHECK_ERROR_AT("[probe X]\ntarget = a\nerrors = sometimes\n", 3, "negative, minus1 or null");
	CHECK_ERROR("[probe X]\ntarget = a\ngroups = inode\n",
		    "t.conf:3: unknown key \"groups\" in [probe X], it belongs in [smb]\n");
	CHECK_ERROR("[probe X]\ntarget = a\ntarget_ = b\n",
		    "t.conf:3: unknown key \"target_\" in [probe X], did you mean \"target\"?\n");

	/* a long PATH:C++-symbol target fits on one line (inih's own 200 bytes did not hold it) */
	size_t size = CONFIG_LINE_MAX + 64;
	char *line = malloc(size), *text = malloc(size + 64), *expect = malloc(64);
	struct config c;

	if (!line || !text || !expect)
		exit(EXIT_FAILURE);
	int n = snprintf(line, size, "/opt/app/lib/libapp.so.1:_ZN3app6detail");
	memset(line + n, 'x', 1500);
	line[n + 1500] = '\0';
	snprintf(text, size + 64, "[probe LONG]\ntarget = %s\n", line);
	LOAD_OK(&c, text);
	CHECK(c.n_probes == 1 && c.probes[0].target && strcmp(c.probes[0].target, line) == 0);
	config_free(&c);
	/* lines the loader cannot hold are refused, not cut: CONFIG_LINE_MAX and one */
	memset(line, 'x', size);
	snprintf(text, size + 64, "[probe P]\ntarget = /x:%.*s\n", CONFIG_LINE_MAX - 12, line);
	LOAD_OK(&c, text);
	config_free(&c);
	snprintf(text, size + 64, "[probe P]\ntarget = /x:%.*s\n", CONFIG_LINE_MAX - 11, line);
	snprintf(expect, 64, "line longer than %d characters", CONFIG_LINE_MAX);
	CHECK_ERROR_AT(text, 2, expect);
	/* a section name longer than inih keeps is still checked whole */
	snprintf(text, size + 64, "[probe %.*s]\n", 70, line);
	free(line);
	free(expect);
	CHECK_ERROR_AT(text, 1, "invalid probe name");
	free(text);
}

static void test_lists(void)
{
	struct config c;
	char **l;

	LOAD_OK(&c, "[smb]\ninclude = A, B  C,D,,E\n");
	l = c.layer[LAYER_SMB].include;
	CHECK(l && !strcmp(l[0], "A") && !strcmp(l[1], "B") && !strcmp(l[2], "C") && !strcmp(l[3], "D") &&
	      !strcmp(l[4], "E") && !l[5]);
	config_free(&c);

	/* indented lines extend, a new assignment replaces, duplicates go */
	LOAD_OK(&c, "[smb]\n"
		    "exclude = A\n"
		    "exclude = B,\n"
		    "   C\n"
		    "\n"
		    "   B D ; comment\n"
		    "   # a comment line in between\n"
		    "\tE\n");
	l = c.layer[LAYER_SMB].exclude;
	CHECK(l && !strcmp(l[0], "B") && !strcmp(l[1], "C") && !strcmp(l[2], "D") && !strcmp(l[3], "E") &&
	      !l[4]);
	config_free(&c);

	/* empty: back to all */
	LOAD_OK(&c, "[block]\ninclude = A\ninclude =\n");
	CHECK(!c.layer[LAYER_BLOCK].include);
	config_free(&c);
	LOAD_OK(&c, "[block]\ninclude =\n  A\n");
	l = c.layer[LAYER_BLOCK].include;
	CHECK(l && !strcmp(l[0], "A") && !l[1]);
	config_free(&c);

	LOAD_OK(&c, "[smb]\ngroups = inode\n  adspace\n");
	CHECK(smb_settings(&c)->group[GROUP_INODE] && !smb_settings(&c)->group[GROUP_FILE] &&
	      smb_settings(&c)->group[GROUP_ADSPACE] && !smb_settings(&c)->group[GROUP_SUPER]);
	config_free(&c);
	LOAD_OK(&c, "[smb]\ngroups = inode\ngroups = super,file\n");
	CHECK(!smb_settings(&c)->group[GROUP_INODE] && smb_settings(&c)->group[GROUP_FILE] &&
	      !smb_settings(&c)->group[GROUP_ADSPACE] && smb_settings(&c)->group[GROUP_SUPER]);
	config_free(&c);
	LOAD_OK(&c, "[smb]\ngroups =\n");
	CHECK(!smb_settings(&c)->group[GROUP_INODE] && !smb_settings(&c)->group[GROUP_FILE] &&
	      !smb_settings(&c)->group[GROUP_ADSPACE] && !smb_settings(&c)->group[GROUP_SUPER]);
	config_free(&c);
}

static void test_probes(void)
{
	struct config c;
	char *err;

	LOAD_OK(&c, "[probe VFS_FSYNC]\n"
		    "target = vfs_fsync_range\n"
		    "threshold = 50ms\n"
		    "args = 2\n"
		    "errors = yes\n"
		    "user_stack = yes\n"
		    "[probe smbd:open.at-1]\n"
		    "target = usdt:/usr/sbin/smbd:smbd:open_start,open_end\n"
		    "kernel_stack = no\n"
		    "[probe sys]\n"
		    "target = syscall:openat\n"
		    "[probe mod]\n"
		    "target = cifs:cifs_open\n"
		    "[agent]\n"
		    "kernel_stack = yes\n"
		    "user_stack = no\n"
		    "threshold = 3ms\n");
	CHECK(c.n_probes == 4);
	if (c.n_probes == 4) {
		struct probe_config *p = &c.probes[0];

		CHECK_STR(p->label, "VFS_FSYNC");
		CHECK_STR(p->target, "vfs_fsync_range");
		CHECK(p->threshold_set && p->threshold_ns == 50000000);
		CHECK(config_probe_threshold_ns(&c, p) == 50000000);
		CHECK(p->args == 2 && p->errors);
		CHECK(p->kernel_stack && p->user_stack);
		CHECK_STR(p->file, "t.conf");
		CHECK(p->line == 1);

		p = &c.probes[1];
		CHECK_STR(p->label, "smbd:open.at-1");
		CHECK(!p->threshold_set && config_probe_threshold_ns(&c, p) == 3000000);
		CHECK(!p->kernel_stack && !p->user_stack && p->args == 0 && !p->errors);
		CHECK(p->line == 7);
		CHECK_STR(c.probes[3].target, "cifs:cifs_open");
	}
	config_free(&c);

	/* stacks follow [agent] wherever [agent] is */
	LOAD_OK(&c, "[probe P]\ntarget = f\n[agent]\nkernel_stack = no\nuser_stack = yes\n");
	CHECK(c.n_probes == 1 && !c.probes[0].kernel_stack && c.probes[0].user_stack);
	config_free(&c);

	/* one probe per syscall: sys_enter and sys_exit serve them all, the func layer takes one */
	CHECK_ERROR("[probe A]\ntarget = syscall:openat\n[probe B]\ntarget = syscall:openat\n",
		    "t.conf:3: [probe B] traces syscall:openat, as [probe A] does (line 1)\n");
	LOAD_OK(&c, "[probe A]\ntarget = syscall:openat\n[probe B]\ntarget = syscall:open\n");
	config_free(&c);

	/* at most CONFIG_MAX_PROBES */
	size_t size = (CONFIG_MAX_PROBES + 1) * 40, n = 0;
	char *text = malloc(size);
	CHECK(text);
	if (!text)
		return;
	for (int i = 0; i <= CONFIG_MAX_PROBES; i++)
		n += (size_t)snprintf(text + n, size - n, "[probe P%d]\ntarget = f%d\n", i, i);
	CHECK(load(&c, text, &err) == -EINVAL);
	char expected[128];
	snprintf(expected, sizeof(expected), "t.conf:%d: too many [probe] sections, at most %d\n",
		 2 * CONFIG_MAX_PROBES + 1, CONFIG_MAX_PROBES);
	CHECK_STR(err, expected);
	free(err);
	free(text);
	config_free(&c);
}

/* ---- files and drop-ins ---- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

static int load_path(struct config *c, const char *path, bool missing_ok, char **err)
{
	int r;

	config_init(c);
	capture_begin();
	r = config_load(c, path, missing_ok, NULL);
	*err = capture_end();
	return r;
}

static void test_files(void)
{
	char dir[] = "/tmp/test-config.XXXXXX", path[256], dropins[512], expected[1024];
	struct config c;
	char *err;
	int r;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	snprintf(path, sizeof(path), "%s/smblat.conf", dir);
	snprintf(dropins, sizeof(dropins), "%s.d", path);

	/* missing */
	r = load_path(&c, path, true, &err);
	CHECK(r == 0 && !*err && c.threshold_ns == 10000000);
	free(err);
	config_free(&c);
	r = load_path(&c, path, false, &err);
	snprintf(expected, sizeof(expected), "%s: No such file or directory\n", path);
	CHECK(r == -ENOENT);
	CHECK_STR(err, expected);
	free(err);
	config_free(&c);

	/* drop-ins alone apply when the main file is missing */
	CHECK(mkdir(dropins, 0755) == 0);
	write_file(dropins, "50-only.conf", "[agent]\npid = 9\n");
	r = load_path(&c, path, true, &err);
	CHECK(r == 0 && !*err && c.pid == 9);
	free(err);
	config_free(&c);

	write_file(dir, "smblat.conf",
		   "[agent]\nthreshold = 5ms\npid = 1\n"
		   "[smb]\ninclude = A B\n"
		   "[probe P]\ntarget = vfs_read\nargs = 1\n");
	write_file(dropins, "20-b.conf", "[agent]\nthreshold = 7ms\n");
	write_file(dropins, "10-a.conf",
		   "[agent]\nthreshold = 6ms\ncomm = smbd\n[smb]\ninclude = C\n"
		   "[probe P]\nthreshold = 2ms\n[probe Q]\ntarget = vfs_write\n");
	write_file(dropins, "30-c.conf.disabled", "[agent]\nthreshold = 99ms\n");
	write_file(dropins, ".40-hidden.conf", "[agent]\nthreshold = 98ms\n");
	write_file(dropins, "A-upper.conf", "[agent]\nrate_limit = 5\n");
	write_file(dropins, "a-lower.conf", "[agent]\nrate_limit = 6\n");
	snprintf(expected, sizeof(expected), "%s/dir.conf", dropins);
	CHECK(mkdir(expected, 0755) == 0);

	r = load_path(&c, path, false, &err);
	CHECK(r == 0);
	CHECK_STR(err, "");
	CHECK(c.threshold_ns == 7000000); /* 20-b after 10-a after the main file */
	CHECK(c.pid == 9);
	CHECK_STR(c.comm, "smbd");
	CHECK(c.rate_limit == 6); /* byte order: "A" < "a" */
	CHECK(c.layer[LAYER_SMB].include && !strcmp(c.layer[LAYER_SMB].include[0], "C") &&
	      !c.layer[LAYER_SMB].include[1]);
	CHECK(c.n_probes == 2);
	if (c.n_probes == 2) {
		/* the drop-in amends P from the main file */
		CHECK_STR(c.probes[0].label, "P");
		CHECK_STR(c.probes[0].target, "vfs_read");
		CHECK(c.probes[0].args == 1 && c.probes[0].threshold_ns == 2000000);
		CHECK_STR(c.probes[0].file, path);
		CHECK(c.probes[0].line == 6);
		CHECK_STR(c.probes[1].label, "Q");
	}
	free(err);
	config_free(&c);

	/* errors in a drop-in name the drop-in */
	write_file(dropins, "15-bad.conf", "[agent]\n\nthreshold = soon\n");
	r = load_path(&c, path, false, &err);
	snprintf(expected, sizeof(expected),
		 "%s/15-bad.conf:3: invalid duration \"soon\" for threshold, use e.g. 500us, 10ms or 1.5s "
		 "(a bare number is in ms)\n",
		 dropins);
	CHECK(r == -EINVAL);
	CHECK_STR(err, expected);
	free(err);
	config_free(&c);

	/* a probe a drop-in adds without target is reported where the drop-in has it */
	write_file(dropins, "15-bad.conf", "\n[probe R]\nargs = 1\n");
	r = load_path(&c, path, false, &err);
	snprintf(expected, sizeof(expected),
		 "%s/15-bad.conf:2: [probe R] has no target, e.g. target = vfs_read\n", dropins);
	CHECK(r == -EINVAL);
	CHECK_STR(err, expected);
	free(err);
	config_free(&c);

	/* a NUL byte is not silently the end of the file */
	snprintf(expected, sizeof(expected), "%s/15-bad.conf", dropins);
	int fd = open(expected, O_WRONLY | O_TRUNC | O_CLOEXEC);
	CHECK(fd >= 0 && write(fd, "[agent]\n\0pid = 1\n", 17) == 17);
	close(fd);
	r = load_path(&c, path, false, &err);
	CHECK(r == -EINVAL);
	CHECK(strstr(err, "15-bad.conf:2: NUL byte") != NULL);
	free(err);
	config_free(&c);

	/* a directory is not a configuration file */
	r = load_path(&c, dropins, false, &err);
	CHECK(r == -EISDIR && strstr(err, "Is a directory"));
	free(err);
	config_free(&c);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* ---- dump ---- */

/* [block] disks= and queue_time=, syscall:NAME targets */
static void test_block_syscall(void)
{
	struct config c;

	LOAD_OK(&c, "[block]\ndisks = sda, nvme0n1\n  cciss!c0d0 sda\nqueue_time = yes\n");
	CHECK(block_settings(&c)->disks && block_settings(&c)->disks[0] && block_settings(&c)->disks[1] &&
	      block_settings(&c)->disks[2] && !block_settings(&c)->disks[3]);
	CHECK_STR(block_settings(&c)->disks[0], "sda");
	CHECK_STR(block_settings(&c)->disks[2], "cciss!c0d0");
	CHECK(block_settings(&c)->queue_time);
	config_free(&c);
	LOAD_OK(&c, "[block]\ndisks = sda\ndisks =\n");
	CHECK(!block_settings(&c)->disks);
	CHECK(!block_settings(&c)->queue_time);
	config_free(&c);
	CHECK_ERROR("[smb2]\ndisks = sda\n",
		    "t.conf:2: unknown key \"disks\" in [smb2], it belongs in [block]\n");
	CHECK_ERROR("[block]\ngroups = inode\n",
		    "t.conf:2: unknown key \"groups\" in [block], it belongs in [smb]\n");
	CHECK_ERROR("[block]\ndisks = sda ../sdb\n",
		    "t.conf:2: invalid disk name \"../sdb\" in disks, expected a name of "
		    "/sys/class/block such as sda or nvme0n1\n");
	CHECK_ERROR("[block]\ndisks = a b c d e f g h i j k l m n o p q\n",
		    "t.conf:2: disks lists more than 16 disks\n");
	CHECK_ERROR("[block]\nqueue_time = maybe\n", "t.conf:2: invalid boolean \"maybe\" for queue_time, "
						     "use yes/no, true/false, on/off or 1/0\n");

	LOAD_OK(&c, "[probe A]\ntarget = syscall:openat\n[probe B]\ntarget = syscall:nanosleep\n");
	config_free(&c);
	CHECK(syscalls_nr("openat") >= 0);
	CHECK(syscalls_nr("read") == SYS_read);
	CHECK(syscalls_nr("nanosleep") == SYS_nanosleep);
	CHECK(syscalls_nr("no_such_call") == -ENOENT);
	CHECK_ERROR("[probe A]\ntarget = syscall:nanoslep\n",
		    "t.conf:2: target \"syscall:nanoslep\": no syscall \"nanoslep\" on this architecture, "
		    "did you mean \"syscall:nanosleep\"?\n");
	CHECK_ERROR("[probe A]\n\ntarget = syscall:zzzzzzzzzzzz\n",
		    "t.conf:3: target \"syscall:zzzzzzzzzzzz\": no syscall \"zzzzzzzzzzzz\" on this "
		    "architecture\n");
}

static void test_dump(void)
{
	static const char rich[] =
		"[agent]\nthreshold = 1.5s\npid = 12\ncomm = Web Content\ncgroup = /a/b\n"
		"kernel_stack = no\nuser_stack = yes\nringbuf_size = 65536\nrate_limit = 10\n"
		"rate_burst = 20\nuser = daemon\nbackend = fentry\n"
		"[journal]\nenabled = no\npriority_slow = 3\npriority_summary = debug\nlost_interval = 90s\n"
		"[histogram]\ninterval = 1h\n"
		"[smb]\nthreshold = 250us\ninclude = A B\nexclude = C\ngroups = adspace\n"
		"[smb2]\nenabled = yes\nthreshold = 0\n"
		"[block]\nenabled = yes\nthreshold = 1ns\ndisks = sda nvme0n1\nqueue_time = yes\n"
		"[smbd]\nenabled = yes\nexclude = X\n"
		"[probe F1]\ntarget = /usr/lib/libc.so.6:malloc\nthreshold = 2us\nargs = 6\nerrors = yes\n"
		"[probe F2]\ntarget = syscall:fsync\nkernel_stack = yes\n";
	struct config a, b;
	char *da, *db;

	LOAD_OK(&a, rich);
	da = dump(&a);
	LOAD_OK(&b, da);
	db = dump(&b);
	CHECK_STR(db, da);
	CHECK(strstr(da, "\nthreshold = 1500ms\n"));
	CHECK(strstr(da, "\nringbuf_size = 64K\n"));
	CHECK(strstr(da, "\npriority_slow = err\n"));
	CHECK(strstr(da, "\ninterval = 3600s\n"));
	CHECK(strstr(da, "\n[probe F2]\ntarget = syscall:fsync\nthreshold =\n"));
	CHECK(strstr(da, "\ncomm = Web Content\n"));
	CHECK(strstr(da, "\ngroups = adspace\n"));
	CHECK(strstr(da, "\n[block]\nenabled = yes\nthreshold = 1ns\ninclude =\nexclude =\n"
			 "disks = sda nvme0n1\nqueue_time = yes\n"));
	CHECK(b.layer[LAYER_SMB2].threshold_set && b.layer[LAYER_SMB2].threshold_ns == 0);
	free(da);
	free(db);
	config_free(&a);
	config_free(&b);

	/* the default round-trips as auto */
	LOAD_OK(&a, "[agent]\nrate_limit = 5\n");
	da = dump(&a);
	CHECK(strstr(da, "\nringbuf_size = auto\n"));
	LOAD_OK(&b, da);
	CHECK(b.ringbuf_bytes == 0);
	free(da);
	config_free(&a);
	config_free(&b);

	/* a value starting with ';' is no inline comment in the dump (found by fuzz-config) */
	LOAD_OK(&a, "[agent]\ncomm =;rm\n");
	da = dump(&a);
	LOAD_OK(&b, da);
	db = dump(&b);
	CHECK_STR(db, da);
	CHECK(strstr(da, "\ncomm =;rm\n"));
	CHECK(b.comm && strcmp(b.comm, ";rm") == 0);
	free(da);
	free(db);
	config_free(&a);
	config_free(&b);

	/* -f probes, named by their targets, load back under names a section takes */
	static const char *const targets[] = { "/usr/bin/x:f", "usdt:/a/b:p:s,e", "/usr/bin_x:f",
					       "c:malloc" };
	config_init(&a);
	a.probes = calloc(4, sizeof(*a.probes));
	for (unsigned i = 0; a.probes && i < 4; i++)
		a.probes[a.n_probes++] = (struct probe_config) {
			.label = strdup(targets[i]),
			.target = strdup(targets[i]),
			.cli = true,
		};
	da = dump(&a);
	LOAD_OK(&b, da);
	CHECK(b.n_probes == 4);
	for (unsigned i = 0; i < b.n_probes && i < 4; i++)
		CHECK_STR(b.probes[i].target, targets[i]);
	if (b.n_probes == 4) {
		CHECK_STR(b.probes[0].label, "_usr_bin_x:f");
		CHECK_STR(b.probes[1].label, "usdt:_a_b:p:s_e");
		CHECK_STR(b.probes[2].label, "_usr_bin_x:f-2");
		CHECK_STR(b.probes[3].label, "c:malloc");
	}
	CHECK(strstr(da, "\n# -f /usr/bin/x:f: named FUNCTION=/usr/bin/x:f on the command line\n"));
	free(da);
	config_free(&a);
	config_free(&b);

	/* the defaults too */
	config_init(&a);
	da = dump(&a);
	LOAD_OK(&b, da);
	db = dump(&b);
	CHECK_STR(db, da);
	CHECK(strstr(da, "\n[agent]\nthreshold = 10ms\n"));
	CHECK(strstr(da, "\nuser = smblat\n"));
	CHECK(strstr(da, "\ngroups = inode file adspace super\n"));
	free(da);
	free(db);
	config_free(&a);
	config_free(&b);
}

/* ---- the installed default ---- */

static char *read_all(const char *path)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	if (getdelim(&buf, &n, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* "#key = value" lines are the documented defaults; prose is "# ...". */
static char *uncomment_defaults(const char *text)
{
	char *out = strdup(text), *o = out;

	if (!out)
		exit(EXIT_FAILURE);
	for (const char *p = text; *p;) {
		if (p[0] == '#' && p[1] >= 'a' && p[1] <= 'z')
			p++;
		while (*p && *p != '\n')
			*o++ = *p++;
		if (*p)
			*o++ = *p++;
	}
	*o = '\0';
	return out;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted "section/key" of every assignment in text, joined by '\n'. */
static char *key_set(const char *text)
{
	char *copy = strdup(text), *save = NULL, section[64] = "", **keys = NULL, *out;
	size_t n = 0, len = 1;

	if (!copy)
		exit(EXIT_FAILURE);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq;

		if (line[0] == '[') {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(line + 1, "]"), line + 1);
			continue;
		}
		if (line[0] == '#' || line[0] == ';' || !(eq = strchr(line, '=')))
			continue;
		while (eq > line && eq[-1] == ' ')
			eq--;
		keys = realloc(keys, (n + 1) * sizeof(char *));
		if (!keys || asprintf(&keys[n], "%s/%.*s", section, (int)(eq - line), line) < 0)
			exit(EXIT_FAILURE);
		len += strlen(keys[n++]) + 1;
	}
	qsort(keys, n, sizeof(char *), strcmp_ptr);
	out = calloc(1, len);
	for (size_t i = 0; i < n; i++) {
		strcat(strcat(out, keys[i]), "\n");
		free(keys[i]);
	}
	free(keys);
	free(copy);
	return out;
}

static void test_installed_default(const char *source_root)
{
	struct config d, c;
	char path[4096], *text, *uncommented, *dd, *dc, *kd, *kc, *err;
	int r;

	snprintf(path, sizeof(path), "%s/conf/smblat.conf", source_root);
	text = read_all(path);
	if (!text) {
		fprintf(stderr, "%s: %m\n", path);
		failures++;
		return;
	}
	config_init(&d);
	dd = dump(&d);

	/* as installed: everything commented out */
	r = load_path(&c, path, false, &err);
	CHECK(r == 0);
	CHECK_STR(err, "");
	dc = dump(&c);
	CHECK_STR(dc, dd);
	free(err);
	free(dc);
	config_free(&c);

	/* the commented values are the real defaults */
	uncommented = uncomment_defaults(text);
	capture_begin();
	config_init(&c);
	r = config_load_string(&c, "smblat.conf (uncommented)", uncommented, NULL);
	err = capture_end();
	CHECK(r == 0);
	CHECK_STR(err, "");
	dc = dump(&c);
	CHECK_STR(dc, dd);

	/* and every key is documented */
	kd = key_set(dd);
	kc = key_set(uncommented);
	CHECK_STR(kc, kd);

	free(kd);
	free(kc);
	free(err);
	free(dc);
	free(dd);
	free(uncommented);
	free(text);
	config_free(&c);
	config_free(&d);
}

/* ---- hostile input: no crash, no leak (run under valgrind) ---- */

static void test_garbage(void)
{
	static const char *const texts[] = {
		"[",
		"]",
		"[]",
		"[[]]",
		"=",
		"=x",
		"[agent]\n=",
		"[agent]\n:",
		"[agent]\n   \n  x\n",
		"[probe ]",
		"[probe\t]",
		"[probe X]\n",
		"[probe X]\ntarget = a\n[probe X]\n",
		"[smb]\ninclude = A\n include\n",
		"\xef\xbb\xbf",
		"\xef\xbb",
		"\r\r\r\n",
		"[agent]\nthreshold = 1\n\tpid=2\n",
		"[smb]\ngroups = ,,,\n",
		"[agent]\ncomm = \x01\n",
		"; only\n# comments",
		"[agent];\n",
		"[agent]]\n",
		"[agent] ; x ]\n",
		"[agent ;]\n",
		"[probe A]\ntarget = a\n[probe B]\n[probe C]\ntarget = c\n",
	};
	static const char *const words[] = {
		"[agent]",
		"[journal]",
		"[histogram]",
		"[smb]",
		"[smb2]",
		"[block]",
		"[smbd]",
		"[probe A]",
		"[probe B]",
		"[probe",
		"]",
		"[",
		"=",
		":",
		";",
		"#",
		" ",
		"\t",
		"\n",
		"\n",
		"\n",
		"threshold",
		"include",
		"groups",
		"target",
		"args",
		"pid",
		"user",
		"comm",
		"10ms",
		"x",
		"A,B",
		"inode",
		"yes",
		"\xef\xbb\xbf",
		"\r",
		"9999999999999999999999",
		"usdt:",
		"syscall:",
		"1.5",
	};
	unsigned seed = 1;

	capture_begin();
	for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
		struct config c;

		config_init(&c);
		(void)config_load_string(&c, "g.conf", texts[i], NULL);
		free(dump(&c));
		config_free(&c);
	}
	for (int round = 0; round < 3000; round++) {
		char text[512] = "";
		size_t n = 0;
		struct config c;

		for (int w = 0; w < 40; w++) {
			const char *word;

			seed = seed * 1103515245 + 12345;
			word = words[(seed >> 16) % (ELEMENTSOF(words))];
			if (n + strlen(word) >= sizeof(text))
				break;
			strcpy(text + n, word);
			n += strlen(word);
		}
		config_init(&c);
		(void)config_load_string(&c, "g.conf", text, NULL);
		free(dump(&c));
		config_free(&c);
	}
	free(capture_end());
}

/*
 * A message echoes the file's bytes: invalid UTF-8 and control characters
 * as \xNN, valid UTF-8 as it is (issue 25 item 21: a non-UTF-8 key was
 * echoed raw to the terminal and the journal).
 */
static void test_escaped(void)
{
	CHECK_ERROR("[agent]\n\xff\xfekey = 1\n", "t.conf:2: unknown key \"\\xff\\xfekey\" in [agent]\n");
	CHECK_ERROR("[agent]\n\x1b[2Jk = 1\n", "t.conf:2: unknown key \"\\x1b[2Jk\" in [agent]\n");
	CHECK_ERROR("[agent]\nschl\xc3\xbcssel = 1\n",
		    "t.conf:2: unknown key \"schl\xc3\xbcssel\" in [agent]\n");
	/* an overlong '/' and a lone continuation byte are no UTF-8 */
	CHECK_ERROR("[agent]\nk\xc0\xaf\x80 = 1\n",
		    "t.conf:2: unknown key \"k\\xc0\\xaf\\x80\" in [agent]\n");
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : getenv("SOURCE_ROOT");

	CHECK(agent_config_register() == 0);
	test_durations();
	test_sizes();
	test_bools();
	test_names();
	test_defaults();
	test_rate_burst();
	test_every_section();
	test_syntax();
	test_errors();
	test_lists();
	test_probes();
	test_files();
	test_dump();
	test_block_syscall();
	if (root)
		test_installed_default(root);
	else {
		fprintf(stderr, "no source root (argv[1] or $SOURCE_ROOT): conf/smblat.conf not checked\n");
		failures++;
	}
	test_garbage();
	test_escaped();

	return check_done("config");
}
