/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The key table itself, every key of every section (the agent's and the
 * layers'): each has a parser and a printer, takes a value of its type
 * other than its default, dumps it so that the dump loads back to the same,
 * and, when a reload cannot apply it, is named and kept by the reload.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config-int.h"
#include "core/agent.h"

#include "check.h"

/* [probe NAME] has no instance without a target: the keys are tried on this one. */
#define PROBE_TEXT "[probe P]\ntarget = vfs_write\n"

static char *dump(const struct config *c)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		exit(EXIT_FAILURE);
	config_dump(c, f);
	if (fclose(f) != 0 || !text)
		exit(EXIT_FAILURE);
	return text;
}

/* k's line in the dump of c. */
static char *key_line(const struct table_section *s, unsigned part, const struct config_key *k,
		      const struct config *c)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		exit(EXIT_FAILURE);
	k->type->print(f, k, table_base(s, part, c, 0));
	fclose(f);
	return buf;
}

static int load(struct config *c, const char *text)
{
	char *error = NULL;
	int r;

	config_init(c);
	r = config_load_string(c, "t.conf", text, &error);
	free(error);
	return r;
}

/* "[smb]\nkey = v\n": the value v of k alone in its section. */
static char *text_of(const struct table_section *s, const struct config_key *k, const char *v)
{
	char *t;
	int r = s->probe ? asprintf(&t, PROBE_TEXT "%s = %s\n", k->name, v) :
			   asprintf(&t, "[%s]\n%s = %s\n", s->name, k->name, v);

	if (r < 0)
		exit(EXIT_FAILURE);
	return t;
}

/* The examples of k's type; an enum's are its names. */
static const char *example(const struct config_key *k, size_t i)
{
	if (k->type == &config_enum)
		return i < k->n_names ? k->names[i] : NULL;
	return k->type->examples ? k->type->examples[i] : NULL;
}

/*
 * Loads into c a value of k that is not its default (the line of the
 * defaults is def); returns that value, or NULL when no example is one.
 */
static const char *set_other(struct config *c, const struct table_section *s, unsigned part,
			     const struct config_key *k, const char *def)
{
	const char *v;

	for (size_t i = 0; (v = example(k, i)); i++) {
		char *t = text_of(s, k, v), *line = NULL;
		bool other = load(c, t) == 0 && strcmp(line = key_line(s, part, k, c), def) != 0;

		free(line);
		free(t);
		if (other)
			return v;
		config_free(c);
	}
	return NULL;
}

/* Every key has a name, a parser and a printer, once per section. */
static bool test_complete(void)
{
	bool complete = true;
	unsigned n = 0, part;

	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		struct table_iter it = { .s = s };
		const struct config_key *k;

		while ((k = table_key_next(&it))) {
			bool ok = k->name && k->type && k->type->parse && k->type->print;

			n++;
			check(ok, "[%s] %s: no parser or printer", s->name, k->name ? k->name : "(no name)");
			complete &= ok;
			check(!k->name || table_key(s, k->name, &part) == k, "[%s] has %s twice", s->name,
			      k->name);
		}
	}
	/* every layer with keys of its own has its section, named as it is */
	for (enum layer_id l = 0; l < _LAYER_MAX; l++)
		if (table_layer(l))
			check(table_find(layer_name(l)) && table_layer(l)->size <= CONFIG_SETTINGS_MAX,
			      "layer %s: its section", layer_name(l));
	check(n >= 40, "only %u keys in the table", n);
	return complete;
}

/* The dump of the defaults has every key's line, under its section. */
static void test_dump_lines(void)
{
	struct config d;
	char *dd;

	check(load(&d, PROBE_TEXT) == 0, "a probe with its target loads");
	dd = dump(&d);
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		struct table_iter it = { .s = s };
		const struct config_key *k;
		char head[64], *at;

		snprintf(head, sizeof(head), s->probe ? "\n[probe P]\n" : "\n[%s]\n", s->name);
		at = strstr(dd, head);
		check(at, "no %s in the dump", head);
		while (at && (k = table_key_next(&it))) {
			char *line = key_line(s, it.part, k, &d), *end = strstr(at + 1, "\n[");
			char *found = strstr(at, line);

			check(strncmp(line, k->name, strlen(k->name)) == 0 && line[strlen(k->name)] == ' ' &&
				      found && (!end || found < end),
			      "[%s] %s: its line \"%s\" is not in its section of the dump", s->name, k->name,
			      line);
			free(line);
		}
	}
	free(dd);
	config_free(&d);
}

