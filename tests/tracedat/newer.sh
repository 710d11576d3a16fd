#!/bin/sh
# Files of trace-cmd 3.4 (2026), which Debian's 3.1.6 cannot write: made by
# tools/tc34gen.py from 3.4's file format (BTF and modules sections, LAST_BOOT_INFO, an
# option id nobody knows, function-graph records with arguments and return values).
#  - info: the new options by name, their sizes and summary (text and --json), the
#    unknown one skipped with a warning naming its offset;
#  - report: the function-graph lines trace-cmd 3.4 prints, checked against the texts
#    the generator holds (written by hand from 3.4's rules, not by ktrace); with the 3.4
#    additions taken out, the lines trace-cmd 3.1.6 prints for the same file, and
#    exactly its lines for a file without arguments, return values or BTF;
#  - convert and split: the BTF and modules bytes carried (tools/kfiles.py reads them
#    without ktrace: sections in compressed version 7 files, ktrace's own options
#    elsewhere), the report unchanged, trace-cmd 3.1.6 reading the outputs as the source;
#  - a BTF option naming another section, a damaged BTF block: exit 1 and the offset.
. "$(dirname "$0")/../lib.sh"
TOOLS="$ROOT/tests/tracedat/tools"
GEN="$TOOLS/tc34gen.py"
echo "1..36"

have_tc=
command -v trace-cmd >/dev/null 2>&1 && have_tc=1
skip() { echo "ok - $1 # SKIP trace-cmd 3.1.6 is not installed"; }

# the function-graph text of a report: what follows the duration column
fgtext() { tail -n +2 "$1" | sed 's/^.*|  *//'; }
# a report without what trace-cmd 3.4 adds to 3.1.6's lines: " (ret=...)" at the end,
# the arguments between a function's parentheses
strip34() { sed -E 's/ \(ret=[^)]*\)$//; s/\|( +)([^ (]+)\(.*\)(;| \{)$/|\1\2()\3/' "$1"; }

# ---- the files
gen_ok=1
for v in "a" "z --compression zlib" "nobtf --no-btf" "noargs --no-args" \
	"noboth --no-btf --no-args" "noret --no-retval" "old --no-btf --no-retval --no-args"; do
	set -- $v
	n=$1; shift
	python3 "$GEN" "$@" "$TMP/$n.dat" "$TMP/$n.exp" >"$TMP/gen.log" 2>&1 || gen_ok=
done
if [ -n "$gen_ok" ]; then ok "tc34gen.py makes the files"; else not_ok "tc34gen.py makes the files"; sed 's/^/#   /' "$TMP/gen.log"; fi
# sizes computed by the generator's own code, not by ktrace
eval "$(python3 -c "
import sys
sys.path.insert(0, '$TOOLS')
import tc34gen as t
print('BTF_SIZE=%d MOD_SIZE=%d LB_SIZE=%d' % (len(t.make_btf()), len(t.MODULES), len(t.LAST_BOOT) - len(b'boot_mapped:')))
")"

# ---- info
"$KTRACE" info "$TMP/a.dat" >"$TMP/info" 2>"$TMP/info.err"
st=$?
check "info: exit 0, nothing on stderr" sh -c "[ $st -eq 0 ] && [ ! -s '$TMP/info.err' ]"
check "info: the BTF and modules sizes, modules loaded" \
	grep -qx "Kernel files:      BTF $BTF_SIZE bytes, modules $MOD_SIZE bytes (2 loaded)" "$TMP/info"
check "info: the last boot info of its instance" \
	grep -qx "Last boot info:    instance \"boot_mapped\", $LB_SIZE bytes, 2 lines: 39000000 \[kernel\] \.\.\." "$TMP/info"
if [ -n "$have_tc" ]; then
	# the count is trace-cmd's; the names, every id the generator wrote
	n=$(trace-cmd dump --summary -i "$TMP/a.dat" 2>/dev/null | sed -n 's/^\t\[\([0-9]*\) options\]$/\1/p')
	check "info: the options line names every option, the unknown one by its id" \
		grep -qx "Options:           $n (BTF_FILE, BUFFER, CMDLINES, CPUCOUNT, DONE x2, EVENT_FORMATS, FTRACE_EVENTS, HEADER_INFO, KALLSYMS, LAST_BOOT_INFO, MODULES_FILE, PRINTK, TRACECLOCK, UNAME, VERSION, unknown 200)" "$TMP/info"
else
	skip "info: the options line names every option, the unknown one by its id"
fi
check "info: the unknown option skipped with a warning naming its offset" \
	grep -qx "Warning:           offset 0x[0-9a-f]*: unknown option 200 (8 bytes) skipped" "$TMP/info"
