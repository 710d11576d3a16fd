# The Python module installed: make install puts it in a directory of Debian's python3's
# sys.path (PREFIX=/usr/local and /usr), where it imports and reads a trace; setup.py
# (pyproject.toml's extension) builds the same module with setuptools.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
plan 6
mod=$(ls "$ROOT/$B"/python/ktrace*.so 2>/dev/null | head -1)
if [ ! -x "$PY" ] || [ -z "$mod" ]; then
	skip 6 "python module install" "not built (make builds it when /usr/bin/python3 has python3-dev and python3-numpy)"
	exit 0
fi
if [ -n "${SANFLAGS:-}" ]; then
	export LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
fi
ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
so=$(basename "$mod")
reads() {   # DIR: the module imported from DIR reads examples/sched_demo.dat
	PYTHONPATH="$1" "$PY" -c "import ktrace, sys
assert ktrace.__file__.startswith('$1'), ktrace.__file__
sys.exit(0 if len(ktrace.open('$ROOT/examples/sched_demo.dat').events(fields=['ts'])['ts']) > 1000 else 1)"
}
in_path() {  # DIR: Debian's python3 looks there
	"$PY" -c "import sys; sys.exit(0 if '$1' in sys.path else 1)"
}
dest="$TMP/root"
if make -s -C "$ROOT" install B="$B" DESTDIR="$dest" PREFIX=/usr/local >"$TMP/make.log" 2>&1 &&
	[ -f "$dest/usr/local/lib/python$ver/dist-packages/$so" ]; then
	ok "make install PREFIX=/usr/local puts $so in /usr/local/lib/python$ver/dist-packages"
else
	not_ok "make install PREFIX=/usr/local puts $so in /usr/local/lib/python$ver/dist-packages"
	sed 's/^/# /' "$TMP/make.log"
fi
check "/usr/local/lib/python$ver/dist-packages is on $PY's path" in_path "/usr/local/lib/python$ver/dist-packages"
check "the installed module imports and reads a trace" reads "$dest/usr/local/lib/python$ver/dist-packages"
dest2="$TMP/root2"
if make -s -C "$ROOT" install B="$B" DESTDIR="$dest2" PREFIX=/usr >"$TMP/make2.log" 2>&1 &&
	[ -f "$dest2/usr/lib/python3/dist-packages/$so" ] && in_path /usr/lib/python3/dist-packages; then
	ok "make install PREFIX=/usr puts it in /usr/lib/python3/dist-packages, on $PY's path"
else
	not_ok "make install PREFIX=/usr puts it in /usr/lib/python3/dist-packages, on $PY's path"
fi
# pyproject.toml's build: setup.py's extension against this tree's libktrace.a
if [ -n "${SANFLAGS:-}" ] || [ "$B" != build ]; then
	skip 2 "setup.py build_ext" "the setuptools build links build/libktrace.a (the normal build only)"
elif ! "$PY" -c 'import setuptools' 2>/dev/null; then
	skip 2 "setup.py build_ext" "python3-setuptools is not installed"
else
	cp -r "$ROOT/setup.py" "$ROOT/pyproject.toml" "$ROOT/python" "$ROOT/include" "$TMP/"
	mkdir -p "$TMP/build" "$TMP/docs" && cp "$ROOT/$B/libktrace.a" "$TMP/build/" &&
		cp "$ROOT/docs/python.md" "$TMP/docs/"
	check "setup.py build_ext builds the module" sh -c "cd '$TMP' && '$PY' setup.py -q build_ext -b '$TMP/wheel' -t '$TMP/tmp' >'$TMP/setup.log' 2>&1"
	check "the setuptools-built module reads a trace" reads "$TMP/wheel"
fi
