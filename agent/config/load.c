/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading smblat.conf: files and drop-ins, lines, sections, and each key
 * handed to the parser of its type as the key table says (table.c).
 *
 * inih does the ini syntax. The installed libinih is built without
 * line numbers in the handler and without a callback on new sections, so
 * the line reader we hand to ini_parse_stream() counts lines and notices
 * section headers itself: that is what gives every message its FILE:LINE,
 * lets us reject empty or repeated [probe NAME] sections and keeps section
 * names longer than inih's 50 byte buffer intact.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config-int.h"
#include "config/target.h"
#include "smblat-config.h"

#define FILE_MAX (1U << 20) /* a config file is a few KiB; refuse surprises */

#define WHITESPACE " \t\n\r\v\f"

/* What outlives one file: the main file and its drop-ins form one load. */
struct load {
	struct config *c;
	unsigned first_new_probe;
	char *message; /* the first failure, "FILE:LINE: what" */
};

/* One file or string being parsed. */
struct loader {
	struct load *load;
	struct config *c;
	const char *name;
	const char *pos;                        /* the unread rest of the text */
	struct config_parser p;                 /* the first failure, the line read */
	const struct table_section *section;    /* NULL before the first header */
	unsigned probe;                         /* [probe NAME]: which */
	char title[256];                        /* the section's name whole, inih's copy stops at 49 bytes */
	unsigned probe_line[CONFIG_MAX_PROBES]; /* where this file has [probe NAME], or 0 */
	/* mirrors inih: after a key, indented lines continue its value */
	bool key_in_section;
	bool continuation;
};

#define loader_fail(l, ...) parser_fail(&(l)->p, -EINVAL, __VA_ARGS__)

/* The best message for a key the section does not have. */
static int key_unknown(struct loader *l, const char *name)
{
	const char *names[64] = {}, *hint, *homes;
	struct table_iter it = { .s = l->section };
	const struct config_key *k;
	char buf[128];
	size_t n = 0;

	while ((k = table_key_next(&it)) && n < ELEMENTSOF(names))
		names[n++] = k->name;
	/* an exact key of another section says more than a near one of this */
	homes = table_homes(name, buf, sizeof(buf));
	if (homes)
		return loader_fail(l, "unknown key \"%s\" in [%s], it belongs in %s", name, l->title, homes);
	hint = suggest_name(name, names, n);
	if (hint)
		return loader_fail(l, "unknown key \"%s\" in [%s], did you mean \"%s\"?", name, l->title,
				   hint);
	return loader_fail(l, "unknown key \"%s\" in [%s]", name, l->title);
}

/* Older inih leaves " ; comment" on continuation lines; cut it as on the first line. */
static void comment_cut(char *buf, size_t size, const char *value)
{
	snprintf(buf, size, "%s", value);
	for (size_t n = 1; buf[0] && buf[n]; n++)
		if (buf[n] == ';' && isspace((unsigned char)buf[n - 1])) {
			buf[n] = '\0';
			break;
		}
}

static int loader_key(struct loader *l, const char *name, const char *value)
{
	const struct config_key *k;
	const char *homes;
	char buf[256];
	unsigned part;

	if (!l->section) {
		homes = table_homes(name, buf, sizeof(buf));
		if (homes)
			return loader_fail(l, "key \"%s\" comes before any section, it belongs in %s", name,
					   homes);
		return loader_fail(l, "key \"%s\" comes before any section", name);
	}
	k = table_key(l->section, name, &part);
	if (!k)
		return key_unknown(l, name);
	if (l->continuation && !k->type->list)
		return loader_fail(l,
				   "indented line continues the value of \"%s\", which takes one value "
				   "(do not indent keys)",
				   name);
	l->p.key = k->name;
	if (l->continuation) {
		comment_cut(buf, sizeof(buf), value);
		value = buf;
	}
	return k->type->parse(&l->p, k, table_base(l->section, part, l->c, l->probe), value, l->continuation);
}

static int ini_handler_cb(void *userdata, const char *section, const char *name, const char *value)
{
	struct loader *l = userdata;

	if (l->p.error)
		return 0;
	l->key_in_section = true;
	return loader_key(l, name, value) >= 0;
}

