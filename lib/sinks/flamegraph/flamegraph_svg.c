// SPDX-License-Identifier: MIT
/*
 * The SVG of `ktrace flamegraph`: one self-contained file (its styles and script inside,
 * nothing fetched) that a browser opens from disk. The root "all" at the bottom, each
 * frame a box as wide as its share of the weight, its children on top of it in name
 * order. Each box is a group <g class="f" data-x data-w data-d> (its start and weight in
 * the weight's own unit, its depth) holding a <title> ("NAME" and, on a second line,
 * "TIME (P% of all)"), the <rect> and the <text> of its name cut to fit. The script
 * shows the hovered frame's title on the line at the bottom (#details), zooms into a
 * clicked frame (its ancestors stay below it, dimmed, as wide as the picture) and back
 * out with "Reset zoom" or a click on "all". Frames narrower than 1/20000 of the
 * whole are not drawn (their weight stays in their parent's box).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/outbuf.h"
#include "sinks/flamegraph/flamegraph_int.h"

#define W 1200
#define PAD 10
#define FH 16
#define TOP 52
#define BOTTOM 28
#define MIN_SHARE 20000      /* frames of at least 1/MIN_SHARE of the whole are drawn */
#define CHAR_W 7.0

static const char script[] =
"(function () {\n"
"  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  var details = document.getElementById('details');\n"
"  var reset = document.getElementById('reset');\n"
"  var uw = fg.w - 2 * fg.pad;\n"
"  function name(g) { return g.querySelector('title').textContent.split('\\n')[0]; }\n"
"  function place(g, x, w) {\n"
"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"    var n = name(g), fit = Math.floor((w - 6) / fg.cw);\n"
"    r.setAttribute('x', x.toFixed(2));\n"
"    r.setAttribute('width', Math.max(w - 0.5, 0.1).toFixed(2));\n"
"    t.setAttribute('x', (x + 3).toFixed(2));\n"
"    t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.slice(0, fit - 2) + '..';\n"
"  }\n"
"  function zoom(g) {\n"
"    var zx = +g.getAttribute('data-x'), zw = +g.getAttribute('data-w');\n"
"    var zd = +g.getAttribute('data-d');\n"
"    frames.forEach(function (f) {\n"
"      var x = +f.getAttribute('data-x'), w = +f.getAttribute('data-w');\n"
"      var d = +f.getAttribute('data-d'), show;\n"
"      if (d < zd) {\n"
"        show = x <= zx && x + w >= zx + zw;\n"
"        if (show) place(f, fg.pad, uw);\n"
"      } else {\n"
"        show = x >= zx && x + w <= zx + zw && w / zw * uw >= 0.1;\n"
"        if (show) place(f, fg.pad + (x - zx) / zw * uw, w / zw * uw);\n"
"      }\n"
"      f.style.display = show ? '' : 'none';\n"
"      f.setAttribute('class', d < zd ? 'f up' : 'f');\n"
"    });\n"
"    reset.style.display = zd > 0 ? '' : 'none';\n"
"  }\n"
"  function frameOf(e) {\n"
"    for (var n = e.target; n && n.getAttribute; n = n.parentNode)\n"
"      if (n.getAttribute('class') && /^f( |$)/.test(n.getAttribute('class'))) return n;\n"
"    return null;\n"
"  }\n"
"  document.documentElement.addEventListener('mouseover', function (e) {\n"
"    var g = frameOf(e);\n"
"    if (g) details.textContent = g.querySelector('title').textContent.replace('\\n', ': ');\n"
"  });\n"
"  document.documentElement.addEventListener('mouseout', function (e) {\n"
"    if (frameOf(e)) details.textContent = ' ';\n"
"  });\n"
"  document.documentElement.addEventListener('click', function (e) {\n"
"    var g = frameOf(e);\n"
"    if (g) zoom(g);\n"
"  });\n"
"  reset.addEventListener('click', function (e) { e.stopPropagation(); zoom(frames[0]); });\n"
"})();\n";

static void esc(struct ktrace_out *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '&')
			kt_out_puts(out, "&amp;");
		else if (c == '<')
			kt_out_puts(out, "&lt;");
		else if (c == '>')
			kt_out_puts(out, "&gt;");
		else if (c == '"')
			kt_out_puts(out, "&quot;");
		else if (c < 0x20 || c >= 0x7f)
			kt_out_putc(out, '?');
		else
			kt_out_putc(out, (char)c);
	}
}

/* The weight as the reader reads it: a time (ns) or a number of stacks. */
static void weight_text(char *buf, size_t len, uint64_t v, bool on_cpu)
{
	if (on_cpu)
		snprintf(buf, len, "%" PRIu64 " stack%s", v, v == 1 ? "" : "s");
	else if (v < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", v);
	else if (v < 1000000)
		snprintf(buf, len, "%.3f us", (double)v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, len, "%.3f ms", (double)v / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)v / 1e9);
}

