# The bash completion ($B/completion/ktrace, made by scripts/completion.py) run in bash:
# COMP_LINE, COMP_POINT, COMP_WORDS and COMP_CWORD set as readline sets them (blanks
# separate words, and runs of ':' or '=' are words of their own), then _ktrace. What it
# offers is compared with what ktrace itself accepts (the values its errors list) and
# with tracefs's available_events; a real interactive bash (on a pty) checks the
# replies land in the line as expected.
. "$(dirname "$0")/../lib.sh"
plan 26
COMP="$ROOT/$B/completion/ktrace"
check "the completion script is built" test -s "$COMP"

# replies LINE: what _ktrace offers for LINE (the cursor at its end), one a line, sorted
cat >"$TMP/replies.sh" <<'SH'
. "$1"
line=$2
eval "COMP_WORDS=($(python3 -c '
import re, shlex, sys
line = sys.argv[1]
words = []
for w in line.split():
    words += [p for p in re.split(r"([:=]+)", w) if p]
if not line or line[-1].isspace():
    words.append("")
print(" ".join(shlex.quote(w) for w in words))' "$line"))"
COMP_LINE=$line
COMP_POINT=${#line}
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_ktrace ktrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
SH
replies() { bash --norc --noprofile "$TMP/replies.sh" "$COMP" "$1"; }
# same NAME LINE WORDS...: the replies to LINE are exactly WORDS
same() {
	name=$1 line=$2
	shift 2
	replies "$line" | sort -u >"$TMP/got"
	printf '%s\n' "$@" | grep . | sort -u >"$TMP/want"
	check_same "$name" "$TMP/want" "$TMP/got"
}
# the values an error message lists: "... (a, b, c)" or "... a, b or c"
listed() { sed -e 's/ (see .*//' -e 's/.*(\([^()]*\)).*/\1/' -e 's/.* takes //' \
	-e 's/.* must be //' | tr -s ', ' '\n\n' | grep -v '^or$' | grep . | sort; }

D="$SHARED/data/ftrace"
# export --format: the formats export knows, not report's
"$KTRACE" export --format bogus -o "$TMP/x" "$D/schedviz_cpu0.v6.dat" 2>&1 | listed >"$TMP/want"
replies "ktrace export --format " >"$TMP/got"
check "export --format: the formats export accepts" sh -c "test \$(wc -l <'$TMP/want') -ge 5 && cmp -s '$TMP/want' '$TMP/got'"
check "export --format: not report's (text, plist)" sh -c "! grep -qx -e text -e plist '$TMP/got'"
same "export --format=sq" "ktrace export --format=sq" sqlite
same "export --format=: the values alone (bash replaces after '=')" "ktrace export --format=j" json jsonl
# report --format: kcdata's (Darwin's text and json among them)
"$KTRACE" report --format bogus "$SHARED/data/kcdata/stackshot-sample" 2>&1 | listed >"$TMP/want"
replies "ktrace report --format " >"$TMP/got"
check "report --format: the formats report accepts for kcdata" sh -c "test \$(wc -l <'$TMP/want') -ge 5 && cmp -s '$TMP/want' '$TMP/got'"
"$KTRACE" timeline --codec bogus -o "$TMP/x.html" "$D/schedviz_cpu0.v6.dat" 2>&1 | listed >"$TMP/want"
replies "ktrace timeline --codec " >"$TMP/got"
check "timeline --codec: what timeline accepts" sh -c "test -s '$TMP/want' && cmp -s '$TMP/want' '$TMP/got'"
replies "ktrace timeline --lines-codec " >"$TMP/got"
check "timeline --lines-codec: the same" cmp -s "$TMP/want" "$TMP/got"
"$KTRACE" convert --compression bogus "$D/schedviz_cpu0.v6.dat" "$TMP/x.dat" 2>&1 | listed >"$TMP/want"
replies "ktrace convert --compression " >"$TMP/got"
check "convert --compression: what convert accepts" sh -c "test -s '$TMP/want' && cmp -s '$TMP/want' '$TMP/got'"
same "--endian" "ktrace info --endian " big little
same "--long-size" "ktrace report --long-size " 4 8
# options, commands, files
same "commands" "ktrace re" record report reset restart
same "help COMMAND" "ktrace help exp" export
same "options of export" "ktrace export --for" --format
mkdir -p "$TMP/dir"
: >"$TMP/dir/a.dat"
same "a file after a flag" "ktrace report -t $TMP/dir/a" "$TMP/dir/a.dat"
replies "ktrace export --cpu " >"$TMP/got"
check "--cpu takes a list: nothing offered" test ! -s "$TMP/got"
same "-o takes a file" "ktrace export -o $TMP/dir/" "$TMP/dir/a.dat"

# record -e: event names from tracefs, in the forms record accepts
EV=/sys/kernel/tracing/available_events
if [ -r "$EV" ] && grep -q '^sched:sched_switch$' "$EV"; then
	grep -o ':sched_sw[^:]*$' "$EV" | cut -c2- | sort -u >"$TMP/want"
	replies "ktrace record -e sched_sw" >"$TMP/got"
	check "record -e sched_sw: the events named so" sh -c "grep -qx sched_switch '$TMP/got' && cmp -s '$TMP/want' '$TMP/got'"
	# bash replaces what follows the ':': the replies are the event part
	replies "ktrace record -e sched:sched_sw" >"$TMP/got"
	check "record -e sched:sched_sw: after the ':'" cmp -s "$TMP/want" "$TMP/got"
	grep '^sched:' "$EV" | cut -d: -f2 | sort -u >"$TMP/want"
	replies "ktrace record -e sched:" >"$TMP/got"
	check "record -e sched: every sched event" cmp -s "$TMP/want" "$TMP/got"
	same "record -e sche: the system" "ktrace record -e sched" $(cut -d: -f1 "$EV" | sort -u | grep '^sched'; cut -d: -f2 "$EV" | sort -u | grep '^sched'; grep '^sched' "$EV")
	same "record --event=sched:sched_switc" "ktrace record --event=sched:sched_switc" sched_switch
	same "stream -e (record's options)" "ktrace stream -e sched_switc" sched_switch
	same "record -e al" "ktrace record -e al" $( (echo all; cut -d: -f1 "$EV"; cut -d: -f2 "$EV"; cat "$EV") | sort -u | grep '^al')
else
	skip 7 "record -e: event names" "$EV not readable here"
fi

# A real interactive bash on a pty: the replies land in the line as typed.
cat >"$TMP/drive_pty.py" <<'PY'
import os, pty, re, select, sys
rc, lines = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.environ['TERM'] = 'dumb'
    os.execvp('bash', ['bash', '--noprofile', '--rcfile', rc, '-i'])
buf = b''
def until(pattern):
    """what the terminal shows up to the end of pattern (a bytes regex), consumed"""
    global buf
    while True:
        m = re.search(pattern, buf)
        if m:
            seen, buf = buf[:m.end()], buf[m.end():]
            return m
        r, _, _ = select.select([fd], [], [], 120)
        if not r:
            sys.exit('no answer from bash')
        buf += os.read(fd, 65536)
until(rb'READY')
for i, line in enumerate(lines):
    # the line, one TAB, then echo what the line became (the line moved after "echo")
    os.write(fd, line.encode() + b'\t\x01echo LINE%d: \r' % i)
    m = until(rb'\nLINE%d: ([^\r\n]*)\r?\n' % i)
    print(m.group(1).decode().rstrip(' '))
os.write(fd, b'exit\r')
PY
printf 'PS1="\\n"\nPATH=%s:$PATH\n. %s\necho READY\n' "$ROOT/$B" "$COMP" >"$TMP/rc"
python3 "$TMP/drive_pty.py" "$TMP/rc" "ktrace export --format=sq" "ktrace timeline --lines-codec de" \
	"ktrace export --format pe" >"$TMP/pty.out" 2>&1
printf '%s\n' "ktrace export --format=sqlite" "ktrace timeline --lines-codec deflate" \
	"ktrace export --format perfetto" >"$TMP/want"
check_same "interactive bash: values completed in the line" "$TMP/want" "$TMP/pty.out"
if [ -r "$EV" ] && grep -q '^sched:sched_switch$' "$EV"; then
	python3 "$TMP/drive_pty.py" "$TMP/rc" "ktrace record -e sched_switc" "ktrace record -e sched:sched_switc" \
		"ktrace record --event=sched:sched_switc" >"$TMP/pty.out" 2>&1
	printf '%s\n' "ktrace record -e sched_switch" "ktrace record -e sched:sched_switch" \
		"ktrace record --event=sched:sched_switch" >"$TMP/want"
	check_same "interactive bash: event names completed in the line" "$TMP/want" "$TMP/pty.out"
else
	ok "interactive bash: event names # SKIP $EV not readable here"
fi
