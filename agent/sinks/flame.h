/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flame graphs as interactive SVG, the way flamegraph.pl draws them: one
 * box per frame, as wide as its share, callers below callees; a title,
 * tooltips and a details line, click to zoom, and a search (also from the
 * URL: flame.svg?s=REGEX) that colours what matches and says what share it
 * has. Standalone: the SVG carries its script, a browser needs nothing else.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "base/folded.h"

struct flame_opts {
	const char *title;
	const char *subtitle; /* NULL: none */
	bool by_time;         /* widths by latency (microseconds), else by calls */
	unsigned int width;   /* pixels, 0: 1200 */
};

/* Writes f as an SVG document to out; -ENOMEM, -EIO. An empty f gives a picture saying so. */
int flame_write(FILE *out, const struct folded *f, const struct flame_opts *o);
