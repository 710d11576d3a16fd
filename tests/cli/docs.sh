#!/bin/sh
# Every command example of README.md, CONTRIBUTING.md, lib/README.md, bench/README.md
# and docs/*.md that needs no tracefs, run against the repository's files: each must
# exit as documented and print what it shows (tests/cli/docs.py; the rules are in
# docs/README.md). The live examples run in tests/tracefs/docs_live.sh.
. "$(dirname "$0")/../lib.sh"
checker python3 "$ROOT/tests/cli/docs.py" --mode offline "$ROOT" "$ROOT/$B" "$TMP"
