// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/target.h"
#include "config/values.h"

#define WHITESPACE " \t\n\r\v\f"

void target_done(struct target *t)
{
	free(t->object);
	free(t->symbol);
	free(t->provider);
	free(t->end);
	*t = (struct target) {};
}

static int fail(const char **problem, const char *what)
{
	*problem = what;
	return -EINVAL;
}

static bool identifier(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@$", s[i]))
			return false;
	return true;
}

/* Module or library names: dm-mod, stdc++. */
static bool object_name(const char *s, size_t n)
{
	return n && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+") >= n;
}

/* usdt:PATH:PROVIDER:START,END; PATH may hold colons, PROVIDER and the probes do not. */
static int parse_usdt(const char *s, struct target *t, const char **problem)
{
	const char *probes = strrchr(s, ':'), *prov, *comma;

	if (!probes || probes == s)
		return fail(problem, "is not usdt:PATH:PROVIDER:START,END");
	for (prov = probes - 1; prov > s && *prov != ':'; prov--)
		;
	if (*prov != ':' || prov == s)
		return fail(problem, "is not usdt:PATH:PROVIDER:START,END");
	comma = strchr(probes, ',');
	if (!comma || comma == probes + 1 || !comma[1] || strchr(comma + 1, ','))
		return fail(problem, "needs two USDT probes, entry and return: "
				     "usdt:PATH:PROVIDER:START,END");
	if (!identifier(prov + 1, probes - prov - 1) || !identifier(probes + 1, comma - probes - 1) ||
	    !identifier(comma + 1, strlen(comma + 1)))
		return fail(problem, "is not usdt:PATH:PROVIDER:START,END");
	t->kind = TARGET_USDT;
	t->object = strndup(s, prov - s);
	t->provider = strndup(prov + 1, probes - prov - 1);
	t->symbol = strndup(probes + 1, comma - probes - 1);
	t->end = strdup(comma + 1);
	return t->object && t->provider && t->symbol && t->end ? 0 : -ENOMEM;
}

static int parse_syscall(const char *s, struct target *t, const char **problem)
{
	if (!*s || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s))
		return fail(problem, "is not syscall:NAME");
	t->kind = TARGET_SYSCALL;
	t->symbol = strdup(s);
	return t->symbol ? 0 : -ENOMEM;
}

int target_parse(const char *s, struct target *t, const char **problem)
{
	const char *colon;
	int r;

	*t = (struct target) {};
	*problem = NULL;
	if (!s[0])
		return fail(problem, "is empty");
	if (strpbrk(s, WHITESPACE) || values_has_control(s))
		return fail(problem, "contains blanks or control characters");
	if (s[0] == ':' || s[strlen(s) - 1] == ':' || strstr(s, "::"))
		return fail(problem, "has an empty part around ':'");
	if (strncmp(s, "usdt:", 5) == 0)
		r = parse_usdt(s + 5, t, problem);
	else if (strncmp(s, "syscall:", 8) == 0)
		r = parse_syscall(s + 8, t, problem);
	else if (!(colon = strrchr(s, ':'))) {
		if (!identifier(s, strlen(s)))
			return fail(problem, "is not a function name");
		t->kind = TARGET_KERNEL;
		t->symbol = strdup(s);
		r = t->symbol ? 0 : -ENOMEM;
	} else {
		if (!identifier(colon + 1, strlen(colon + 1)))
			return fail(problem, "is not OBJECT:FUNCTION");
		/* a path, or a file name with .so in it, is user space for sure */
		if (memchr(s, '/', colon - s) || memmem(s, colon - s, ".so", 3))
			t->kind = TARGET_USER;
		else if (!object_name(s, colon - s))
			return fail(problem, "is not OBJECT:FUNCTION");
		else
			t->kind = TARGET_QUALIFIED;
		t->object = strndup(s, colon - s);
		t->symbol = strdup(colon + 1);
		r = t->object && t->symbol ? 0 : -ENOMEM;
	}
	if (r < 0)
		target_done(t);
	return r;
}
