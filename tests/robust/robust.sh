# The hostile-input campaign as part of the suite (tests/robust/robust.py): real traces
# of every format, mutated (truncations at structural boundaries, extreme values in
# structural fields, bit flips) and read by every subcommand, under the sanitizers with
# `make check SAN=1`. A fixed seed and a small budget here; `make robust` runs a longer
# campaign (ROBUST_RUNS, ROBUST_SEED). robust.py prints the plan: 3 lines an input.
. "$(dirname "$0")/../lib.sh"
# under the sanitizers every run is several times slower: half the budget there
runs=240
[ -n "${SANFLAGS:-}" ] && runs=120
checker python3 "$ROOT/tests/robust/robust.py" "$KTRACE" "$ROOT" "$SHARED" --seed "${ROBUST_SEED:-13}" \
	--runs "${ROBUST_RUNS:-$runs}" --timeout "${ROBUST_TIMEOUT:-60}" --workdir "$TMP/work"
