#!/bin/sh
# Runs bench_koff; when it was built with lttng-ust and the lttng tools are there,
# inside a snapshot-mode (flight recorder) session that records its tracepoint.
bin=$1 n=${2:-2000000}
session=""
if command -v lttng >/dev/null 2>&1 && nm "$bin" 2>/dev/null | grep -q lttng_ust; then
	pgrep -x lttng-sessiond >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null 2>&1
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
exit $status