static int probe_new(struct loader *l, const char *label)
{
	struct config *c = l->c;
	struct probe_config *n;

	if (c->n_probes >= CONFIG_MAX_PROBES)
		return loader_fail(l, "too many [probe] sections, at most %d", CONFIG_MAX_PROBES);
	n = realloc(c->probes, (c->n_probes + 1) * sizeof(*n));
	if (!n)
		return config_oom(&l->p);
	c->probes = n;
	n = &c->probes[c->n_probes];
	*n = (struct probe_config) {
		.label = strdup(label),
		.file = strdup(l->name),
		.line = l->p.line,
		/* until the load ends; then [agent] stacks apply unless set here */
		.kernel_stack = c->kernel_stack,
		.user_stack = c->user_stack,
	};
	if (!n->label || !n->file) {
		config_probe_done(c, c->n_probes);
		return config_oom(&l->p);
	}
	return (int)c->n_probes++;
}

/* [probe NAME]: a drop-in may amend a probe of an earlier file, not repeat one. */
static int section_probe(struct loader *l, const char *label)
{
	int i;

	if (!*label)
		return loader_fail(l, "[probe] needs a name: [probe NAME]");
	if (!values_label_valid(label))
		return loader_fail(l, "invalid probe name \"%s\", expected up to %d of A-Z a-z 0-9 _ . : -",
				   label, VALUES_LABEL_MAX);
	i = config_probe_find(l->c, label);
	if (i >= 0 && l->probe_line[i])
		return loader_fail(l, "duplicate section [probe %s], first at line %u", label,
				   l->probe_line[i]);
	if (i < 0)
		i = probe_new(l, label);
	if (i < 0)
		return i;
	l->probe_line[i] = l->p.line;
	l->probe = (unsigned)i;
	l->section = table_probe();
	return 0;
}

/* [prbe foo], [agnet]: the section meant, if near enough. */
static int section_unknown(struct loader *l, const char *name)
{
	const char *names[_LAYER_MAX + 8], *hint; /* more than there are sections */
	size_t n = strcspn(name, WHITESPACE), k = 0;
	char word[16];

	if (name[n]) {
		if (n < sizeof(word)) {
			memcpy(word, name, n);
			word[n] = '\0';
			if (suggest_distance(word, "probe") <= SUGGEST_DISTANCE)
				return loader_fail(l, "unknown section [%s], did you mean [probe%s]?", name,
						   name + n);
		}
		return loader_fail(l, "unknown section [%s]", name);
	}
	for (const struct table_section *s = table_next(NULL); s && k < ELEMENTSOF(names); s = table_next(s))
		names[k++] = s->name;
	hint = suggest_name(name, names, k);
	if (hint && strcmp(hint, "probe") == 0)
		return loader_fail(l, "unknown section [%s], did you mean [probe NAME]?", name);
	if (hint)
		return loader_fail(l, "unknown section [%s], did you mean [%s]?", name, hint);
	return loader_fail(l, "unknown section [%s]", name);
}

static int section_enter(struct loader *l, char *name)
{
	size_t n;

	/* inih keeps blanks inside the brackets; [ agent ] means [agent] */
	name += strspn(name, WHITESPACE);
	n = strlen(name);
	while (n > 0 && isspace((unsigned char)name[n - 1]))
		name[--n] = '\0';
	snprintf(l->title, sizeof(l->title), "%s", name);

	if (strncmp(name, "probe", 5) == 0 && (!name[5] || isspace((unsigned char)name[5])))
		return section_probe(l, name + 5 + strspn(name + 5, WHITESPACE));
	l->section = table_find(name);
	return l->section ? 0 : section_unknown(l, name);
}

/*
 * Sees each line before inih does: tells key lines that continue a value
 * from the others and enters sections, with the same rules as inih
 * (comments first, then continuations, then "[...]").
 */
static int loader_classify(struct loader *l, char *line)
{
	char *s = line + strspn(line, WHITESPACE), *e, *rest;
	bool was_space = false;

	l->continuation = false;
	if (!*s || *s == ';' || *s == '#')
		return 0;
	if (l->key_in_section && s > line) {
		l->continuation = true;
		return 0;
	}
	if (*s != '[')
		return 0;
	for (e = s + 1; *e && *e != ']' && !(was_space && *e == ';'); e++)
		was_space = isspace((unsigned char)*e);
	if (*e != ']')
		return 0; /* inih reports the missing ']' */
	rest = e + 1 + strspn(e + 1, WHITESPACE);
	if (*rest && *rest != ';' && *rest != '#')
		return loader_fail(l, "unexpected text after the section header: \"%.*s\"",
				   (int)strcspn(rest, "\r\n"), rest);

	l->key_in_section = false;
	/* a copy: inih still has to see the line as it is */
	char name[256];
	snprintf(name, sizeof(name), "%.*s", (int)(e - s - 1), s + 1);
	return section_enter(l, name);
}