"$KTRACE" info --json "$TMP/a.dat" >"$TMP/a.json" 2>&1
"$KTRACE" info --json "$TMP/z.dat" >"$TMP/z.json" 2>&1
check "info --json: btf_size, modules_size, modules, last_boot_info, option_list" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['btf_size'] == $BTF_SIZE and d['modules_size'] == $MOD_SIZE and d['modules'] == 2, d
assert d['last_boot_info'] == [{'instance': 'boot_mapped', 'text': '39000000\t[kernel]\nffffffffc00ca000\tusb_serial_simple\n'}], d['last_boot_info']
names = {(o['id'], o['name']) for o in d['option_list']}
for want in ((23, 'BTF_FILE'), (24, 'LAST_BOOT_INFO'), (25, 'MODULES_FILE'), (200, None)):
    assert want in names, (want, names)
assert any('unknown option 200' in w for w in d['warnings']), d['warnings']
" "$TMP/a.json"
check "info --json: the zlib file says the same" python3 -c "
import json, sys
a, z = (json.load(open(f)) for f in sys.argv[1:])
for k in ('btf_size', 'modules_size', 'modules', 'last_boot_info', 'events'):
    assert a[k] == z[k], (k, a[k], z[k])
assert z['compression'] == 'zlib'
" "$TMP/a.json" "$TMP/z.json"

# ---- report: trace-cmd 3.4's function-graph lines
for n in a z nobtf noargs noboth noret old; do
	"$KTRACE" report "$TMP/$n.dat" >"$TMP/$n.kt" 2>"$TMP/$n.kterr"
	st=$?
	fgtext "$TMP/$n.kt" >"$TMP/$n.got"
	if [ $st -eq 0 ] && [ ! -s "$TMP/$n.kterr" ] && [ -s "$TMP/$n.exp" ] && cmp -s "$TMP/$n.exp" "$TMP/$n.got"; then
		ok "report $n: the function-graph lines of trace-cmd 3.4"
	else
		not_ok "report $n: the function-graph lines of trace-cmd 3.4 (exit $st)"
		diff "$TMP/$n.exp" "$TMP/$n.got" | head -10 | sed 's/^/#   /'
		head -3 "$TMP/$n.kterr" | sed 's/^/#   /'
	fi
done

# ---- against trace-cmd 3.1.6, which reads these files but prints none of the additions
if [ -n "$have_tc" ]; then
	for n in a noargs; do
		trace-cmd report "$TMP/$n.dat" >"$TMP/$n.tc" 2>"$TMP/$n.tcerr"
		strip34 "$TMP/$n.kt" >"$TMP/$n.stripped"
		if [ -s "$TMP/$n.tc" ] && [ ! -s "$TMP/$n.tcerr" ] && cmp -s "$TMP/$n.tc" "$TMP/$n.stripped"; then
			ok "report $n without the 3.4 additions: trace-cmd 3.1.6's report"
		else
			not_ok "report $n without the 3.4 additions: trace-cmd 3.1.6's report"
			diff "$TMP/$n.tc" "$TMP/$n.stripped" | head -10 | sed 's/^/#   /'
			head -3 "$TMP/$n.tcerr" | sed 's/^/#   /'
		fi
	done
	trace-cmd report "$TMP/old.dat" >"$TMP/old.tc" 2>/dev/null
	check "report of a file without arguments, return values or BTF: trace-cmd 3.1.6's, exactly" \
		sh -c "[ -s '$TMP/old.tc' ] && cmp '$TMP/old.tc' '$TMP/old.kt'"
else
	skip "report a without the 3.4 additions: trace-cmd 3.1.6's report"
	skip "report noargs without the 3.4 additions: trace-cmd 3.1.6's report"
	skip "report of a file without arguments, return values or BTF: trace-cmd 3.1.6's, exactly"
fi

# ---- convert carries them
python3 "$TOOLS/kfiles.py" "$TMP/a.dat" | awk '{print $1, $NF}' >"$TMP/a.kf" 2>&1
for v in "6 none option KTRACE_BTF/_MODULES options" "7 none option KTRACE_BTF/_MODULES options" \
	"7 zstd section BTF_FILE/MODULES_FILE sections" "7 zlib section BTF_FILE/MODULES_FILE sections"; do
	set -- $v
	out="$TMP/c$1$2.dat"
	"$KTRACE" convert -q -i "$TMP/a.dat" -o "$out" --file-version "$1" --compression "$2" >"$TMP/conv.log" 2>&1
	st=$?
	"$KTRACE" report "$out" >"$TMP/c.kt" 2>&1
	if [ $st -eq 0 ] && cmp -s "$TMP/a.kt" "$TMP/c.kt"; then
		ok "convert -> v$1 $2: the same report (BTF carried: arguments named)"
	else
		not_ok "convert -> v$1 $2: the same report (BTF carried: arguments named) (exit $st)"
		sed 's/^/#   /' "$TMP/conv.log" | head -3
		diff "$TMP/a.kt" "$TMP/c.kt" | head -5 | sed 's/^/#   /'
	fi
	python3 "$TOOLS/kfiles.py" "$out" >"$TMP/c.kf" 2>&1
	awk '{print $1, $NF}' "$TMP/c.kf" >"$TMP/c.kf2"
	if [ -s "$TMP/a.kf" ] && cmp -s "$TMP/a.kf" "$TMP/c.kf2" &&
	   [ "$(awk '{print $2}' "$TMP/c.kf" | sort -u)" = "$3" ]; then
		ok "convert -> v$1 $2: BTF and modules bytes kept, in $4"
	else
		not_ok "convert -> v$1 $2: BTF and modules bytes kept, in $4"
		sed 's/^/#   /' "$TMP/c.kf"
	fi
