// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/flame.h"

#define XPAD 10
#define FONT 12
#define FRAME_H 16
#define MIN_WIDTH 0.1 /* narrower frames are not drawn */
#define TITLE_H (FONT * 3)
#define FOOT_H (FONT * 2 + 10)

struct node {
	char *name;
	uint64_t value;
	struct node **kids;
	size_t n, cap;
};

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->n; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

static struct node *child(struct node *n, const char *name, size_t len)
{
	struct node *c;

	for (size_t i = 0; i < n->n; i++)
		if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node **v = realloc(n->kids, cap * sizeof(*v));

		if (!v)
			return NULL;
		n->kids = v;
		n->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strndup(name, len))) {
		free(c);
		return NULL;
	}
	n->kids[n->n++] = c;
	return c;
}

static int insert(struct node *root, const char *stack, uint64_t value)
{
	struct node *n = root;

	root->value += value;
	for (const char *p = stack; *p;) {
		size_t len = strcspn(p, ";");

		if (len) {
			n = child(n, p, len);
			if (!n)
				return -ENOMEM;
			n->value += value;
		}
		p += len + (p[len] == ';');
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

/* Deepest level with a frame wide enough to be drawn. */
static unsigned int depth_of(struct node *n, double px_per_value, unsigned int d)
{
	unsigned int max = d;

	/* a leaf has no array at all, and qsort() wants one even for nothing */
	if (n->n)
		qsort(n->kids, n->n, sizeof(*n->kids), by_name);
	for (size_t i = 0; i < n->n; i++)
		if (n->kids[i]->value * px_per_value >= MIN_WIDTH) {
			unsigned int k = depth_of(n->kids[i], px_per_value, d + 1);

			if (k > max)
				max = k;
		}
	return max;
}

static void xml_put(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

/* flamegraph.pl's warm palette, fixed per name so that a frame keeps its colour. */
static void colour(const char *name, int rgb[3])
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	rgb[0] = 205 + (int)((h & 0xff) * 50 / 255);
	rgb[1] = (int)(((h >> 8) & 0xff) * 230 / 255);
	rgb[2] = (int)(((h >> 16) & 0xff) * 55 / 255);
}

struct layout {
	FILE *out;
	double px; /* pixels per unit of value */
	unsigned int height;
	uint64_t total;
	bool by_time;
};

static void frame(const struct layout *l, const struct node *n, uint64_t start, unsigned int depth)
{
	double x = XPAD + start * l->px, w = n->value * l->px;
	unsigned int y = l->height - FOOT_H - (depth + 1) * FRAME_H + 1;
	int rgb[3];

	colour(n->name, rgb);
	fputs("<g class=\"f\" data-name=\"", l->out);
	xml_put(l->out, n->name);
	fprintf(l->out, "\" data-x=\"%.2f\" data-w=\"%.2f\" data-fill=\"rgb(%d,%d,%d)\"><title>", x, w,
		rgb[0], rgb[1], rgb[2]);
	xml_put(l->out, n->name);
	fprintf(l->out, " (%" PRIu64 " %s, %.2f%%)</title>", n->value, l->by_time ? "us" : "calls",
		l->total ? 100.0 * n->value / l->total : 0);
	fprintf(l->out,
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\"></text></g>\n",
		x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2], x + 3, y + FRAME_H - 5.5);
}

static void frames(const struct layout *l, const struct node *n, uint64_t start, unsigned int depth)
{
	uint64_t at = start;

	frame(l, n, start, depth);
	for (size_t i = 0; i < n->n; i++) {
		if (n->kids[i]->value * l->px >= MIN_WIDTH)
			frames(l, n->kids[i], at, depth + 1);
		at += n->kids[i]->value;
	}
}

/*
 * The script: written for this file, in the spirit of flamegraph.pl's.
 * Frames carry their name and original box (data-*); zoom rescales the
 * boxes under the clicked one, search colours matches and sums their
 * share without counting nested matches twice.
 */
static const char script[] =
	"var details, matched, searchbtn, unzoombtn, svgw;\n"
	"var frames = function() { return document.querySelectorAll('g.f'); };\n"
	"function init() {\n"
	"  details = document.getElementById('details').firstChild;\n"
	"  matched = document.getElementById('matched');\n"
	"  searchbtn = document.getElementById('search');\n"
	"  unzoombtn = document.getElementById('unzoom');\n"
	"  svgw = +document.documentElement.getAttribute('width');\n"
	"  frames().forEach(function(g) { fit(g); });\n"
	"  var s = new URLSearchParams(document.location.search).get('s');\n"
	"  if (s) search(s);\n"
	"}\n"
	"function group(n) {\n"
	"  for (; n && n.classList; n = n.parentNode) if (n.classList.contains('f')) return n;\n"
	"  return null;\n"
	"}\n"
	"function fit(g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text'), name = "
	"g.getAttribute('data-name');\n"
	"  var w = +r.getAttribute('width'), chars = Math.floor((w - 6) / ("
	"12"
	" * 0.59));\n"
	"  t.setAttribute('x', +r.getAttribute('x') + 3);\n"
	"  t.textContent = chars < 3 ? '' : name.length <= chars ? name : name.substring(0, chars - 2) + "
	"'..';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect');\n"
	"  r.setAttribute('x', x); r.setAttribute('width', w); fit(g);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var zx = +z.getAttribute('data-x'), zw = +z.getAttribute('data-w');\n"
	"  var zy = +z.querySelector('rect').getAttribute('y'), k = (svgw - 2 * "
	"10"
	") / zw;\n"
	"  unzoombtn.style.opacity = 1;\n"
	"  frames().forEach(function(g) {\n"
	"    var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
	"    var y = +g.querySelector('rect').getAttribute('y');\n"
	"    if (y > zy && x <= zx + 0.01 && x + w >= zx + zw - 0.01) {\n"
	"      g.style.display = ''; g.style.opacity = 0.5; place(g, "
	"10"
	", svgw - 2 * "
	"10"
	");\n"
	"    } else if (y <= zy && x >= zx - 0.01 && x + w <= zx + zw + 0.01) {\n"
	"      g.style.display = ''; g.style.opacity = ''; place(g, "
	"10"
	" + (x - zx) * k, w * k);\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"  });\n"
	"}\n"
	"function unzoom() {\n"
	"  unzoombtn.style.opacity = 0;\n"
	"  frames().forEach(function(g) {\n"
	"    g.style.display = ''; g.style.opacity = '';\n"
	"    place(g, +g.getAttribute('data-x'), +g.getAttribute('data-w'));\n"
	"  });\n"
	"}\n"
	"function search(term) {\n"
	"  var re, spans = [], total = 0, sum = 0, end = -1;\n"
	"  try { re = new RegExp(term); } catch (e) { matched.textContent = 'bad regex'; return; }\n"
	"  frames().forEach(function(g) {\n"
	"    var r = g.querySelector('rect'), x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
	"    if (w > total) total = w;\n"
	"    if (re.test(g.getAttribute('data-name'))) {\n"
	"      r.setAttribute('fill', 'rgb(230,0,230)'); spans.push([x, w]);\n"
	"    } else {\n"
	"      r.setAttribute('fill', g.getAttribute('data-fill'));\n"
	"    }\n"
	"  });\n"
	"  spans.sort(function(a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  spans.forEach(function(s) { if (s[0] >= end - 0.001) { sum += s[1]; end = s[0] + s[1]; } });\n"
	"  matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + '%';\n"
	"  searchbtn.textContent = 'Reset Search';\n"
	"  searchbtn.setAttribute('data-on', '1');\n"
	"}\n"
	"function reset_search() {\n"
	"  frames().forEach(function(g) {\n"
	"    g.querySelector('rect').setAttribute('fill', g.getAttribute('data-fill'));\n"
	"  });\n"
	"  matched.textContent = ''; searchbtn.textContent = 'Search'; "
	"searchbtn.removeAttribute('data-on');\n"
	"}\n"
	"function search_prompt() {\n"
	"  if (searchbtn.getAttribute('data-on')) { reset_search(); return; }\n"
	"  var t = prompt('Search for (regular expression):', '');\n"
	"  if (t) search(t);\n"
	"}\n"
	"window.addEventListener('click', function(e) {\n"
	"  var g = group(e.target);\n"
	"  if (g) zoom(g);\n"
	"  else if (e.target.id === 'unzoom') unzoom();\n"
	"  else if (e.target.id === 'search') search_prompt();\n"
	"});\n"
	"window.addEventListener('mouseover', function(e) {\n"
	"  var g = group(e.target);\n"
	"  if (g) details.nodeValue = g.querySelector('title').textContent;\n"
	"});\n"
	"window.addEventListener('mouseout', function(e) { if (group(e.target)) details.nodeValue = ' '; "
	"});\n"
	"window.addEventListener('keydown', function(e) {\n"
	"  if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); search_prompt(); "
	"}\n"
	"});\n";