static uint32_t hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void fill(char *buf, size_t len, const struct kt_str *name, uint32_t depth, bool on_cpu)
{
	uint32_t h = hash_name(name->s, name->len);
	unsigned a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	if (depth == 0 || !strcmp(name->s, "[no stack]"))
		snprintf(buf, len, "rgb(%u,%u,%u)", 190 + a % 30, 190 + a % 30, 190 + a % 30);
	else if (depth == 1)   /* threads */
		snprintf(buf, len, "rgb(%u,%u,%u)", 90 + a % 60, 170 + b % 70, 90 + c % 60);
	else if (on_cpu)
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + a % 50, 60 + b % 170, c % 60);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", a % 80, 110 + b % 100, 200 + c % 56);
}

int fg_write_svg(const struct fg *g, const struct fg_tree *t, bool on_cpu, const char *title,
		 struct ktrace_out *out)
{
	uint64_t total = t->n ? t->v[0].value : 0;
	/* value * MIN_SHARE >= total, without overflow */
	uint64_t least = total / MIN_SHARE + (total % MIN_SHARE != 0);
	uint32_t depth = 0;
	double uw = W - 2 * PAD;
	unsigned height;
	char wt[64], col[32];

	/* the deepest frame drawn */
	for (size_t i = 0; i < t->n; i++)
		if (total && t->v[i].value >= least && t->v[i].depth > depth)
			depth = t->v[i].depth;
	height = TOP + (depth + 1) * FH + BOTTOM;
	kt_out_printf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%u\" "
		"viewBox=\"0 0 %d %u\">\n", W, height, W, height);
	kt_out_puts(out,
		"<style>\n"
		"text { font-family: monospace; font-size: 11px; fill: #000; }\n"
		"#title { font-size: 16px; text-anchor: middle; }\n"
		"#reset { cursor: pointer; fill: #06c; }\n"
		"g.f { cursor: pointer; }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		"g.up { opacity: 0.55; }\n"
		"</style>\n");
	kt_out_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f8f8f8\"/>\n", W, height);
	kt_out_printf(out, "<text id=\"title\" x=\"%d\" y=\"24\">", W / 2);
	esc(out, title, strlen(title));
	kt_out_puts(out, "</text>\n");
	weight_text(wt, sizeof(wt), total, on_cpu);
	kt_out_printf(out, "<text x=\"%d\" y=\"42\">%s: %s. Hover a frame for its %s, click to zoom.</text>\n",
		      PAD, on_cpu ? "Stacks" : "Time switched out", wt, on_cpu ? "stacks" : "time");
	kt_out_printf(out, "<text id=\"reset\" x=\"%d\" y=\"42\" style=\"display:none\" "
		      "text-anchor=\"end\">Reset zoom</text>\n", W - PAD);
	kt_out_printf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", PAD, height - 10);
	if (!total)
		kt_out_printf(out, "<text x=\"%d\" y=\"%u\">no stacks</text>\n", PAD, TOP + FH - 4);
	kt_out_puts(out, "<g id=\"frames\">\n");
	for (size_t i = 0; total && i < t->n; i++) {
		const struct fg_node *n = &t->v[i];
		const struct kt_str *name = &g->strs.strs[n->name];
		double x = PAD + (double)n->x / (double)total * uw;
		double w = (double)n->value / (double)total * uw;
		unsigned y = TOP + (depth - n->depth) * FH;
		int fit = (int)((w - 6) / CHAR_W);

		if (n->value < least)
			continue;
		weight_text(wt, sizeof(wt), n->value, on_cpu);
		fill(col, sizeof(col), name, n->depth, on_cpu);
		kt_out_printf(out, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\"><title>",
			      n->x, n->value, n->depth);
		esc(out, name->s, name->len);
		kt_out_printf(out, "\n%s (%.2f%% of all)</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" "
			      "height=\"%d\" rx=\"2\" fill=\"%s\"/><text x=\"%.2f\" y=\"%u\">",
			      wt, (double)n->value * 100.0 / (double)total, x, y, w > 0.6 ? w - 0.5 : 0.1,
			      FH - 1, col, x + 3, y + FH - 4);
		if (fit >= 3) {
			if ((size_t)fit >= name->len) {
				esc(out, name->s, name->len);
			} else {
				esc(out, name->s, (size_t)fit - 2);
				kt_out_puts(out, "..");
			}
		}
		kt_out_puts(out, "</text></g>\n");
	}
	kt_out_puts(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	kt_out_printf(out, "var fg = { total: %" PRIu64 ", w: %d, pad: %d, cw: %.1f };\n", total, W, PAD,
		      CHAR_W);
	kt_out_puts(out, script);
	kt_out_puts(out, "]]></script>\n</svg>\n");
	return 0;
}
