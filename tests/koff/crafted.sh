#!/bin/sh
# A crash dump built by tests/koff/mkcore.py straight from the documented layouts (no
# gdb needed): a position-independent program with a symbol table and read-only
# formats, and a core whose memory holds the crash anchor and a KOFF buffer. The
# dumper must place the program with the auxiliary vector, find the buffer through the
# anchor, and read formats and %s strings from the string table, the program file and
# the core. Damaged variants must fail with a message, never crash.
. "$(dirname "$0")/../lib.sh"
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
[ $? -eq 1 ] && grep -q 'not a program file' "$TMP/e2" && ok "swapped arguments: clear error" || { not_ok "swapped arguments"; cat "$TMP/e2"; }
: >"$TMP/empty"
"$KTRACE" dump "$TMP/c/prog" "$TMP/empty" >"$TMP/e3" 2>&1
[ $? -eq 1 ] && grep -q 'not an ELF file' "$TMP/e3" && ok "empty core: clear error" || { not_ok "empty core"; cat "$TMP/e3"; }
