#!/bin/sh
# ktrace top's full screen in tmux: the screen shows a CPU-bound process with a known
# name; the keys s (sort), p (pause) change the screen; q, SIGTERM, SIGHUP and closing
# the tmux window each end it with tracefs exactly as found (tracing_on, set_event,
# buffer sizes, current_tracer, clock; no instance left).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.inc"
CHECKS="screen-shows-spinner keys-sort-pause quit-q tracefs-after-q quit-sigterm
tracefs-after-sigterm quit-sighup tracefs-after-sighup quit-kill-window tracefs-after-kill-window"
plan "$(echo $CHECKS | wc -w)"
skip_all() {
	for c in $CHECKS; do echo "ok - $c # SKIP $1"; done
	exit 0
}
command -v tmux >/dev/null || skip_all "tmux is not installed"
[ "$(id -u)" = 0 ] || skip_all "not root"
[ -e $T/tracing_on ] || skip_all "tracefs is not mounted at $T"
[ -d $T/instances ] || skip_all "no tracefs instances"
tracefs_lock
# (the server's socket in TMP, removed with it: -L would leave one in /tmp/tmux-UID)
SOCK="$TMP/tmux"
tm() { tmux -S "$SOCK" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	top_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM
tracefs_snap >"$TMP/before"
spin_start

# start_top: ktrace top in a new tmux window of 120x40; its pid in TOP
start_top() {
	tm kill-server 2>/dev/null
	tm new-session -d -x 120 -y 40 "exec '$KTRACE' top -d 0.5 2>'$TMP/top.err'"
	TOP=$(tm display-message -p '#{pane_pid}')
}
# wait_screen PATTERN: until the screen shows it (20 s at most)
wait_screen() {
	i=0
	while [ $i -lt 100 ]; do
		tm capture-pane -p >"$TMP/screen" 2>/dev/null
		grep -q -- "$1" "$TMP/screen" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
# ended: the top process is gone (10 s at most)
ended() {
	i=0
	while [ $i -lt 50 ]; do
		kill -0 "$TOP" 2>/dev/null || return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
as_found() {
	tracefs_snap >"$TMP/after"
	check_same "$1" "$TMP/before" "$TMP/after"
}

start_top
if wait_screen " $SPIN "; then ok screen-shows-spinner; else
	not_ok screen-shows-spinner; sed 's/^/#   /' "$TMP/screen" "$TMP/top.err" | head -20; fi
# s: the sort named on the first line changes; p: paused says so
st=0
tm send-keys s
wait_screen "sort: latency" || st=1
tm send-keys p
wait_screen "PAUSED" || st=1
tm send-keys p
if [ $st = 0 ]; then ok keys-sort-pause; else not_ok keys-sort-pause; head -3 "$TMP/screen" | sed 's/^/#   /'; fi
tm send-keys q
if ended; then ok quit-q; else not_ok quit-q; kill -KILL "$TOP" 2>/dev/null; fi
as_found tracefs-after-q

for how in sigterm sighup; do
	start_top
	wait_screen "interval" >/dev/null
	if [ $how = sigterm ]; then kill -TERM "$TOP"; else kill -HUP "$TOP"; fi
	if ended; then ok quit-$how; else not_ok quit-$how; kill -KILL "$TOP" 2>/dev/null; fi
	as_found tracefs-after-$how
done

start_top
wait_screen "interval" >/dev/null
tm kill-window
if ended; then ok quit-kill-window; else not_ok quit-kill-window; kill -KILL "$TOP" 2>/dev/null; fi
as_found tracefs-after-kill-window
