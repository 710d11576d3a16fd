#!/bin/sh
# ktrace info --json against trace-cmd 3.1.6 (dump --summary, report -t) on:
#  - every trace.dat of ../shared/data/ftrace;
#  - traces recorded on a 2-CPU VM (tests/data/tracedat/*.v6.dat.zst: mixed events with
#    dropped events, all events, an instance buffer, made small with tools/tdslim.py;
#    8 KiB sub-buffers, built with tools/fromraw.py from raw per-CPU dumps),
#    each as v6, v7 uncompressed and v7 zstd (trace-cmd convert), plus zlib copies
#    (tools/v7zlib.py; Debian's trace-cmd cannot write zlib) that must read exactly like
#    their zstd twins;
#  - copies with OFFSET, DATE, TSC2NSEC and TIME_SHIFT options added (timestamp
#    corrections);
#  - the fuzz seed files (instance holding dropped-events markers, v6 latency).
. "$(dirname "$0")/../lib.sh"
TOOLS="$ROOT/tests/tracedat/tools"
FT="$SHARED/data/ftrace"
status=0
C="$ROOT/fuzz/corpus/fuzz_tracedat"
# compare.py: 3 checks a file, one more with a twin, 1 for a twin alone. The shared
# files: 3 each, their zlib twins 4 each; the recorded ones: 11 each; the 5 files with
# timestamp corrections: 6 each; the fuzz seeds: 1 for a zlib one, else 3
plan $((3 * $(ls "$FT"/*.dat | wc -l) + 4 * $(ls "$FT"/*.v7zstd.dat | wc -l) +
	11 * $(ls "$ROOT"/tests/data/tracedat/*.v6.dat.zst | wc -l) + 5 * 6 +
	$(ls "$C"/*.dat | grep -c zlib) + 3 * $(ls "$C"/*.dat | grep -vc zlib)))

cmp_one() {   # file [twin]
	if [ -n "${2:-}" ]; then
		python3 "$TOOLS/compare.py" "$KTRACE" "$1" --twin "$2" || status=1
	else
		python3 "$TOOLS/compare.py" "$KTRACE" "$1" || status=1
	fi
}

convert() {   # in out version compression
	if trace-cmd convert -i "$1" --file-version "$3" --compression "$4" -o "$2" \
		>"$TMP/convert.log" 2>&1 && [ -s "$2" ]; then
		return 0
	fi
	not_ok "trace-cmd convert $1 -> v$3 $4"
	sed 's/^/#   /' "$TMP/convert.log" | head -5
	status=1
	return 1
}

for f in "$FT"/*.dat; do
	cmp_one "$f"
done

# zlib twins of the shared v7 zstd files. Both twins are made from an uncompressed
# copy: trace-cmd 3.1.6's convert loses data when it reads a file whose compressed CPU
# sizes are recorded 4 bytes short (it drops CPU 0 of trappy_tests_raw_trace).
for f in "$FT"/*.v7zstd.dat; do
	n=$(basename "$f" .v7zstd.dat)
	convert "$f" "$TMP/$n.v7none.dat" 7 none || continue
	convert "$TMP/$n.v7none.dat" "$TMP/$n.v7zstd.dat" 7 zstd || continue
	python3 "$TOOLS/v7zlib.py" --short-size "$TMP/$n.v7none.dat" "$TMP/$n.v7zlib.dat"
	cmp_one "$TMP/$n.v7zstd.dat" "$TMP/$n.v7zlib.dat"
done

for z in "$ROOT"/tests/data/tracedat/*.v6.dat.zst; do
	n=$(basename "$z" .v6.dat.zst)
	zstd -q -d -f -o "$TMP/$n.v6.dat" "$z" || { not_ok "unpack $z"; status=1; continue; }
	cmp_one "$TMP/$n.v6.dat"
	convert "$TMP/$n.v6.dat" "$TMP/$n.v7none.dat" 7 none && cmp_one "$TMP/$n.v7none.dat"
	convert "$TMP/$n.v6.dat" "$TMP/$n.v7zstd.dat" 7 zstd || continue
	python3 "$TOOLS/v7zlib.py" "$TMP/$n.v7none.dat" "$TMP/$n.v7zlib.dat"
	python3 "$TOOLS/v7zlib.py" --short-size "$TMP/$n.v7none.dat" "$TMP/$n.v7zlib-short.dat"
	cmp_one "$TMP/$n.v7zstd.dat" "$TMP/$n.v7zlib.dat"
	python3 "$TOOLS/compare.py" "$KTRACE" "$TMP/$n.v7zstd.dat" --twin-only \
		--twin "$TMP/$n.v7zlib-short.dat" || status=1
done

# timestamp corrections: options added to recorded traces
python3 "$TOOLS/tdslim.py" --offset 123456789 --date 0x5f5e100 "$TMP/mixed.v6.dat" "$TMP/mixed-offset-date.v6.dat"
python3 "$TOOLS/tdslim.py" --tsc2nsec 0x12345678,24,777 "$TMP/mixed.v6.dat" "$TMP/mixed-tsc2nsec.v6.dat"
python3 "$TOOLS/tdslim.py" --tsc2nsec 3,1,5 --offset -1000 "$TMP/instance.v6.dat" "$TMP/instance-tsc-offset.v6.dat"
python3 "$TOOLS/tdslim.py" --time-shift 1:413000000000,1000,414000000000,-5000000,415000000000,77 \
	"$TMP/mixed.v6.dat" "$TMP/mixed-timeshift-interp.v6.dat"
python3 "$TOOLS/tdslim.py" --time-shift 0:400000000000,123456,420000000000,-777 \
	"$TMP/instance.v6.dat" "$TMP/instance-timeshift.v6.dat"
for f in mixed-offset-date mixed-tsc2nsec instance-tsc-offset mixed-timeshift-interp \
	instance-timeshift; do
	cmp_one "$TMP/$f.v6.dat"
	convert "$TMP/$f.v6.dat" "$TMP/$f.v7zstd.dat" 7 zstd && cmp_one "$TMP/$f.v7zstd.dat"
done
# the fuzz seeds (tools/mkcorpus.py): zlib ones against their uncompressed twin
for f in "$C"/*.dat; do
	case $f in
	*zlib*) python3 "$TOOLS/compare.py" "$KTRACE" "${f%.v7zlib.dat}.v7none.dat" --twin-only \
			--twin "$f" || status=1 ;;
	*) cmp_one "$f" ;;
	esac
done
exit $status
