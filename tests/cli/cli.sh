# The command line: help, version, usage errors, error messages and exit statuses.
. "$(dirname "$0")/../lib.sh"
plan 26

check "ktrace --help lists report" sh -c "'$KTRACE' --help | grep -q '^    report '"
check "ktrace --version" sh -c "'$KTRACE' --version | grep -Eq '^ktrace [0-9]+\.[0-9]+\.[0-9]+$'"
check "ktrace help report shows the manual" sh -c "'$KTRACE' help report | grep -q '^SYNOPSIS'"
check "ktrace report --help" sh -c "'$KTRACE' report --help | grep -q -- '--page-size'"

expect_status() {   # name, status, command...
	name=$1; want=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; else not_ok "$name (exit $got, wanted $want)"; sed 's/^/#   /' "$TMP/err"; fi
}
expect_status "no command: usage error" 2 "$KTRACE"
expect_status "unknown command: usage error" 2 "$KTRACE" frobnicate
expect_status "help for unknown command: usage error" 2 "$KTRACE" help frobnicate
expect_status "unknown option: usage error" 2 "$KTRACE" report --bogus x
expect_status "missing input: usage error" 2 "$KTRACE" report
expect_status "bad --long-size: usage error" 2 "$KTRACE" report --long-size 5 x
expect_status "missing file: failure" 1 "$KTRACE" report /nonexistent/file
check "missing file message names the file" grep -qx "ktrace: /nonexistent/file: No such file or directory" "$TMP/err"
expect_status "directory: failure" 1 "$KTRACE" report /
head -c 3000 /dev/urandom >"$TMP/junk"
printf 'hello world, not a trace\n' >"$TMP/text"
expect_status "unrecognised file: failure" 1 "$KTRACE" report "$TMP/text"
check "unrecognised file message" grep -q "^ktrace: $TMP/text: unrecognised file format" "$TMP/err"
: >"$TMP/empty"
expect_status "empty file: failure" 1 "$KTRACE" report "$TMP/empty"
# -v turns the -F after it into "drop these" once: a second one is refused (trace-cmd's
# rule, the same in every command that takes the stream's filters)
for c in report export summary timeline diff; do
	args="-v -F sched_switch -v -F irq $ROOT/examples/sched_demo.dat"
	[ $c = diff ] && args="$args $ROOT/examples/sched_demo.dat"
	# shellcheck disable=SC2086
	expect_status "$c -v twice: usage error" 2 "$KTRACE" $c $args
	check "$c -v twice: the message says so" grep -q "^ktrace: $c: only 1 -v can be used" "$TMP/err"
done
