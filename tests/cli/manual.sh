# The manuals match the behaviour: every option a command accepts (read from its
# option tables, scripts/cli_options.py) is in `ktrace help COMMAND`; the man pages
# made from that text (build/man) exist for every command, render with `man -l`
# without warnings and hold every option of the help; libktrace(3) lists every
# exported function; the bash completion offers the commands, their options and
# event names.
. "$(dirname "$0")/../lib.sh"
MAN="$ROOT/$B/man"
python3 "$ROOT/scripts/cli_options.py" "$ROOT/src" >"$TMP/accepted"
"$KTRACE" --help >"$TMP/main.txt"
cmds=$(sed -n '/^COMMANDS/,/^$/p' "$TMP/main.txt" | awk 'NF >= 2 && $1 ~ /^[a-z]+$/ {print $1}')
ncmds=$(echo $cmds | wc -w)
# 1 + 4 a command (help, man page, man -l, options in it) + 4 (ktrace.1, libktrace.3)
# + the completion: 3 + 1 a command
plan $((8 + 5 * ncmds))
[ "$ncmds" -ge 10 ] && ok "ktrace --help lists the commands ($ncmds)" || not_ok "ktrace --help lists the commands ($ncmds)"

# options of a text: words that start with - or -- (with their - escaped for roff)
options_in() { grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' "$1" | sed 's/^[][ ,|(]*//' | sort -u; }

have_man=1
command -v man >/dev/null || have_man=0
for c in $cmds; do
	"$KTRACE" help "$c" >"$TMP/help.txt"
	hst=$?
	awk -v c="$c" '$1 == c {print $2}' "$TMP/accepted" >"$TMP/opts"
	options_in "$TMP/help.txt" >"$TMP/documented"
	missing=$(comm -23 "$TMP/opts" "$TMP/documented" | tr '\n' ' ')
	[ $hst -eq 0 ] && [ -s "$TMP/help.txt" ] && [ -z "$missing" ] && ok "help $c documents every option it accepts" ||
		not_ok "help $c documents every option it accepts (exit $hst, missing: $missing)"
	if [ ! -f "$MAN/ktrace-$c.1" ]; then
		not_ok "man page ktrace-$c.1"
		skip 2 "man -l ktrace-$c.1" "no page"
		continue
	fi
	ok "man page ktrace-$c.1"
	if [ $have_man = 1 ]; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN/ktrace-$c.1" >"$TMP/man.txt" 2>"$TMP/man.err"
		[ ! -s "$TMP/man.err" ] && ok "man -l ktrace-$c.1: no warning" ||
			{ not_ok "man -l ktrace-$c.1: no warning"; sed 's/^/#   /' "$TMP/man.err" | head -5; }
		# the rendered page hyphenates and fills: compare the options it holds
		sed 's/‐/-/g' "$TMP/man.txt" | tr -d '\010' >"$TMP/man.plain"
		options_in "$TMP/man.plain" >"$TMP/in-man"
		missing=$(comm -23 "$TMP/documented" "$TMP/in-man" | tr '\n' ' ')
		[ -z "$missing" ] && ok "ktrace-$c(1) has every option of ktrace help $c" ||
			not_ok "ktrace-$c(1) has every option of ktrace help $c (missing: $missing)"
	else
		skip 2 "man -l ktrace-$c.1" "man is not installed"
	fi
done

if [ $have_man = 1 ]; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN/ktrace.1" >"$TMP/man.txt" 2>"$TMP/man.err"
	[ ! -s "$TMP/man.err" ] && ok "man -l ktrace.1: no warning" || not_ok "man -l ktrace.1: no warning"
	missing=$(for c in $cmds; do grep -q "ktrace-$c(1)" "$TMP/man.txt" || echo "ktrace-$c(1)"; done | tr '\n' ' ')
	[ -s "$TMP/man.txt" ] && [ -z "$missing" ] && ok "ktrace(1) names every command's page" ||
		not_ok "ktrace(1) names every command's page (missing: $missing)"
	LC_ALL=C.UTF-8 MANWIDTH=200 man --warnings -l "$MAN/libktrace.3" >"$TMP/lib.txt" 2>"$TMP/man.err"
	[ ! -s "$TMP/man.err" ] && ok "man -l libktrace.3: no warning" || not_ok "man -l libktrace.3: no warning"
	python3 "$ROOT/scripts/layering.py" declared "$ROOT/include/ktrace" >"$TMP/api"
	sed 's/‐/-/g' "$TMP/lib.txt" | tr -d '\n ' >"$TMP/lib.flat"
	missing=$(while read -r f; do grep -q "$f(" "$TMP/lib.flat" || grep -q "$f;" "$TMP/lib.flat" || echo "$f"; done <"$TMP/api" | tr '\n' ' ')
	[ -s "$TMP/api" ] && [ -z "$missing" ] && ok "libktrace(3) lists every exported function" ||
		not_ok "libktrace(3) lists every exported function (missing: $missing)"
else
	skip 4 "man -l ktrace.1 and libktrace.3" "man is not installed"
fi

# bash completion
COMP="$ROOT/$B/completion/ktrace"
if command -v bash >/dev/null && [ -f "$COMP" ]; then
	complete_words() {   # words...: what _ktrace offers for the last one
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ktrace; printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$@"
	}
	complete_words ktrace "" | sort >"$TMP/c"
	missing=$(for c in $cmds; do grep -qx "$c" "$TMP/c" || echo "$c"; done | tr '\n' ' ')
	[ -n "$cmds" ] && [ -z "$missing" ] && ok "completion offers every command" ||
		not_ok "completion offers every command (missing: $missing)"
	for c in $cmds; do
		complete_words ktrace "$c" - | sort >"$TMP/c"
		awk -v c="$c" '$1 == c {print $2}' "$TMP/accepted" | sort >"$TMP/opts"
		cmp -s "$TMP/c" "$TMP/opts" && ok "completion offers the options of $c" ||
			{ not_ok "completion offers the options of $c"; diff "$TMP/c" "$TMP/opts" | head -5 | sed 's/^/#   /'; }
	done
	complete_words ktrace convert --compression z | tr '\n' ' ' | grep -q "zstd zlib" &&
		ok "completion offers option values" || not_ok "completion offers option values"
	ev=/sys/kernel/tracing/available_events
	if [ -r $ev ] && grep -q '^sched:sched_switch$' $ev; then
		complete_words ktrace record -e sched:sched_swi | grep -q "sched_switch" &&
			ok "completion offers event names for record -e" ||
			not_ok "completion offers event names for record -e"
	else
		skip 1 "completion offers event names for record -e" "no readable tracefs"
	fi
else
	not_ok "bash completion built ($COMP)"
	skip $((2 + ncmds)) "completion" "no bash or no completion script"
fi
