#!/bin/sh
# Runs bench_koff; when it was built with lttng-ust and the lttng tools are there,
# inside a snapshot-mode (flight recorder) session that records its tracepoint (a
# session daemon started here is stopped again at the end).
bin=$1 n=${2:-2000000}
session="" sessiond=""
if command -v lttng >/dev/null 2>&1 && nm "$bin" 2>/dev/null | grep -q lttng_ust; then
	if ! pgrep -x lttng-sessiond >/dev/null 2>&1 &&
	   lttng-sessiond --daemonize >/dev/null 2>&1; then
		sessiond=$(pgrep -x -n lttng-sessiond)
	fi
	session=koffbench$$
	if lttng create "$session" --snapshot >/dev/null 2>&1 &&
	   lttng enable-event -u 'koff_bench:*' -s "$session" >/dev/null 2>&1 &&
	   lttng start "$session" >/dev/null 2>&1; then
		echo "(lttng-ust session $session, snapshot mode)"
	else
		echo "(could not set up an lttng session: the lttng-ust figure measures a disabled tracepoint)"
	fi
fi
"$bin" "$n"
status=$?
[ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
[ -n "$sessiond" ] && kill "$sessiond" 2>/dev/null
exit $status
