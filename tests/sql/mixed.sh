# Several inputs of different formats in one `ktrace sql` and one `export --format
# sqlite`: for every ordered pair of formats (trace.dat, raw pages, Darwin, KOFF), each
# input's row of `trace`, its event count and its thread count are what the input gives
# read alone.
. "$(dirname "$0")/../lib.sh"

E="$ROOT/examples"
set -- "$E/sched_demo.dat" "$E/sched_cpu0.trace_pipe_raw" "$E/coreprofilesessiontap.bin" "$E/koff-odm"
plan $(( $# * ($# - 1) * 2 ))
Q="select t.path, t.format, t.hostname, t.machine, t.kernel_release, t.clock, t.cpus,
	t.start_ts, t.end_ts, t.events, t.lost,
	(select count(*) from event e where e.trace_id = t.trace_id),
	(select count(*) from thread h where h.trace_id = t.trace_id),
	(select count(*) from process p where p.trace_id = t.trace_id)
	from trace t order by t.path"
# per input alone: its row
for f in "$@"; do
	"$KTRACE" sql "$f" "$Q" | tail -n +2 >"$TMP/alone.$(basename "$f")" || not_ok "sql $f alone"
done
for a in "$@"; do
	for b in "$@"; do
		[ "$a" = "$b" ] && continue
		cat "$TMP/alone.$(basename "$a")" "$TMP/alone.$(basename "$b")" | sort >"$TMP/want"
		"$KTRACE" sql "$a" "$b" "$Q" | tail -n +2 | sort >"$TMP/got"
		check_same "sql $(basename "$a") $(basename "$b"): each input as alone" "$TMP/want" "$TMP/got"
		rm -f "$TMP/m.sqlite"
		"$KTRACE" export --format sqlite -o "$TMP/m.sqlite" "$a" "$b" 2>"$TMP/err" ||
			{ not_ok "export $(basename "$a") $(basename "$b")"; cat "$TMP/err"; continue; }
		sqlite3 -separator '	' "$TMP/m.sqlite" "$Q" | sort >"$TMP/got"
		check_same "export sqlite $(basename "$a") $(basename "$b"): each input as alone" "$TMP/want" "$TMP/got"
	done
done
