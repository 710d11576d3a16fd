#!/bin/sh
# A crash dump built by tests/koff/mkcore.py straight from the documented layouts (no
# gdb needed): a position-independent program with a symbol table and read-only
# formats, and a core whose memory holds the crash anchor and a KOFF buffer. The
# dumper must place the program with the auxiliary vector, find the buffer through the
# anchor, and read formats and %s strings from the string table, the program file and
# the core. Damaged variants must fail with a message, never crash.
. "$(dirname "$0")/../lib.sh"
plan 15
DATA="$ROOT/tests/koff/data"

if ! python3 "$ROOT/tests/koff/mkcore.py" "$TMP/c" 2>"$TMP/py.log"; then
	not_ok "mkcore.py"; cat "$TMP/py.log"; exit 0
fi
TZ=UTC "$KTRACE" dump "$TMP/c/prog" "$TMP/c/core" >"$TMP/core.txt" 2>&1
check_same "crafted core: formats from table, program file and core" "$TMP/core.txt" "$DATA/crafted-core.expected"
TZ=UTC "$KTRACE" report "$TMP/c/buffer" >"$TMP/buf.txt" 2>&1
check_same "crafted buffer alone: placeholders for what it lacks" "$TMP/buf.txt" "$DATA/crafted-buffer.expected"
"$KTRACE" dump -v "$TMP/c/prog" "$TMP/c/core" | grep -q '^# KOFF buffer /dev/shm/koff-crafted (core dump)' &&
	ok "buffer named from NT_FILE" || not_ok "buffer named from NT_FILE"

# Damaged: truncated core, core given as program, wrong order, empty files.
head -c 6000 "$TMP/c/core" >"$TMP/short"
"$KTRACE" dump "$TMP/c/prog" "$TMP/short" >"$TMP/e1" 2>&1
[ $? -eq 1 ] && grep -q 'not in the core' "$TMP/e1" && ok "truncated core: clear error" || { not_ok "truncated core"; cat "$TMP/e1"; }
"$KTRACE" dump "$TMP/c/core" "$TMP/c/prog" >"$TMP/e2" 2>&1
[ $? -eq 1 ] && grep -q 'is not a core file (ELF type 3)' "$TMP/e2" && ok "swapped arguments: clear error" || { not_ok "swapped arguments"; cat "$TMP/e2"; }
: >"$TMP/empty"
"$KTRACE" dump "$TMP/c/prog" "$TMP/empty" >"$TMP/e3" 2>&1
[ $? -eq 1 ] && grep -q 'not an ELF file' "$TMP/e3" && ok "empty core: clear error" || { not_ok "empty core"; cat "$TMP/e3"; }

# A 32-bit core (i386) of the same layouts: read the same way.
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/c32" 32 2>"$TMP/py.log"; then
	TZ=UTC "$KTRACE" dump "$TMP/c32/prog" "$TMP/c32/core" >"$TMP/c32.txt" 2>&1
	check_same "32-bit core: read like the 64-bit one" "$TMP/c32.txt" "$DATA/crafted-core.expected"
else
	not_ok "mkcore.py 32"; cat "$TMP/py.log"
fi
# A big-endian core: refused with a clear message.
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/cbe" be 2>"$TMP/py.log"; then
	"$KTRACE" dump "$TMP/cbe/prog" "$TMP/cbe/core" >"$TMP/be.txt" 2>&1
	[ $? -eq 1 ] && grep -q 'the core is big-endian and this ktrace reads cores of its own byte order (little-endian) only' "$TMP/be.txt" &&
		ok "big-endian core: refused with a clear message" || { not_ok "big-endian core refused"; cat "$TMP/be.txt"; }
else
	not_ok "mkcore.py be"; cat "$TMP/py.log"
fi
# 32-bit program with a 64-bit core: refused, both described.
"$KTRACE" dump "$TMP/c32/prog" "$TMP/c/core" >"$TMP/mix.txt" 2>&1
[ $? -eq 1 ] && grep -q "not of this program's machine type (program: 32-bit little-endian machine 3; core: 64-bit little-endian machine 62)" "$TMP/mix.txt" &&
	ok "32-bit program, 64-bit core: refused" || { not_ok "32-bit program, 64-bit core refused"; cat "$TMP/mix.txt"; }

# The anchor in a libktrace.so the core maps (the program has no symbol table): the
# library as the core names it is not there (clear message), then --lib, --sysroot,
# and a library with another build id.
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/cs" shared 2>"$TMP/py.log"; then
	"$KTRACE" dump "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s1.txt" 2>&1
	[ $? -eq 1 ] && grep -q '/crafted/lib/libktrace.so.1 (the libktrace.so the process had mapped): No such file or directory; if it moved, give it with --lib PATH or --sysroot DIR' "$TMP/s1.txt" &&
		ok "shared: missing library, clear message" || { not_ok "shared: missing library"; cat "$TMP/s1.txt"; }
	TZ=UTC "$KTRACE" dump --lib "$TMP/cs/lib" "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s2.txt" 2>&1
	check_same "shared: --lib, anchor found in the library" "$TMP/s2.txt" "$DATA/crafted-core.expected"
	mkdir -p "$TMP/root/crafted/lib" && cp "$TMP/cs/lib" "$TMP/root/crafted/lib/libktrace.so.1"
	TZ=UTC "$KTRACE" dump --sysroot "$TMP/root" "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s3.txt" 2>&1
	check_same "shared: --sysroot" "$TMP/s3.txt" "$DATA/crafted-core.expected"
	"$KTRACE" dump -l --sysroot "$TMP/root" "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s4.txt" 2>&1
	grep -qx '/dev/shm/koff-crafted	0x7f0000000000, 10752 bytes, default' "$TMP/s4.txt" &&
		ok "shared: -l" || { not_ok "shared: -l"; cat "$TMP/s4.txt"; }
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[0x310] ^= 1; open(sys.argv[2], "wb").write(d)' \
		"$TMP/cs/lib" "$TMP/other.so"
	"$KTRACE" dump --lib "$TMP/other.so" "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s5.txt" 2>&1
	[ $? -eq 1 ] && grep -q 'build ids differ' "$TMP/s5.txt" && ok "shared: another build id refused" ||
		{ not_ok "shared: another build id refused"; cat "$TMP/s5.txt"; }
	"$KTRACE" dump --lib "$TMP/cs/prog" "$TMP/cs/prog" "$TMP/cs/core" >"$TMP/s6.txt" 2>&1
	[ $? -eq 1 ] && grep -q 'symbol koff_crash_anchor not found in .* either' "$TMP/s6.txt" &&
		ok "shared: a library without the anchor refused" || { not_ok "shared: a library without the anchor"; cat "$TMP/s6.txt"; }
else
	not_ok "mkcore.py shared"; cat "$TMP/py.log"
	skip 5 "shared" "no crafted core"
fi
