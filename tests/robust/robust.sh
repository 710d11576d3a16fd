# The hostile-input campaign (tests/robust/robust.py): real traces of every format,
# mutated (truncations at structural boundaries, extreme and inflated structural
# fields, bit flips, byte runs, zeroed and repeated pages or chunks) and read by every
# subcommand that reads a file. In the normal build every run is under a 2 GiB
# address-space limit; with `make check SAN=1` under ASan+UBSan. A fixed seed, small
# inputs and a small budget here (about a minute); `make robust` runs a long campaign
# over every input (ROBUST_RUNS, ROBUST_SEED, ROBUST_JOBS, ROBUST_SAVE=DIR to keep
# the mutants that fail). Known failures (issue items not fixed yet) are listed in
# tests/robust/known-failures.
. "$(dirname "$0")/../lib.sh"
# under the sanitizers every run is several times slower: a third of the budget there
runs=900
[ -n "${SANFLAGS:-}" ] && runs=300
inputs=short
[ -n "${ROBUST_RUNS:-}" ] && inputs=all
checker python3 "$ROOT/tests/robust/robust.py" "$KTRACE" "$ROOT" "$SHARED" --seed "${ROBUST_SEED:-13}" \
	--runs "${ROBUST_RUNS:-$runs}" --inputs "${ROBUST_INPUTS:-$inputs}" \
	--timeout "${ROBUST_TIMEOUT:-60}" --jobs "${ROBUST_JOBS:-1}" --workdir "$TMP/work" \
	--known "$ROOT/tests/robust/known-failures" ${ROBUST_SAVE:+--save "$ROBUST_SAVE"}