static void header(FILE *out, const struct flame_opts *o, unsigned int w, unsigned int h)
{
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" onload=\"init()\" "
		"xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		w, h, w, h);
	fprintf(out,
		"<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: %dpx; } #unzoom, #search { cursor: pointer; }\n"
		"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		FONT, FONT + 5, script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#bg)\"/>\n", w, h);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"%d\">", w / 2, FONT * 2);
	xml_put(out, o->title ? o->title : "Flame Graph");
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text x=\"%u\" y=\"%d\" style=\"text-anchor: middle; fill: rgb(96,96,96)\">",
			w / 2, FONT * 2 + FONT + 3);
		xml_put(out, o->subtitle);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"unzoom\" x=\"%d\" y=\"%d\" style=\"opacity: 0\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"%d\" style=\"text-anchor: end\">Search</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" style=\"text-anchor: end\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		XPAD, FONT * 2, w - XPAD, FONT * 2, w - XPAD, h - 17, XPAD, h - 17);
}

int flame_write(FILE *out, const struct folded *f, const struct flame_opts *o)
{
	struct node root = { .name = strdup("all") };
	unsigned int w = o->width ? o->width : 1200, h, depth;
	struct layout l = { .out = out, .by_time = o->by_time };
	int r = root.name ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < f->n; i++) {
		uint64_t v = o->by_time ? f->v[i].total_ns / 1000 : f->v[i].count;

		if (v)
			r = insert(&root, f->v[i].stack, v);
	}
	if (r < 0) {
		node_free(&root);
		return r;
	}
	l.total = root.value;
	l.px = root.value ? (double)(w - 2 * XPAD) / root.value : 0;
	depth = depth_of(&root, l.px, 0);
	h = TITLE_H + (o->subtitle ? FONT + 3 : 0) + (depth + 1) * FRAME_H + FOOT_H + FONT;
	l.height = h;
	header(out, o, w, h);
	fputs("<g id=\"frames\">\n", out);
	if (root.value)
		frames(&l, &root, 0, 0);
	else
		fprintf(out, "<text x=\"%u\" y=\"%u\" style=\"text-anchor: middle\">no stacks</text>\n",
			w / 2, h / 2);
	fputs("</g>\n</svg>\n", out);
	node_free(&root);
	return ferror(out) ? -EIO : 0;
}
