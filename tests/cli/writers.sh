# Writers and inputs under real operations (issue 30, items 11-16):
# - an input that cannot be a trace (/dev/zero, or '-' reading it) is refused from its
#   first bytes by every command, never copied to $TMPDIR without end; a stream is
#   copied at most KTRACE_SPOOL_MAX bytes, with a message that says so;
# - split into a missing directory fails (exit 1) and says so;
# - a full disk (a small tmpfs mounted here) leaves no partial output, no temporary
#   file or directory, for every writer; a tsv/jsonl directory is replaced whole;
# - a fatal signal at the moment a writer puts its output in place (held there by
#   tests/tools/holdrename.so) or while timeline waits on its input leaves nothing;
# - sql reads a FIFO and standard input as it reads the file;
# - -o never replaces a file the user may not write (run as nobody), root may.
. "$(dirname "$0")/../lib.sh"
echo "1..52"
FT="$SHARED/data/ftrace"
SMALL="$FT/synthetic_edge.v6.dat"
ALL="$TMP/all.dat"
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$ALL"
SP="$TMP/spool"       # a TMPDIR of our own: what is copied there can be seen
mkdir -p "$SP"
export TMPDIR="$SP"
# a small file system to fill (unmounted before lib.sh's trap removes $TMP)
FULL="$TMP/full"
mkdir -p "$FULL"
# (the traps first; also when the script is killed: a shell runs no EXIT trap then)
trap 'umount "$FULL" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'umount "$FULL" 2>/dev/null; rm -rf "$TMP"; exit 1' HUP INT TERM
mounted=
[ "$(id -u)" = 0 ] && mount -t tmpfs -o size=128k,mode=0755 ktrace-test "$FULL" 2>/dev/null && mounted=1

