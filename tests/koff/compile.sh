#!/bin/sh
# KOFF_TRACE's compile-time checks: at most 5 arguments, each fitting one pointer-size
# word, and a format checked like printf's (with -Wall -Werror, as the project builds).
. "$(dirname "$0")/../lib.sh"
plan 10
CC=${CC:-cc}

try() {   # name, expect (ok|fail), pattern, body
	name=$1 expect=$2 pattern=$3
	cat >"$TMP/t.c" <<EOT
#include <ktrace/koff.h>
struct two { long a, b; };
void f(void);
void f(void)
{
	struct two s = { 1, 2 };
	void *vp = 0;
	const char *dyn = "dyn: %d";
	long double ld = 1.0L;
	(void)s; (void)dyn; (void)ld; (void)vp;
	$4;
}
EOT
	if $CC -std=c11 -Wall -Wextra -Werror -I"$ROOT/include" -c "$TMP/t.c" -o "$TMP/t.o" >"$TMP/cc.log" 2>&1; then
		got=ok
	else
		got=fail
	fi
	if [ "$got" = "$expect" ] && { [ -z "$pattern" ] || grep -q "$pattern" "$TMP/cc.log"; }; then
		ok "$name"
	else
		not_ok "$name (compiler: $got)"; head -5 "$TMP/cc.log" | sed 's/^/#   /'
	fi
}

try "five arguments of one word compile" ok "" \
	'KOFF_TRACE(1, 2, "tag: %d %s %p %f %lu", 1, "x", (void *)0, 1.5, 2UL)'
try "no argument compiles" ok "" 'KOFF_TRACE(1, 2, "tag:")'
try "an array (its address) for %s compiles" ok "" \
	'char name[32] = "x"; KOFF_TRACE(1, 2, "tag: %s %c", name, name[0])'
try "a void pointer compiles" ok "" 'KOFF_TRACE(1, 2, "tag: %p", vp)'
try "six arguments are refused" fail "at most 5 arguments" \
	'KOFF_TRACE(1, 2, "t: %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6)'
try "a long double is refused" fail "fit in 5 pointer-size words" \
	'KOFF_TRACE(1, 2, "t: %Lf", ld)'
try "a structure is refused" fail "fit in 5 pointer-size words" 'KOFF_TRACE(1, 2, "t: %ld", s)'
try "a format mismatch is refused" fail "Werror=format\\|-Wformat" 'KOFF_TRACE(1, 2, "t: %d", "string")'
try "too few arguments for the format are refused" fail "Werror=format\\|-Wformat" 'KOFF_TRACE(1, 2, "t: %d %d", 1)'
try "a format that is not a literal is refused" fail "not.*constant" 'KOFF_TRACE(1, 2, dyn, 1)'
