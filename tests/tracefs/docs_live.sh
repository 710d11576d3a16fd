#!/bin/sh
# The command examples of the documentation that use tracefs (record, stream, start,
# list...: tests/cli/docs.py --mode live), run when root and tracefs are there, one
# test at a time; tracefs must be as it was found afterwards. Else each is skipped.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/tracing_on ]; then
	tracefs_lock
fi
checker python3 "$ROOT/tests/cli/docs.py" --mode live "$ROOT" "$ROOT/$B" "$TMP"
