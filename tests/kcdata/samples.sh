#!/bin/sh
# ktrace report on every kcdata conformance sample (xnu's libkdd test data): the
# --format json output parsed as JSON, and the --format plist output parsed as a
# property list, must equal libkdd's expected plist parsed as data (plistcmp.py);
# where libkdd's expected plist is XML, our plist must also be byte-identical to it.
# Then the error paths: truncated and corrupt buffers, stdin, base64 input.
. "$(dirname "$0")/../lib.sh"

DATA=${KTRACE_KCDATA_SAMPLES:-$SHARED/data/kcdata}
CMP="python3 $ROOT/tests/kcdata/plistcmp.py"

# the plan: 8 checks a sample (one more where libkdd's expected plist is XML), then 17
expected_plist() {   # sample: its expected plist, as text, in $TMP/exp.plist
	exp="$1.plist.gz"
	[ -f "$exp" ] || exp="$1.plist"
	case "$exp" in
	*.gz) gzip -dc "$exp" > "$TMP/exp.plist" ;;
	*) cp "$exp" "$TMP/exp.plist" ;;
	esac
}
nplan=17
for f in "$DATA"/*; do
	case "$f" in *.plist|*.plist.gz|*.md) continue ;; esac
	nplan=$((nplan + 8))
	expected_plist "$f" 2>/dev/null && head -c 6 "$TMP/exp.plist" | grep -q '<?xml' && nplan=$((nplan + 1))
done
plan $nplan

n=0
set --          # plistcmp.py --tap quadruples
counts=         # countitems.py --tap triples (names have no spaces)
for f in "$DATA"/*; do
	case "$f" in *.plist|*.plist.gz|*.md) continue ;; esac
	sname=$(basename "$f")
	exp="$f.plist.gz"
	[ -f "$exp" ] || exp="$f.plist"
	n=$((n + 1))
	o="$TMP/$n"
	check "json $sname: ktrace exits 0" sh -c "'$KTRACE' report --format json '$f' > '$o.json'"
	check "plist $sname: ktrace exits 0" sh -c "'$KTRACE' report --format plist '$f' > '$o.plist'"
	set -- "$@" "json $sname" "$exp" "$o.json" json "plist $sname" "$exp" "$o.plist" plist
	expected_plist "$f"
	if head -c 6 "$TMP/exp.plist" | grep -q '<?xml'; then
		check_same "plist text $sname" "$TMP/exp.plist" "$o.plist"
	fi
	check "text $sname" sh -c "'$KTRACE' report '$f' > '$TMP/out.txt' && test -s '$TMP/out.txt'"
	check "info $sname" sh -c "'$KTRACE' info '$f' | grep -q '^decodes: yes'"
	check "info --json $sname: ktrace exits 0" sh -c "'$KTRACE' info --json '$f' > '$o.info.json'"
	counts="$counts info-json-$sname $f $o.info.json"
done
# libkdd's expected plists against the outputs, and the item counts, in one Python each
checker $CMP --tap "$@"
checker python3 "$ROOT/tests/kcdata/countitems.py" --tap $counts
if [ "$n" -ge 10 ]; then ok "found $n samples"; else not_ok "found $n samples in $DATA"; fi

# The text view: a known value and a UUID shown as one.
S="$DATA/stackshot-sample-sharedcachev2"
check "text shows values" sh -c "'$KTRACE' report '$S' | grep -q '^kcdata_stackshot:'"

# Standard input, and base64 text of a gzip'd sample.
check "stdin" sh -c "cat '$DATA/nested-sample' | '$KTRACE' report --format json - | grep -q crashed_threadid"
base64 "$DATA/corpse-sample" > "$TMP/corpse.b64"
check "base64 of gzip" sh -c "'$KTRACE' report --format json '$TMP/corpse.b64' > '$TMP/b64.json' && $CMP '$DATA/corpse-sample.plist.gz' '$TMP/b64.json' json"

# A truncated buffer: what decodes is printed first (a whole document), then
# "ktrace: FILE: offset 0x...: ..." and exit status 1, in every format.
head -c 1000 "$DATA/stackshot-sample-aot" > "$TMP/trunc.kcdata"
"$KTRACE" report --format json "$TMP/trunc.kcdata" > "$TMP/trunc.out" 2> "$TMP/trunc.err"
status=$?
if [ $status -eq 1 ] && grep -q "^ktrace: $TMP/trunc.kcdata: offset 0x[0-9a-f]*: " "$TMP/trunc.err"; then
	ok "truncated buffer fails with an offset"
else
	not_ok "truncated buffer fails with an offset (status $status)"
	sed 's/^/#   /' "$TMP/trunc.err"
fi
zcat -f "$DATA/stackshot-sample" | head -c 1500 > "$TMP/cut.kcdata"
for fmt in text json plist; do
	"$KTRACE" report --format $fmt "$TMP/cut.kcdata" > "$TMP/cut.$fmt" 2> "$TMP/cut.err"
	status=$?
	check "truncated buffer, $fmt: exit 1 with the offset" sh -c "[ $status -eq 1 ] && grep -q 'offset 0x550: missing container end' '$TMP/cut.err'"
	check "truncated buffer, $fmt: the readable part printed" grep -q "osversion" "$TMP/cut.$fmt"
done
check "truncated buffer: the JSON is valid" python3 -m json.tool "$TMP/cut.json"
check "truncated buffer: the plist is valid XML" python3 -c "import plistlib, sys; plistlib.load(open(sys.argv[1], 'rb'))" "$TMP/cut.plist"
# Corrupt: an item size far beyond the end.
cp "$DATA/nested-sample" "$TMP/corrupt.kcdata"
printf '\377\377\377\177' | dd of="$TMP/corrupt.kcdata" bs=1 seek=52 conv=notrunc 2>/dev/null
"$KTRACE" report "$TMP/corrupt.kcdata" > /dev/null 2> "$TMP/corrupt.err"
if [ $? -eq 1 ] && grep -q 'offset 0x' "$TMP/corrupt.err"; then ok "corrupt buffer fails"; else not_ok "corrupt buffer fails"; cat "$TMP/corrupt.err"; fi
check "items listing of a corrupt buffer shows what it read" sh -c "'$KTRACE' report --format items '$TMP/corrupt.kcdata' 2>/dev/null | grep -q 'nested_kcdata'"
"$KTRACE" report --format yaml "$DATA/nested-sample" > /dev/null 2>&1
if [ $? -ne 0 ]; then ok "unknown format refused"; else not_ok "unknown format refused"; fi

# A compressed buffer (COMPRESSED magic, zlib stream) made outside ktrace from
# stackshot-sample's items: decodes to libkdd's plist of stackshot-sample.
check "compressed kcdata" sh -c "'$KTRACE' report --format json '$ROOT/tests/data/kcdata/compressed-stackshot-sample' > '$TMP/c.json' && $CMP '$DATA/stackshot-sample.plist.gz' '$TMP/c.json' json"
