/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: smblat.conf text through config_load_string(). What
 * loads must dump to text that loads again into the same configuration.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/agent.h"
#include "fuzz.h"

static char *dump(const struct config *c)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		abort();
	config_dump(c, f);
	if (fclose(f) != 0)
		abort();
	return buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_report_init();
	/* the layers' sections, as the agent has them */
	if (agent_config_register() < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c, again;
	char *text, *first, *second;

	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	config_init(&c);
	if (config_load_string(&c, "fuzz.conf", text, NULL) == 0) {
		first = dump(&c);
		config_init(&again);
		if (config_load_string(&again, "dump.conf", first, NULL) != 0) {
			fail("config_dump output does not load:\n%s", first);
		}
		second = dump(&again);
		if (strcmp(first, second) != 0) {
			fail("dump changed on reload:\n%s---\n%s", first, second);
		}
		free(second);
		free(first);
		config_free(&again);
	}
	config_free(&c);
	free(text);
	return 0;
}