/* An fgets() for ini_parse_stream() over our buffer, one line per call. */
static char *loader_read(char *buf, int size, void *userdata)
{
	struct loader *l = userdata;
	const char *eol;
	size_t n;

	if (l->p.error || !*l->pos)
		return NULL;
	l->p.line++;
	eol = strchrnul(l->pos, '\n');
	n = (size_t)(eol - l->pos);
	/* inih needs room for "\r\n\0" past the text */
	if (size < 4 || n > (size_t)size - 3) {
		loader_fail(l, "line longer than %d characters; long lists can go on over indented lines",
			    size < 4 ? 0 : size - 3);
		return NULL;
	}
	memcpy(buf, l->pos, n);
	if (*eol)
		buf[n++] = '\n';
	buf[n] = '\0';
	l->pos = *eol ? eol + 1 : eol;

	/* inih only skips a BOM when it is built to; do it ourselves */
	if (l->p.line == 1 && strncmp(buf, "\xef\xbb\xbf", 3) == 0)
		memmove(buf, buf + 3, n - 3 + 1);

	if (loader_classify(l, buf) < 0)
		return NULL;
	return buf;
}

/* Keeps the first message of a load; the caller of config_load() says it. */
__attribute__((format(printf, 2, 3))) static void load_say(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->message)
		return;
	va_start(ap, fmt);
	if (vasprintf(&ld->message, fmt, ap) < 0)
		ld->message = NULL;
	va_end(ap);
}

static int loader_report(const struct loader *l)
{
	load_say(l->load, "%s:%u: %s", l->name, l->p.error_line, l->p.message);
	return l->p.error;
}

static int load_text(struct load *ld, const char *name, const char *text)
{
	struct loader *l;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l) {
		load_say(ld, "%s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	*l = (struct loader) {
		.load = ld,
		.c = ld->c,
		.name = name,
		.pos = text,
	};
#ifdef SMBLAT_INIH_MAX_LINE
	/* inih's line buffer holds the text and "\r\n\0"; loader_read() refuses longer lines */
	ini_max_line = CONFIG_LINE_MAX + 3;
#endif
	r = ini_parse_stream(loader_read, l, ini_handler_cb, l);
	if (l->p.error && (r <= 0 || l->p.error_line <= (unsigned)r))
		r = loader_report(l);
	else if (r > 0) {
		load_say(ld, "%s:%d: syntax error, expected [section] or key = value", name, r);
		r = -EINVAL;
	} else if (r < 0) {
		load_say(ld, "%s: %s", name, strerror(ENOMEM));
		r = -ENOMEM;
	}
	free(l);
	return r;
}

/* Reads all of f; NUL bytes would end the text early without a word. */
static int read_text(struct load *ld, FILE *f, const char *name, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, size = 0;

	for (;;) {
		size_t k;

		if (size - n < 4096) {
			char *nb;

			if (size >= FILE_MAX) {
				load_say(ld, "%s: larger than %u bytes, not a configuration file", name,
					 FILE_MAX);
				return -EFBIG;
			}
			size = size ? size * 2 : 8192;
			nb = realloc(buf, size + 1);
			if (!nb) {
				load_say(ld, "%s: %s", name, strerror(ENOMEM));
				return -ENOMEM;
			}
			buf = nb;
		}
		k = fread(buf + n, 1, size - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		int r = errno ?: EIO;

		load_say(ld, "%s: %s", name, strerror(r));
		return -r;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		unsigned line = 1;

		for (const char *p = buf; *p; p++)
			line += *p == '\n';
		load_say(ld, "%s:%u: NUL byte, not a text file", name, line);
		return -EINVAL;
	}
	*ret = buf;
	buf = NULL;
	return 0;
}

/* 0 when loaded, 1 when missing and missing_ok. */
static int load_file(struct load *ld, const char *path, bool missing_ok)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	int r;

	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		if (r == -ENOENT && missing_ok)
			return 1;
		load_say(ld, "%s: %m", path);
		return r;
	}
	if (fstat(fileno(f), &st) < 0) {
		r = -errno;
		load_say(ld, "%s: %m", path);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		load_say(ld, "%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	r = read_text(ld, f, path, &text);
	if (r < 0)
		return r;
	return load_text(ld, path, text);
}

static int dropin_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	/* dot files are editor and package manager leftovers */
	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
}