done
"$KTRACE" info "$TMP/c7zstd.dat" | grep -E '^(Kernel files|Last boot info):' >"$TMP/c.lines"
grep -E '^(Kernel files|Last boot info):' "$TMP/info" >"$TMP/a.lines"
check_same "convert -> v7 zstd: info shows the same kernel files and last boot info" "$TMP/a.lines" "$TMP/c.lines"
"$KTRACE" convert -q -i "$TMP/c7zstd.dat" -o "$TMP/chain6.dat" --file-version 6 >/dev/null 2>&1 &&
	"$KTRACE" convert -q -i "$TMP/chain6.dat" -o "$TMP/chain7.dat" --compression zstd >/dev/null 2>&1
python3 "$TOOLS/kfiles.py" "$TMP/chain7.dat" 2>&1 | awk '{print $1, $NF}' >"$TMP/chain.kf"
check_same "v7 zstd -> v6 -> v7 zstd: BTF and modules bytes kept" "$TMP/a.kf" "$TMP/chain.kf"
if [ -n "$have_tc" ]; then
	trace-cmd report "$TMP/a.dat" >"$TMP/a.tc" 2>/dev/null
	for v in 6none 7none 7zstd; do
		trace-cmd report "$TMP/c$v.dat" >"$TMP/c.tc" 2>"$TMP/c.tcerr"
		check "trace-cmd 3.1.6 reads the v${v%%[a-z]*} ${v#?} output as the source, quietly" \
			sh -c "[ -s '$TMP/c.tc' ] && [ ! -s '$TMP/c.tcerr' ] && cmp '$TMP/a.tc' '$TMP/c.tc'"
	done
else
	for v in 6none 7none 7zstd; do
		skip "trace-cmd 3.1.6 reads the v${v%%[a-z]*} ${v#?} output as the source, quietly"
	done
fi
# split: every piece holds them
"$KTRACE" split -q -o "$TMP/piece" -e 5 -r "$TMP/a.dat" >"$TMP/split.log" 2>&1
python3 "$TOOLS/kfiles.py" "$TMP/piece.0002" 2>&1 | awk '{print $1, $NF}' >"$TMP/piece.kf"
check_same "split: a piece keeps the BTF and modules" "$TMP/a.kf" "$TMP/piece.kf"

# ---- damaged
python3 - "$TMP/a.dat" "$TMP/bad-id.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
# the BTF_FILE option: "u16 23, u32 8, u64 offset"; point it at the first section
i = d.index(struct.pack('<HI', 23, 8))
first = struct.unpack_from('<Q', d, d.index(struct.pack('<HI', 16, 8)) + 6)[0]
struct.pack_into('<Q', d, i + 6, first)
open(sys.argv[2], 'wb').write(d)
PY
for c in info report; do
	"$KTRACE" $c "$TMP/bad-id.dat" >"$TMP/out" 2>"$TMP/err"
	st=$?
	check "BTF option naming another section: $c exits 1 and names it" \
		sh -c "[ $st -eq 1 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'bad-id.dat: offset 0x[0-9a-f]*: BTF: expected section id 23, found 16' '$TMP/err'"
done
at=$(python3 - "$TMP/z.dat" "$TMP/bad-block.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
sec = struct.unpack_from('<Q', d, d.index(struct.pack('<HI', 23, 8)) + 6)[0]
assert struct.unpack_from('<H', d, sec)[0] == 23
d[sec + 16 + 8] ^= 0xff          # the zlib stream's first byte
open(sys.argv[2], 'wb').write(d)
print('0x%x' % (sec + 16))
PY
)
"$KTRACE" report "$TMP/bad-block.dat" >"$TMP/out" 2>"$TMP/err"
st=$?
check "damaged BTF block: report exits 1 and names its offset" \
	sh -c "[ $st -eq 1 ] && grep -q 'bad-block.dat: offset $at: cannot decompress zlib block' '$TMP/err'"
"$KTRACE" info "$TMP/bad-block.dat" >"$TMP/out" 2>"$TMP/err"
st=$?
check "damaged BTF block: info shows the rest (16 events), exits 1 and names its offset" \
	sh -c "[ $st -eq 1 ] && grep -q '^  16 events, lost: 0\$' '$TMP/out' && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'bad-block.dat: offset $at: cannot decompress zlib block' '$TMP/err'"
