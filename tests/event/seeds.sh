#!/bin/sh
# The fuzz seeds (tests/data/eventfmt/seeds.tar.gz: real formats with one of their
# records, and hand-written formats using %pM %pI4 %pI6c %pU %pISpc %*ph __print_hex
# __print_array __get_bitmask __get_cpumask __print_flags/__print_symbolic, operators,
# casts, sizeof, plugin helpers, bprint, and fuzzer finds where a length wraps) formatted
# by us and by libtraceevent.
. "$(dirname "$0")/../lib.sh"
tar -xzf "$ROOT/tests/data/eventfmt/seeds.tar.gz" -C "$TMP" || { not_ok "unpack seeds"; exit 0; }
"$ROOT/$B/tests/event/test_evdiff" --seeds "$TMP/seeds" | sed "s|$TMP/||"
