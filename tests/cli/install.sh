# make install puts headers, both libraries, the pkg-config file, the CLI, the man
# pages and the bash completion in place; a program built against the installed copy
# (with pkg-config, shared and static) runs; pkg-config --libs --static ktrace lists
# what the README says.
. "$(dirname "$0")/../lib.sh"
CC=${CC:-cc}
dest="$TMP/root"
plan 19
check "make install" make -s -C "$ROOT" install B="$B" DESTDIR="$dest" PREFIX=/opt/kt
for f in opt/kt/include/ktrace/kbuffer.h opt/kt/include/ktrace/ktrace.h opt/kt/lib/libktrace.a \
	 opt/kt/lib/libktrace.so opt/kt/lib/pkgconfig/ktrace.pc opt/kt/bin/ktrace \
	 opt/kt/share/man/man1/ktrace.1 opt/kt/share/man/man1/ktrace-report.1 \
	 opt/kt/share/man/man1/ktrace-convert.1 opt/kt/share/man/man3/libktrace.3 \
	 opt/kt/share/bash-completion/completions/ktrace; do
	check "installed $f" test -e "$dest/$f"
done
check "shared library exports only prefixed, versioned symbols" sh -c "
	nm -D --defined-only '$dest/opt/kt/lib/libktrace.so' | awk '{print \$3}' | grep -v '^KTRACE_' |
	grep -Ev '^(kbuffer|ktrace|tracedat|kcdata|koff)_' | grep . && exit 1 || exit 0"
cat >"$TMP/prog.c" <<'PROG'
#include <stdio.h>
#include <ktrace/ktrace.h>
int main(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	printf("%s %d\n", ktrace_version(), kbuffer_long_size(kb));
	kbuffer_free(kb);
	return 0;
}
PROG
flags=$(PKG_CONFIG_PATH="$dest/opt/kt/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs ktrace)
check "program builds with pkg-config flags" $CC $SANFLAGS -o "$TMP/prog" "$TMP/prog.c" $flags
check "program runs against the installed shared library" sh -c "LD_LIBRARY_PATH='$dest/opt/kt/lib' '$TMP/prog' | grep -Eq '^[0-9.]+ 8\$'"

cmds=$("$KTRACE" --help | sed -n '/^COMMANDS/,/^$/p' | awk 'NF >= 2 && $1 ~ /^[a-z]+$/ {print $1}')
missing=
for c in $cmds; do
	[ -f "$dest/opt/kt/share/man/man1/ktrace-$c.1" ] || missing="$missing ktrace-$c.1"
done
[ -n "$cmds" ] && [ -z "$missing" ] && ok "a man page installed for every command ($(echo $cmds | wc -w))" ||
	not_ok "a man page installed for every command (commands: $(echo $cmds | wc -w); missing:$missing)"
if command -v man >/dev/null; then
	check "man finds the installed page" sh -c "MANPATH='$dest/opt/kt/share/man' MANWIDTH=200 man ktrace-convert 2>/dev/null | grep -q 'ktrace convert - rewrite a trace.dat file'"
else
	skip 1 "man finds the installed page" "man is not installed"
fi

# pkg-config --libs --static: what the README shows, and enough to link statically
readme=$(sed -n 's/.*`pkg-config --libs --static ktrace` (`\([^`]*\)`).*/\1/p' "$ROOT/README.md")
static=$(PKG_CONFIG_PATH="$dest/opt/kt/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --libs-only-l --libs-only-other --static ktrace | sed 's/ *$//')
[ -n "$readme" ] && [ "$readme" = "$static" ] && ok "pkg-config --libs --static ktrace: what the README shows" ||
	not_ok "pkg-config --libs --static ktrace: what the README shows ('$static' vs README '$readme')"
cflags=$(PKG_CONFIG_PATH="$dest/opt/kt/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags ktrace)
check "program links statically with pkg-config --static" sh -c "$CC $SANFLAGS -o '$TMP/prog-static' '$TMP/prog.c' $cflags '$dest/opt/kt/lib/libktrace.a' $(echo "$static" | sed 's/-lktrace//') && '$TMP/prog-static' | grep -Eq '^[0-9.]+ 8\$'"
