# The layering rules (scripts/layering.py, DESIGN.md): the include graph goes
# common -> readers -> engine -> sinks -> src; no component includes another's _int.h;
# sinks see the engine through engine/engine.h only; every exported symbol is named in the
# versioned list and declared, with its header's prefix, in a public header; the
# umbrella header compiles as C++. Each rule is also shown failing on a wrong fixture.
. "$(dirname "$0")/../lib.sh"
L="python3 $ROOT/scripts/layering.py"
FX="$ROOT/tests/layout/fixtures"
so="$ROOT/$B/libktrace.so"
plan 25

check "include graph of the tree" $L includes "$ROOT"
check "exports of the tree: list, headers and $B/libktrace.so agree" \
	$L exports "$ROOT/include/ktrace" "$ROOT/lib/libktrace.map" "$so"

# fails where it must, naming each violation
$L includes "$FX/upward" >"$TMP/up.out"; st=$?
check "include rule fails on an upward include" test "$st" = 1
check "include rule names the common -> event include" grep -q 'lib/common/helper.c:2: common' "$TMP/up.out"
check "include rule names the CLI's internal include" grep -q 'src/main.c:2: src includes the library internal' "$TMP/up.out"

# the sink rule and the internal-header rule: fail on a sink that reaches into the engine,
# another sink or a reader's internals, and on a reader that includes another's _int.h
$L includes "$FX/sinks" >"$TMP/sk.out"; st=$?
check "sink rule fails on a sink's wrong includes" test "$st" = 1
check "sink rule names an engine _int.h" grep -q 'demo_out.c:2: sinks/demo includes engine/engine_stream_int.h, an internal header of engine' "$TMP/sk.out"
check "sink rule names an engine header other than engine.h" grep -q 'demo_out.c:3: sink sinks/demo includes engine/engine_tdset.h, an engine header other than engine/engine.h' "$TMP/sk.out"
check "sink rule names another sink's header" grep -q 'demo_out.c:4: sink sinks/demo includes sinks/other/other_print.h, a header of another sink' "$TMP/sk.out"
check "sink rule names a reader's _int.h" grep -q 'demo_out.c:5: sinks/demo includes event/event_int.h, an internal header of event' "$TMP/sk.out"
check "internal-header rule names a reader including another's _int.h" grep -q 'ring_peek.c:2: ring includes event/event_int.h' "$TMP/sk.out"
check "sink rule: exactly the five wrong includes named" test "$(wc -l <"$TMP/sk.out")" = 5
check "sink rule: allowed includes not named" sh -c "! grep -q 'demo_out.c:\([6-9]\|1[0-9]\):\|ring_peek.c:3:' '$TMP/sk.out'"
check "the tree's sinks include no engine header but engine/engine.h" \
	sh -c "! grep -rn '#include \"engine/' '$ROOT/lib/sinks' | grep -v '\"engine/engine.h\"'"

$L exports "$FX/exports/include/ktrace" "$FX/exports/libktrace.map" >"$TMP/ex.out"; st=$?
check "export rule fails on a wrong list" test "$st" = 1
check "export rule: glob refused" grep -q 'glob "ktrace_event_\*"' "$TMP/ex.out"
check "export rule: prefix checked" grep -q 'declares tracedat_open_something, which lacks its prefix' "$TMP/ex.out"
check "export rule: undeclared name in the list" grep -q 'ktrace_event_removed is in' "$TMP/ex.out"
check "export rule: declared name missing from the list" grep -q 'ktrace_event_forgotten (event.h) is not in' "$TMP/ex.out"

# a library built from the same objects with a symbol more than the list: caught
printf 'KTRACE_0.2 { global: *; };\n' >"$TMP/all.map"
if ${CC:-cc} -shared -o "$TMP/libwide.so" -Wl,--version-script="$TMP/all.map" "$ROOT/$B"/lib/common/outbuf.o 2>/dev/null; then
	$L exports "$ROOT/include/ktrace" "$ROOT/lib/libktrace.map" "$TMP/libwide.so" >"$TMP/wide.out"; st=$?
	check "export rule fails on a library exporting other names" test "$st" = 1
else
	not_ok "export rule fails on a library exporting other names (could not link the fixture)"
fi

# the umbrella header as C++
CXX=${CXX:-g++}
if command -v "$CXX" >/dev/null; then
	printf '#include <ktrace/ktrace.h>\nint main() { struct ktrace_error e; ktrace_error_clear(&e); return 0; }\n' >"$TMP/u.cc"
	check "ktrace.h compiles as C++11 (-Wall -Wextra -pedantic)" \
		$CXX -std=c++11 -Wall -Wextra -Werror -pedantic -I"$ROOT/include" -c "$TMP/u.cc" -o "$TMP/u.o"
	check "ktrace.h compiles as C11 too" ${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic \
		-I"$ROOT/include" -x c -c "$TMP/u.cc" -o "$TMP/c.o"
	printf '#include <ktrace/ktrace.h>\nint main() { return 0; }\n' >"$TMP/only.cc"
	check "the bad C++ fixture is fine as C11" ${CC:-cc} -std=c11 -Werror -I"$FX/cxx/include" -x c -c "$TMP/only.cc" -o "$TMP/bad.o"
	if $CXX -std=c++11 -Werror -I"$FX/cxx/include" -c "$TMP/only.cc" -o "$TMP/bad.o" >/dev/null 2>&1; then
		not_ok "C++ rule fails on a C11-only header"
	else
		ok "C++ rule fails on a C11-only header"
	fi
else
	skip 4 "ktrace.h compiles as C++" "no C++ compiler"
fi

# src/ is built without -Ilib, and the CLI links the shared library
check "the CLI is linked against libktrace.so" sh -c "ldd '$ROOT/$B/ktrace' | grep -q 'libktrace.so'"