/* Each key set to another value than its default: dumped, loaded back, the same. */
static void test_round_trip(void)
{
	struct config d, a, b;

	check(load(&d, PROBE_TEXT) == 0, "a probe with its target loads");
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		struct table_iter it = { .s = s };
		const struct config_key *k;

		while ((k = table_key_next(&it))) {
			char *def, *da, *db;
			const char *v;

			def = key_line(s, it.part, k, &d);
			v = set_other(&a, s, it.part, k, def);

			check(v, "[%s] %s: no example of its type loads as another value than \"%s\"",
			      s->name, k->name, def);
			free(def);
			if (!v)
				continue;
			da = dump(&a);
			check(load(&b, da) == 0, "[%s] %s = %s: the dump does not load:\n%s", s->name,
			      k->name, v, da);
			db = dump(&b);
			check(strcmp(da, db) == 0, "[%s] %s = %s: the dump changed when loaded:\n%s---\n%s",
			      s->name, k->name, v, da, db);
			free(da);
			free(db);
			config_free(&a);
			config_free(&b);
		}
	}
	config_free(&d);
}

/* "pid", "[block] disks": as the reload names them. */
static void restart_name(char *buf, size_t size, const struct table_section *s, const struct config_key *k)
{
	if (strcmp(s->name, "agent") == 0)
		snprintf(buf, size, "%s", k->name);
	else
		snprintf(buf, size, "[%s] %s", s->name, k->name);
}

/* One key changed in the file: named and kept when flagged, applied when not. */
static void test_restart_key(const struct table_section *s, unsigned part, const struct config_key *k)
{
	bool restart = k->flags & CONFIG_KEY_RESTART;
	struct config running, was, next;
	char changed[512], name[128], *def, *now, *line;
	const char *v;
	unsigned n;

	config_init(&running);
	config_init(&was);
	def = key_line(s, part, k, &running);
	v = set_other(&next, s, part, k, def);
	if (!v) { /* test_round_trip says so */
		free(def);
		return;
	}
	now = key_line(s, part, k, &next);
	n = config_restart_keep(&next, &running, &was, changed, sizeof(changed));
	restart_name(name, sizeof(name), s, k);
	check(n == restart && strcmp(changed, restart ? name : "") == 0,
	      "[%s] %s = %s changed: %u keys said, \"%s\"", s->name, k->name, v, n, changed);
	line = key_line(s, part, k, &next);
	check(strcmp(line, restart ? def : now) == 0, "[%s] %s = %s: after the reload %s", s->name, k->name,
	      v, line);
	free(line);
	/* the value not kept is the running configuration's now, freed with it */
	line = key_line(s, part, k, &running);
	check(strcmp(line, restart ? now : def) == 0, "[%s] %s = %s: the old configuration has %s", s->name,
	      k->name, v, line);
	free(line);
	free(now);
	free(def);
	config_free(&next);
	config_free(&running);
	config_free(&was);
}

static void test_restart(void)
{
	struct config running, was, next;
	char changed[512];
	unsigned flagged = 0;

	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		struct table_iter it = { .s = s };
		const struct config_key *k;

		while (!s->probe && (k = table_key_next(&it))) {
			flagged += !!(k->flags & CONFIG_KEY_RESTART);
			test_restart_key(s, it.part, k);
		}
	}
	check(flagged >= 16, "only %u keys need a restart", flagged);

	/* what the command line set (pid) is no change of the file, and stays */
	check(load(&was, "[agent]\npid = 3\n") == 0, "pid = 3 loads");
	check(load(&running, "[agent]\npid = 3\n") == 0, "pid = 3 loads");
	running.pid = 42;
	check(load(&next, "[agent]\npid = 3\n") == 0, "pid = 3 loads");
	check(config_restart_keep(&next, &running, &was, changed, sizeof(changed)) == 0 && !changed[0],
	      "the command line's pid said to change: %s", changed);
	check(next.pid == 42, "the command line's pid not kept: %u", next.pid);
	config_free(&was);
	config_free(&running);
	config_free(&next);

	/* several at once, in the order of the tables */
	config_init(&was);
	config_init(&running);
	check(load(&next, "[smbd]\nbinary = /x/smbd\n[agent]\ncomm = x\n[block]\nqueue_time = yes\n") == 0,
	      "three restart keys load");
	check(config_restart_keep(&next, &running, &was, changed, sizeof(changed)) == 3,
	      "not three changed: %s", changed);
	check(strcmp(changed, "comm, [block] queue_time, [smbd] binary") == 0, "%s", changed);
	config_free(&was);
	config_free(&running);
	config_free(&next);
}

int main(void)
{
	check(agent_config_register() == 0, "the layers' sections do not register");
	/* the rest print every key */
	if (!test_complete())
		return check_done("keys");
	test_dump_lines();
	test_round_trip();
	test_restart();
	return check_done("keys");
}