run() { "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; }
say_err() { sed 's/^/#   /' "$TMP/err" | head -5; }
# fails NAME PATTERN: passes when the last run exited 1 and stderr matches PATTERN
fails() {
	if [ "$st" = 1 ] && grep -q -- "$2" "$TMP/err"; then ok "$1"; else not_ok "$1 (exit $st)"; say_err; fi
}

# ---- 11: what cannot be a trace is not copied; the copy is bounded ----------------
# Should ktrace copy an endless input all the same (the bug these checks are for), it
# must not fill the machine's disk: these commands run with files of at most 64 MiB
# (ulimit -f: SIGXFSZ beyond), which fails the check as well.
bounded() { (ulimit -f 131072; exec "$@"); }
run bounded timeout 120 "$KTRACE" convert /dev/zero "$TMP/z.dat"
[ "$st" = 1 ] && grep -q '/dev/zero: offset 0x0: not a trace.dat file' "$TMP/err" && [ ! -e "$TMP/z.dat" ] &&
	ok "convert /dev/zero: refused from its first bytes, exit 1, no output" ||
	{ not_ok "convert /dev/zero (exit $st)"; say_err; }
run bounded timeout 120 "$KTRACE" split -o "$TMP/z" /dev/zero
[ "$st" = 1 ] && grep -q 'not a trace.dat file' "$TMP/err" && [ ! -e "$TMP/z.1" ] &&
	ok "split /dev/zero: refused from its first bytes, exit 1, no piece" ||
	{ not_ok "split /dev/zero (exit $st)"; say_err; }
for cmd in "convert - $TMP/z.dat" "split -o $TMP/z -" "export -o $TMP/z.json -" \
	   "export --format tsv -o $TMP/zdir -" "timeline - -o $TMP/z.html" "sql - select\ 1" \
	   "report -" "info -"; do
	# (word splitting on purpose: the commands hold no spaces but the escaped one)
	eval "run bounded timeout 120 \"\$KTRACE\" $cmd" </dev/zero
	[ "$st" = 1 ] && grep -Eq '^ktrace: -: (offset 0x0: )?(not a trace.dat file|unrecognised file format)' "$TMP/err" &&
		[ ! -e "$TMP/z.dat" ] && [ ! -e "$TMP/z.1" ] && [ ! -e "$TMP/z.json" ] && [ ! -e "$TMP/zdir" ] &&
		[ ! -e "$TMP/z.html" ] &&
		ok "ktrace ${cmd%% $TMP*} reading /dev/zero on standard input: refused at once, exit 1" ||
		{ not_ok "ktrace $cmd </dev/zero (exit $st)"; say_err; }
done
[ -z "$(ls -A "$SP")" ] && ok "nothing left in \$TMPDIR" || { not_ok "left in \$TMPDIR"; ls -A "$SP" | sed 's/^/#   /'; }

# a trace.dat followed by endless zeros: the copy stops at KTRACE_SPOOL_MAX
{ cat "$SMALL"; cat /dev/zero; } 2>/dev/null | KTRACE_SPOOL_MAX=1M bounded timeout 120 "$KTRACE" convert - "$TMP/z.dat" 2>"$TMP/err"
st=$?
[ "$st" = 1 ] && grep -q '^ktrace: -: larger than KTRACE_SPOOL_MAX (1M)' "$TMP/err" && [ ! -e "$TMP/z.dat" ] &&
	ok "convert - of an endless trace.dat: stops at KTRACE_SPOOL_MAX=1M, says so, exit 1" ||
	{ not_ok "convert - of an endless trace.dat (exit $st)"; say_err; }
{ cat "$SMALL"; cat /dev/zero; } 2>/dev/null | KTRACE_SPOOL_MAX=2M bounded timeout 120 "$KTRACE" export -o "$TMP/z.json" - 2>"$TMP/err"
st=$?
[ "$st" = 1 ] && grep -q '^ktrace: -: larger than KTRACE_SPOOL_MAX (2M)' "$TMP/err" && [ ! -e "$TMP/z.json" ] &&
	ok "export - of an endless trace.dat: stops at KTRACE_SPOOL_MAX=2M, says so, exit 1" ||
	{ not_ok "export - of an endless trace.dat (exit $st)"; say_err; }
cat "$SMALL" | KTRACE_SPOOL_MAX=lots "$KTRACE" convert -q - "$TMP/z.dat" 2>"$TMP/err"
st=$?
fails "KTRACE_SPOOL_MAX that is no size: refused, exit 1" 'KTRACE_SPOOL_MAX=lots: not a size'
"$KTRACE" convert -q "$SMALL" "$TMP/file.dat"
cat "$SMALL" | KTRACE_SPOOL_MAX=16k "$KTRACE" convert -q - "$TMP/pipe.dat" 2>"$TMP/err"
st=$?
[ "$st" = 0 ] && cmp -s "$TMP/file.dat" "$TMP/pipe.dat" &&
	ok "a trace.dat of exactly KTRACE_SPOOL_MAX (16k) on a pipe converts as the file does" ||
	{ not_ok "16 KiB trace under KTRACE_SPOOL_MAX=16k (exit $st)"; say_err; }
cat "$SMALL" | KTRACE_SPOOL_MAX=0 "$KTRACE" convert -q - "$TMP/pipe0.dat" 2>"$TMP/err"
st=$?
[ "$st" = 0 ] && cmp -s "$TMP/file.dat" "$TMP/pipe0.dat" && ok "KTRACE_SPOOL_MAX=0: no limit" ||
	{ not_ok "KTRACE_SPOOL_MAX=0 (exit $st)"; say_err; }
if [ -n "$mounted" ]; then
	cat "$ALL" | TMPDIR="$FULL" "$KTRACE" convert -q - "$TMP/z.dat" 2>"$TMP/err"
	st=$?
	[ "$st" = 1 ] && grep -q '^ktrace: -: copying the input to a temporary file.*No space left on device' "$TMP/err" &&
		[ -z "$(ls -A "$FULL")" ] && [ ! -e "$TMP/z.dat" ] &&
		ok "a full \$TMPDIR while copying standard input: exit 1, says so, nothing left" ||
		{ not_ok "full \$TMPDIR (exit $st)"; say_err; }
else
	ok "a full \$TMPDIR # SKIP cannot mount a tmpfs here"
fi

# ---- 12: split into a missing directory ---------------------------------------------
for mode in "" "-c"; do
	run "$KTRACE" split $mode -o "$TMP/missing/out" "$SMALL"
	[ "$st" = 1 ] && grep -q "^ktrace: $TMP/missing/out: cannot create a temporary file in $TMP/missing: No such file" "$TMP/err" &&
		[ ! -e "$TMP/missing" ] &&
		ok "split $mode -o MISSING_DIR/out: exit 1, the error names the output" ||
		{ not_ok "split $mode -o MISSING_DIR/out (exit $st)"; say_err; }
done

# ---- 13: a full disk leaves nothing; a directory is replaced whole --------------------
if [ -n "$mounted" ]; then
	for w in "export --format tsv -o $FULL/t $ALL" "export --format jsonl -o $FULL/t $ALL" \
		 "export -o $FULL/x.db $ALL" "export -o $FULL/x.json $ALL" "export -o $FULL/x.pftrace $ALL" \
		 "convert -q $ALL $FULL/c.dat" "timeline -q $ALL -o $FULL/t.html" "split -o $FULL/s $ALL"; do
		run "$KTRACE" $w
		out=$(echo "$w" | tr ' ' '\n' | grep "^$FULL" | head -1)
		[ "$st" = 1 ] && grep -q "^ktrace: $out" "$TMP/err" && grep -Eq 'No space left on device|disk is full' "$TMP/err" &&
			[ -z "$(ls -A "$FULL")" ] &&
			ok "ktrace ${w%% $ALL*} on a full disk: exit 1, the error names OUT, nothing left" ||
			{ not_ok "ktrace $w on a full disk (exit $st)"; say_err; ls -A "$FULL" | sed 's/^/#   left: /'; }
		rm -rf "${FULL:?}"/* 2>/dev/null
	done
else
	for i in 1 2 3 4 5 6 7 8; do ok "a writer on a full disk # SKIP cannot mount a tmpfs here"; done
fi

D="$TMP/tables"
"$KTRACE" export --format tsv -o "$D" "$SMALL" 2>"$TMP/err"
"$KTRACE" export --format jsonl -o "$D" "$SMALL" 2>"$TMP/err"
st=$?
[ "$st" = 0 ] && [ -s "$D/event.jsonl" ] && ! ls "$D" | grep -q '\.tsv$' && ! ls -a "$TMP" | grep -q '\.tmp' &&
	ok "an earlier export's directory is replaced whole (no .tsv beside the .jsonl)" ||
	{ not_ok "directory replaced whole (exit $st)"; ls "$D" | sed 's/^/#   /'; }
echo "my notes" >"$D/notes.txt"
cp "$D/event.jsonl" "$TMP/event.before"
run "$KTRACE" export --format tsv -o "$D" "$ALL"
[ "$st" = 1 ] && grep -q "^ktrace: $D: not replaced: the directory holds 'notes.txt'" "$TMP/err" &&
	cmp -s "$D/event.jsonl" "$TMP/event.before" && [ -s "$D/notes.txt" ] && ! ls "$D" | grep -q '\.tsv$' &&
	ok "a directory holding other files is refused, exit 1, left as it was" ||
	{ not_ok "directory with other files (exit $st)"; say_err; }
rm -f "$D/notes.txt"

# ---- 13, 14: a fatal signal while the output is put in place --------------------------
# wait_for FILE: until FILE exists (the process is then known to be held), at most a minute
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
# stop PID SIG: sends SIG, then waits for PID (SIGKILL after a minute, should SIG not
# end it): its status in $st
stop() {
	kill -"$2" "$1"
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	st=$?
}
# a background command of a script starts with SIGINT ignored (as no shell at a terminal
# runs it): the default action back, as where a user presses ^C
DFL=
env --default-signal=INT true 2>/dev/null && DFL="env --default-signal=INT"
if [ -z "${SANFLAGS:-}" ] && [ -f "$ROOT/$B/tests/tools/holdrename.so" ]; then
	H="$TMP/held"
	for w in "TERM export --format tsv -o $H/t $SMALL" "INT export --format jsonl -o $H/t $SMALL" \
		 "TERM export -o $H/x.db $SMALL" "TERM export -o $H/x.pftrace $SMALL" "HUP export -o $H/x.json $SMALL" \
		 "TERM convert -q $SMALL $H/c.dat" "TERM timeline -q $SMALL -o $H/t.html" \
		 "TERM split -o $H/s $SMALL" "TERM sql --db $H/q.db $SMALL select\ 1"; do
		rm -rf "$H" "$TMP/mark"; mkdir -p "$H"
		sig=${w%% *}
		eval "set -- ${w#* }"
		[ $sig = INT ] && [ -z "$DFL" ] && sig=TERM
		LD_PRELOAD="$ROOT/$B/tests/tools/holdrename.so" HOLDRENAME_MARK="$TMP/mark" \
			$DFL "$KTRACE" "$@" >/dev/null 2>"$TMP/err" &
		pid=$!
		if wait_for "$TMP/mark"; then
			stop $pid $sig
		else
			stop $pid KILL; st="never held"
		fi
		case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
		[ "$st" = "$want" ] && [ -z "$(ls -A "$H")" ] &&
			ok "SIG$sig as ktrace $1 puts its output in place: nothing left (status $st)" ||
			{ not_ok "SIG$sig as ktrace $* is held at the rename (status $st)"; say_err; ls -A "$H" | sed 's/^/#   left: /'; }
	done
	# an earlier directory being replaced stays as it was
	cp -r "$D" "$TMP/tables.before"
	rm -f "$TMP/mark"
	LD_PRELOAD="$ROOT/$B/tests/tools/holdrename.so" HOLDRENAME_MARK="$TMP/mark" \
		"$KTRACE" export --format tsv -o "$D" "$SMALL" 2>"$TMP/err" &
	pid=$!
	if wait_for "$TMP/mark"; then stop $pid TERM; else stop $pid KILL; st="never held"; fi
	[ "$st" = 143 ] && diff -r "$D" "$TMP/tables.before" >/dev/null && ! ls -a "$TMP" | grep -q '\.tmp' &&
		ok "SIGTERM while an earlier directory is replaced: it stays as it was, no temporary" ||
		{ not_ok "SIGTERM while replacing a directory (status $st)"; ls -a "$TMP" | sed 's/^/#   /'; }
else
	for i in 1 2 3 4 5 6 7 8 9 10; do ok "a signal at the rename # SKIP no preloading into a sanitized build"; done
fi

# timeline waiting on its input (a FIFO, standard input): the temporary page exists
mkfifo "$TMP/fifo"
T="$TMP/tl"
for how in fifo stdin; do
	rm -rf "$T"; mkdir -p "$T"
	if [ $how = fifo ]; then
		"$KTRACE" timeline -q "$TMP/fifo" -o "$T/t.html" 2>"$TMP/err" &
	else
		"$KTRACE" timeline -q - -o "$T/t.html" <"$TMP/fifo" 2>"$TMP/err" &
	fi
	pid=$!
	exec 5<>"$TMP/fifo"      # (read-write: never blocks, and no end of file while open)
	head -c 4096 "$ALL" >&5
	# (whatever its name: the temporary page is the first thing in $T)
	i=0
	while [ -z "$(ls -A "$T")" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	if [ -n "$(ls -A "$T")" ]; then
		stop $pid TERM
	else
		stop $pid KILL; st="no temporary seen"
	fi
	exec 5>&-
	[ "$st" = 143 ] && [ -z "$(ls -A "$T")" ] &&
		ok "SIGTERM while timeline reads its $how: no page, no temporary file (status $st)" ||
		{ not_ok "SIGTERM while timeline reads its $how (status $st)"; say_err; ls -A "$T" | sed 's/^/#   left: /'; }
done

# ---- 15: sql on a FIFO and on standard input -----------------------------------------
Q='select count(*) from event where cpu >= 0; select count(*), sum(int_value) from args; select trace_id, format from trace'
"$KTRACE" sql "$SMALL" "$Q" >"$TMP/sql.file"
# (the writer gives up after a while too, should ktrace never open the FIFO)
feed() { timeout 120 sh -c 'cat "$1" >"$2"' sh "$SMALL" "$TMP/fifo" & }
feed
timeout 120 "$KTRACE" sql "$TMP/fifo" "$Q" >"$TMP/sql.fifo" 2>"$TMP/err"
st=$?
wait
[ "$st" = 0 ] && [ -s "$TMP/sql.file" ] && cmp -s "$TMP/sql.file" "$TMP/sql.fifo" &&
	ok "sql on a FIFO: the answers of the file (no hang)" ||
	{ not_ok "sql on a FIFO (exit $st)"; say_err; diff "$TMP/sql.file" "$TMP/sql.fifo" | sed 's/^/#   /' | head; }
cat "$SMALL" | "$KTRACE" sql - "$Q" >"$TMP/sql.stdin" 2>"$TMP/err"
st=$?
[ "$st" = 0 ] && cmp -s "$TMP/sql.file" "$TMP/sql.stdin" &&
	ok "sql on standard input: the answers of the file (every scan of event and args)" ||
	{ not_ok "sql on standard input (exit $st)"; say_err; diff "$TMP/sql.file" "$TMP/sql.stdin" | sed 's/^/#   /' | head; }
"$KTRACE" export --format tsv -o "$TMP/tsv.file" "$SMALL"
feed
timeout 120 "$KTRACE" export --format tsv -o "$TMP/tsv.fifo" "$TMP/fifo" 2>"$TMP/err"
st=$?
wait
[ "$st" = 0 ] && [ -s "$TMP/tsv.file/event.tsv" ] && cmp -s "$TMP/tsv.file/event.tsv" "$TMP/tsv.fifo/event.tsv" &&
	cmp -s "$TMP/tsv.file/args.tsv" "$TMP/tsv.fifo/args.tsv" &&
	ok "export --format tsv of a FIFO: the event and args tables of the file" ||
	{ not_ok "export tsv of a FIFO (exit $st)"; say_err; }

# ---- 16: a file the user may not write is not replaced ---------------------------------
W="$TMP/world"
NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"
mkdir -p "$W"
chmod 755 "$TMP"
chmod 1777 "$SP"        # (nobody's temporary files)
chmod 777 "$W"          # anyone may rename into it (no sticky bit)
cp "$SMALL" "$W/in.dat"
chmod 644 "$W/in.dat"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && $NOBODY "$KTRACE" info "$W/in.dat" >/dev/null 2>&1; then
	for w in "convert -q $W/in.dat $W/ro.dat" "export -o $W/ro.json $W/in.dat" "export -o $W/ro.db $W/in.dat" \
		 "timeline -q $W/in.dat -o $W/ro.html" "split -o $W/ro $W/in.dat"; do
		out=$(echo "$w" | tr ' ' '\n' | grep "^$W/ro" | head -1)
		[ "$out" = "$W/ro" ] && out="$W/ro.1"
		echo "root's" >"$out"
		chmod 444 "$out"
		run $NOBODY "$KTRACE" $w
		[ "$st" = 1 ] && grep -q "not replaced: Permission denied" "$TMP/err" && [ "$(cat "$out")" = "root's" ] &&
			[ "$(stat -c %U:%a "$out")" = root:444 ] && ! ls -a "$W" | grep -q '\.tmp' &&
			ok "as nobody, ktrace ${w%% *} does not replace root's 0444 ${out##*/} (exit 1, says why)" ||
			{ not_ok "as nobody, ktrace $w over root's 0444 file (exit $st)"; say_err; ls -la "$W" | sed 's/^/#   /'; }
	done
	# a table directory of root's
	"$KTRACE" export --format tsv -o "$W/rot" "$W/in.dat"
	chmod 755 "$W/rot"
	cp "$W/rot/event.tsv" "$TMP/rot.before"
	run $NOBODY "$KTRACE" export --format jsonl -o "$W/rot" "$W/in.dat"
	[ "$st" = 1 ] && grep -q "$W/rot: not replaced: Permission denied" "$TMP/err" &&
		cmp -s "$W/rot/event.tsv" "$TMP/rot.before" && ! ls -a "$W" | grep -q '\.tmp' &&
		ok "as nobody, export --format jsonl does not replace root's table directory" ||
		{ not_ok "as nobody, over root's table directory (exit $st)"; say_err; }
	# nobody's own read-only file: refused too, as cp refuses it
	rm -f "$W/own.dat"
	$NOBODY sh -c "echo mine >'$W/own.dat' && chmod 444 '$W/own.dat'"
	run $NOBODY "$KTRACE" convert -q "$W/in.dat" "$W/own.dat"
	$NOBODY cp "$W/in.dat" "$W/own.dat" 2>/dev/null
	cp_st=$?
	[ "$st" = 1 ] && [ "$cp_st" != 0 ] && [ "$(cat "$W/own.dat")" = mine ] &&
		ok "as nobody, its own 0444 file is refused as cp refuses it" ||
		{ not_ok "nobody's own 0444 file (exit $st, cp exit $cp_st)"; say_err; }
	# root may, as with cp: the file is written, its mode stays
	run "$KTRACE" convert -q "$W/in.dat" "$W/ro.dat"
	[ "$st" = 0 ] && [ "$(stat -c %a "$W/ro.dat")" = 444 ] && "$KTRACE" info "$W/ro.dat" >/dev/null 2>&1 &&
		ok "root replaces a 0444 file (as cp does), which keeps its mode" ||
		{ not_ok "root over a 0444 file (exit $st)"; say_err; }
else
	for i in 1 2 3 4 5 6 7 8; do ok "permissions as nobody # SKIP not root, no setpriv, or nobody cannot run $KTRACE"; done
fi
