# The Python module (python/, docs/python.md): its unittest tests (test_module.py, TAP
# through tap.py) with Debian's python3 and the module built into $B/python.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
mod=$(ls "$ROOT/$B"/python/ktrace*.so 2>/dev/null | head -1)
if [ ! -x "$PY" ] || [ -z "$mod" ]; then
	plan 1
	skip 1 "python module" "not built (make builds it when /usr/bin/python3 has python3-dev and python3-numpy)"
	exit 0
fi
if ! "$PY" -c 'import pandas' 2>/dev/null; then
	plan 1
	skip 1 "python module" "python3-pandas is not installed"
	exit 0
fi
# Under the sanitizers (make check SAN=1) the module needs the ASan runtime loaded
# first into python, which is not built with it; Python's own allocations at exit are
# not ours to judge (no leak check).
if [ -n "${SANFLAGS:-}" ]; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	export LD_PRELOAD="$asan" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
fi
# a Darwin V3 file with events and stackshots (our writer) and a crafted KOFF crash dump
KT_V3= KT_KOFF=
if "$ROOT/$B/tests/darwin/test_stackshot" write "$TMP/s.ktrace" "$SHARED/data/kcdata/stackshot-sample" \
	"$SHARED/data/kcdata/delta-stackshot-sample-new-arrays" >/dev/null 2>&1; then
	KT_V3="$TMP/s.ktrace"
fi
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/c" >/dev/null 2>&1; then
	KT_KOFF="$TMP/c/buffer"
fi
export KTRACE SHARED TMP KT_V3 KT_KOFF
PYTHONPATH="$ROOT/$B/python" PYTHONDONTWRITEBYTECODE=1 "$PY" "$ROOT/tests/python/test_module.py"
