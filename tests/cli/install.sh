# make install puts headers, both libraries, the pkg-config file and the CLI in place,
# and a program built against the installed copy (with pkg-config) runs.
. "$(dirname "$0")/../lib.sh"
CC=${CC:-cc}
dest="$TMP/root"
check "make install" make -s -C "$ROOT" install B="$B" DESTDIR="$dest" PREFIX=/opt/kt
for f in opt/kt/include/ktrace/kbuffer.h opt/kt/include/ktrace/ktrace.h opt/kt/lib/libktrace.a \
	 opt/kt/lib/libktrace.so opt/kt/lib/pkgconfig/ktrace.pc opt/kt/bin/ktrace; do
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
