#!/bin/sh
# The committed datasets (tests/data/eventfmt/*.tar.gz, cut by tools/make_dataset.py
# from traces recorded with tools/record_traces.sh): every record is formatted by us and
# by Debian's libtraceevent, and the comm, latency, event and raw texts must match.
. "$(dirname "$0")/../lib.sh"
EVDIFF="$ROOT/$B/tests/event/test_evdiff"
# two checks a dataset (as recorded, byte-swapped)
plan $((2 * $(ls "$ROOT"/tests/data/eventfmt/*.tar.gz | grep -vc '/seeds\.tar\.gz$')))
for t in "$ROOT"/tests/data/eventfmt/*.tar.gz; do
	name=$(basename "$t" .tar.gz)
	[ "$name" = seeds ] && continue
	if ! tar -xzf "$t" -C "$TMP"; then
		not_ok "$name: unpack"
		skip 1 "$name --swap" "not unpacked"
		continue
	fi
	# as recorded, then byte-swapped to big-endian records
	for swap in "" --swap; do
		"$EVDIFF" --quiet $swap "$TMP/$name" > "$TMP/$name.log" 2>&1
		if grep -q '^ok ' "$TMP/$name.log"; then
			ok "$name$swap: $(sed -n 's/^ok - [^:]*: //p' "$TMP/$name.log")"
		else
			not_ok "$name$swap"
			"$EVDIFF" --max-report 3 $swap "$TMP/$name" 2>&1 | grep -v '  0 differ' |
				head -30 | sed 's/^/#   /'
		fi
	done
done