/* Byte order, not the locale's: the order of drop-ins must not depend on LANG. */
static int dropin_compare(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dropins(struct load *ld, const char *path)
{
	_cleanup_free_ char *dir = NULL;
	struct dirent **list = NULL;
	int n, r = 0;

	if (asprintf(&dir, "%s.d", path) < 0) {
		dir = NULL;
		load_say(ld, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	n = scandir(dir, &list, dropin_filter, dropin_compare);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		r = -errno;
		load_say(ld, "%s: %m", dir);
		return r;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (r >= 0 && asprintf(&p, "%s/%s", dir, list[i]->d_name) < 0) {
			p = NULL;
			load_say(ld, "%s: %s", dir, strerror(ENOMEM));
			r = -ENOMEM;
		}
		/* a directory that happens to end in .conf is not a drop-in */
		if (r >= 0 && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
			r = load_file(ld, p, false);
		free(list[i]);
	}
	free(list);
	return r < 0 ? r : 0;
}

static void load_start(struct load *ld, struct config *c)
{
	ld->c = c;
	ld->first_new_probe = c->n_probes;
}

/* The syscall of a syscall:NAME target, into buf; NULL for other targets. */
static const char *probe_syscall(const struct probe_config *p, char *buf, size_t n)
{
	const char *problem;
	struct target tg;
	bool sys;

	if (target_parse(p->target, &tg, &problem) < 0)
		return NULL;
	sys = tg.kind == TARGET_SYSCALL;
	if (sys)
		snprintf(buf, n, "%s", tg.symbol);
	target_done(&tg);
	return sys ? buf : NULL;
}

/* sys_enter/sys_exit serve every syscall probe, and the func layer takes one per syscall. */
static int check_syscall_probes(struct load *ld)
{
	const struct config *c = ld->c;
	char a[64], b[64];

	for (unsigned i = 1; i < c->n_probes; i++) {
		const struct probe_config *p = &c->probes[i];

		if (p->cli || !probe_syscall(p, a, sizeof(a)))
			continue;
		for (unsigned j = 0; j < i; j++) {
			const struct probe_config *q = &c->probes[j];
			bool here = q->file && p->file && strcmp(q->file, p->file) == 0;
			char at[PATH_MAX + 16];

			if (q->cli || !probe_syscall(q, b, sizeof(b)) || strcmp(a, b) != 0)
				continue;
			snprintf(at, sizeof(at), "%s%s%u",
				 here    ? "line " :
				 q->file ?:
					   "?",
				 here ? "" : ":", q->line);
			load_say(ld, "%s:%u: [probe %s] traces syscall:%s, as [probe %s] does (%s)", p->file,
				 p->line, p->label, a, q->label, at);
			return -EINVAL;
		}
	}
	return 0;
}

static int load_finish(struct load *ld)
{
	struct config *c = ld->c;

	for (unsigned i = 0; i < c->n_probes; i++) {
		struct probe_config *p = &c->probes[i];

		if (!p->target) {
			load_say(ld, "%s:%u: [probe %s] has no target, e.g. target = vfs_read", p->file,
				 p->line, p->label);
			return -EINVAL;
		}
		if (i < ld->first_new_probe)
			continue;
		if (!p->kernel_stack_set)
			p->kernel_stack = c->kernel_stack;
		if (!p->user_stack_set)
			p->user_stack = c->user_stack;
	}
	return check_syscall_probes(ld);
}

/* The message goes to the caller, or to stderr when it wants none back. */
static int load_end(struct load *ld, int r, char **error)
{
	if (r < 0 && !ld->message)
		load_say(ld, "%s", strerror(-r));
	if (r < 0 && error) {
		*error = ld->message;
		ld->message = NULL;
	} else if (r < 0) {
		fprintf(stderr, "%s\n", ld->message ? ld->message : strerror(-r));
	}
	free(ld->message);
	free(ld);
	return r;
}

int config_load(struct config *c, const char *path, bool missing_ok, char **error)
{
	struct load *ld = calloc(1, sizeof(*ld));
	int r;

	if (error)
		*error = NULL;
	if (!ld)
		return -ENOMEM;
	load_start(ld, c);
	r = load_file(ld, path, missing_ok);
	/* drop-ins apply even without the main file, as systemd's do */
	if (r >= 0)
		r = load_dropins(ld, path);
	if (r >= 0)
		r = load_finish(ld);
	return load_end(ld, r, error);
}

int config_load_string(struct config *c, const char *name, const char *text, char **error)
{
	struct load *ld;
	int r;

	if (error)
		*error = NULL;
	if (!text)
		return -EINVAL;
	ld = calloc(1, sizeof(*ld));
	if (!ld)
		return -ENOMEM;
	load_start(ld, c);
	r = load_text(ld, name ? name : "(string)", text);
	if (r >= 0)
		r = load_finish(ld);
	return load_end(ld, r, error);
}
