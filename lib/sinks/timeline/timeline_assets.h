/* SPDX-License-Identifier: MIT */
/*
 * The timeline page's own script and styles (lib/sinks/timeline/page.js, page.css),
 * embedded at build time by the Makefile as C strings (build/gen/timeline_assets.c).
 */
#ifndef KTRACE_VIEWS_TIMELINE_ASSETS_H
#define KTRACE_VIEWS_TIMELINE_ASSETS_H

extern const char tl_asset_page_js[];
extern const char tl_asset_page_css[];

#endif
