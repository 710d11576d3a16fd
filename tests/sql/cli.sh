# ktrace sql's command line: output modes, several statements, the virtual tables
# against the same tables written to a database file, --db (kept, reused, rebuilt,
# never half-built, refused on special files), bad input and bad queries, statements
# from standard input, and the TSV/JSON-lines export read back.
. "$(dirname "$0")/../lib.sh"

plan 48
if "$KTRACE" help export 2>/dev/null | grep -q tsv; then
	EXPORT="$KTRACE export"
else
	EXPORT="$ROOT/$B/examples/sql_export"
fi
for z in allevents mixed boot; do
	zstd -q -d -f "$ROOT/tests/data/report/$z.v6.dat.zst" -o "$TMP/$z.dat" 2>/dev/null ||
		zstd -q -d -f "$ROOT/tests/data/tracedat/$z.v6.dat.zst" -o "$TMP/$z.dat" || not_ok "unpack $z"
done
A="$TMP/allevents.dat"

# ---- output modes ----
"$KTRACE" sql "$A" "select 1 as a, null as b, 'x	y' as c, 2.5 as d" >"$TMP/o"
printf 'a\tb\tc\td\n1\t\tx\\ty\t2.5\n' >"$TMP/e"
check_same "TSV: header, NULL as empty, tab escaped" "$TMP/o" "$TMP/e"
"$KTRACE" sql --csv "$A" "select 1 as a, null as b, 'x,\"y' as c" >"$TMP/o"
printf 'a,b,c\r\n1,,"x,""y"\r\n' >"$TMP/e"
check_same "CSV: RFC 4180 quoting" "$TMP/o" "$TMP/e"
"$KTRACE" sql --json "$A" "select name, count(*) as n from event group by name order by n desc limit 3; select 1.5 as r, null as z" >"$TMP/o"
python3 - "$TMP/o" <<'EOF' && ok "JSON: one array of objects per statement" || not_ok "JSON output"
import json, sys
lines = open(sys.argv[1]).read().strip().split(']\n')
a = json.loads(lines[0] + ']')
b = json.loads(lines[1] if lines[1].endswith(']') else lines[1] + ']')
assert len(a) == 3 and set(a[0]) == {'name', 'n'} and isinstance(a[0]['n'], int)
assert b == [{'r': 1.5, 'z': None}]
EOF
"$KTRACE" sql --box "$A" "select 'cpu' as k, 12 as v" >"$TMP/o"
grep -q '┌' "$TMP/o" && grep -q '│ cpu │ 12 │' "$TMP/o" && ok "box: a drawn table" || { not_ok "box"; cat "$TMP/o"; }
"$KTRACE" sql "$A" "select count(*) from event; select count(*) from trace;" >"$TMP/o"
[ "$(cat "$TMP/o" | tr '\n' ' ')" = "count(*) 12266 count(*) 1 " ] && ok "several statements run in order" ||
	{ not_ok "several statements"; cat "$TMP/o"; }

# ---- bad queries and bad input ----
"$KTRACE" sql "$A" "select count(*) from event; select * from nope" >"$TMP/o" 2>"$TMP/e"
st=$?
[ $st -eq 2 ] && grep -q 'no such table: nope' "$TMP/e" && [ "$(sed -n 2p "$TMP/o")" = 12266 ] &&
	ok "a query error: SQLite's message, exit 2, the statements before it ran" || { not_ok "query error (exit $st)"; cat "$TMP/e"; }
"$KTRACE" sql "$A" "selec 1" >/dev/null 2>"$TMP/e"; st=$?
[ $st -eq 2 ] && grep -q 'syntax error' "$TMP/e" && ok "a syntax error: exit 2" || not_ok "syntax error (exit $st)"
python3 - "$A" "$TMP/bad.dat" "$KTRACE" <<'EOF'
import json, subprocess, sys
info = json.loads(subprocess.run([sys.argv[3], 'info', '--json', sys.argv[1]], capture_output=True).stdout)
off = info['buffers'][0]['cpus'][0]['offset'] + 4096 * 10 + 8
d = bytearray(open(sys.argv[1], 'rb').read())
d[off:off + 8] = (0x7ffff).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
EOF
"$KTRACE" sql "$TMP/bad.dat" "select count(*) from event; select count(*) from args where arg_set_id > 0" >"$TMP/o" 2>"$TMP/e"
st=$?
n=$("$KTRACE" report "$TMP/bad.dat" 2>/dev/null | grep -v '^cpus=' | grep -vc 'EVENTS DROPPED')
[ $st -eq 1 ] && grep -q 'bad.dat: offset 0x3d000: CPU 0: sub-buffer commit size exceeds the page' "$TMP/e" &&
	[ "$(sed -n 2p "$TMP/o")" = "$n" ] && [ "$(sed -n 4p "$TMP/o")" -gt "$n" ] &&
	ok "a damaged trace: the $n rows before the damage, the file and offset, exit 1" ||
	{ not_ok "damaged trace (exit $st)"; cat "$TMP/o" "$TMP/e"; }
head -c 100000 "$SHARED/data/darwin/coreprofilesessiontap.bin" >"$TMP/cut.bin"
"$KTRACE" sql "$TMP/cut.bin" "select count(*) from event" >"$TMP/o" 2>"$TMP/e"; st=$?
[ $st -eq 1 ] && grep -q 'cut.bin' "$TMP/e" && [ "$(sed -n 2p "$TMP/o")" -gt 0 ] &&
	ok "a truncated Darwin file: $(sed -n 2p "$TMP/o") events, the error, exit 1" || { not_ok "truncated Darwin (exit $st)"; cat "$TMP/e"; }
: >"$TMP/empty"
"$KTRACE" sql "$TMP/empty" "select 1" >/dev/null 2>"$TMP/e"; st=$?
[ $st -eq 1 ] && grep -q 'empty' "$TMP/e" && ok "an empty file: exit 1" || not_ok "empty file (exit $st)"
"$KTRACE" sql >/dev/null 2>&1; [ $? -eq 2 ] && ok "no file: usage error" || not_ok "no file: usage error"

# ---- the virtual tables equal the same tables written out ----
# (read back with Python's sqlite3 module, printed as ktrace sql prints; K: queries use
# ktrace's own function extract_arg, so the file is read through ktrace sql only)
cat >"$TMP/read.py" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.text_factory = lambda b: b.decode('utf-8', 'surrogateescape')
cur = db.execute(sys.argv[2])
def text(v):
    if v is None:
        return ''
    v = str(v)
    return v.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')
out = ['\t'.join(text(d[0]) for d in cur.description)]
out += ['\t'.join(text(v) for v in row) for row in cur]
sys.stdout.buffer.write(('\n'.join(out) + '\n').encode('utf-8', 'surrogateescape'))
EOF
"$KTRACE" sql --db "$TMP/a.db" "$A" "select 1" >/dev/null || not_ok "--db build"
for query in \
	"select * from event order by id" \
	"select * from args order by arg_set_id, key" \
	"select e.id, e.name, a.key, a.int_value, a.string_value from event e join args a using (arg_set_id) where e.name = 'sched_switch' order by e.id, a.key" \
	"select id, name from event where id between 100 and 120 or id = 5000 order by id" \
	"select count(*), min(ts), max(ts) from event where cpu = 1" \
	"select name, count(*) from event where utid = 10 group by name order by name" \
	"K:select extract_arg(arg_set_id, 'prev_pid'), extract_arg(arg_set_id, 'next_comm') from event where name = 'sched_switch' order by id" \
	"select key, count(*) from args where key like 'args[%' group by key order by key" \
	"select count(*) from raw"; do
	q=${query#K:}
	"$KTRACE" sql "$A" "$q" >"$TMP/v" 2>&1
	"$KTRACE" sql --db "$TMP/a.db" "$q" >"$TMP/f" 2>&1
	if [ "$q" = "$query" ]; then
		python3 "$TMP/read.py" "$TMP/a.db" "$q" >"$TMP/s" 2>&1
	else
		cp "$TMP/f" "$TMP/s"
	fi
	if [ "$(wc -l <"$TMP/v")" -gt 1 ] && cmp -s "$TMP/v" "$TMP/f" && cmp -s "$TMP/v" "$TMP/s"; then
		ok "virtual tables = --db file = its rows read back: $q ($(($(wc -l <"$TMP/v") - 1)) rows)"
	else
		not_ok "virtual tables = --db file = its rows read back: $q"
		diff "$TMP/v" "$TMP/f" | head -4 | sed 's/^/#   /'
		diff "$TMP/v" "$TMP/s" | head -4 | sed 's/^/#   /'
	fi
done
"$KTRACE" sql "$A" "explain query plan select count(*) from event" | grep -q 'INDEX 1024' &&
	ok "count(*) of event reads nothing (a count-only scan)" || not_ok "count(*) plan"

# ---- --db: kept, reused, rebuilt, never half-built ----
# rebuilt NAME COMMAND...: COMMAND (a query of the table "marker", added to the database
# by hand) fails for want of that table, and the database holds the trace's events: it
# was made anew. (Not "COMMAND fails": a crash or a refused database fails too.)
rebuilt() {
	name=$1; shift
	"$@" >"$TMP/o" 2>"$TMP/e"; st=$?
	[ $st -eq 2 ] && grep -q 'no such table: marker' "$TMP/e" &&
		[ "$(sqlite3 "$TMP/a.db" 'select count(*) from event' 2>&1)" -gt 0 ] 2>/dev/null && ok "$name" ||
		{ not_ok "$name (exit $st)"; sed 's/^/#   /' "$TMP/e" | head -3; }
}
sqlite3 "$TMP/a.db" "create table marker (x)" || not_ok "sqlite3 writes the kept database"
"$KTRACE" sql --db "$TMP/a.db" "$A" "select count(*) from marker" >/dev/null 2>&1 &&
	ok "--db: an up-to-date database is reused" || not_ok "--db reuse"
rebuilt "--db: other inputs rebuild it" "$KTRACE" sql --db "$TMP/a.db" "$TMP/mixed.dat" "select count(*) from marker"
"$KTRACE" sql --db "$TMP/a.db" "$A" "select 1" >/dev/null
sqlite3 "$TMP/a.db" "create table marker (x)"
touch "$A"
rebuilt "--db: a newer input rebuilds it" "$KTRACE" sql --db "$TMP/a.db" "$A" "select count(*) from marker"
sqlite3 "$TMP/a.db" "create table marker (x)"
rebuilt "--rebuild rebuilds" "$KTRACE" sql --db "$TMP/a.db" --rebuild "$A" "select count(*) from marker"
chmod 640 "$TMP/a.db"
touch "$A"
"$KTRACE" sql --db "$TMP/a.db" "$A" "select 1" >/dev/null
[ "$(stat -c %a "$TMP/a.db")" = 640 ] && ok "--db: a rebuilt database keeps its mode" || not_ok "--db mode: $(stat -c %a "$TMP/a.db")"
cp "$TMP/a.db" "$TMP/keep.db"
touch "$TMP/bad.dat"
"$KTRACE" sql --db "$TMP/a.db" "$TMP/bad.dat" "select count(*) from event" >"$TMP/o" 2>"$TMP/e"; st=$?
[ $st -eq 1 ] && cmp -s "$TMP/a.db" "$TMP/keep.db" && grep -q 'not written' "$TMP/e" &&
	[ "$(sed -n 2p "$TMP/o")" -gt 0 ] && [ -z "$(ls "$TMP" | grep 'a.db.tmp')" ] &&
	ok "--db: a damaged input answers from memory and leaves the database as it was" ||
	{ not_ok "--db with a damaged input (exit $st)"; cat "$TMP/e"; }
"$KTRACE" sql --db "$TMP/new.db" "$TMP/bad.dat" "select 1" >/dev/null 2>&1
[ ! -e "$TMP/new.db" ] && ok "--db: no database made from a damaged input" || not_ok "--db: new.db made from a damaged input"
echo "my notes" >"$TMP/notes.db"
sqlite3 "$TMP/other.db" "create table mine (x); insert into mine values (42)"
"$KTRACE" sql --db "$TMP/notes.db" "$A" "select 1" >/dev/null 2>"$TMP/e"; st1=$?
"$KTRACE" sql --db "$TMP/other.db" "$A" "select 1" >/dev/null 2>>"$TMP/e"; st2=$?
[ $st1 -eq 1 ] && [ $st2 -eq 1 ] && [ "$(cat "$TMP/notes.db")" = "my notes" ] &&
	[ "$(sqlite3 "$TMP/other.db" 'select x from mine')" = 42 ] && grep -q 'not a database of ktrace sql' "$TMP/e" &&
	ok "--db: a file that is no ktrace sql database is left alone" || { not_ok "--db on other files ($st1, $st2)"; cat "$TMP/e"; }
"$KTRACE" sql --db "$TMP/other.db" "select x from mine" | grep -q '^42$' &&
	ok "--db without inputs: any SQLite file is queried as it is" || not_ok "--db without inputs"
mkfifo "$TMP/fifo"
"$KTRACE" sql --db "$TMP/fifo" "$A" "select 1" >/dev/null 2>"$TMP/e"; st=$?
[ $st -eq 1 ] && [ -p "$TMP/fifo" ] && grep -q 'fifo: not a' "$TMP/e" && ok "--db: a FIFO is refused, left as it is" ||
	{ not_ok "--db on a FIFO (exit $st)"; cat "$TMP/e"; }
ln -s a.db "$TMP/link.db"
touch "$A"
"$KTRACE" sql --db "$TMP/link.db" "$A" "select 1" >/dev/null 2>&1
[ -L "$TMP/link.db" ] && [ "$(sqlite3 "$TMP/a.db" 'select count(*) from event')" = 12266 ] &&
	ok "--db: a symbolic link stays, its target is written" || not_ok "--db through a symlink"
# interrupted while building: neither the database nor a temporary file remains
for i in $(seq 1 30); do set -- "$@" "$A"; done
"$KTRACE" sql --db "$TMP/big.db" "$@" "select 1" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && ! ls "$TMP" | grep -q 'big.db.tmp'; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid 2>/dev/null
wait $pid; st=$?
[ $st -ne 0 ] && [ ! -e "$TMP/big.db" ] && [ -z "$(ls "$TMP" | grep 'big.db')" ] &&
	ok "--db: killed while building (status $st), nothing left under either name" ||
	{ not_ok "--db interrupted (exit $st)"; ls "$TMP" | sed 's/^/#   /'; }
set --

# ---- statements from standard input ----
printf '.tables\n.schema sched_slice\nselect count(*)\n  from event;\n.mode csv\nselect 1 as x;\n' |
	"$KTRACE" sql "$A" >"$TMP/o" 2>&1
grep -q '^sched_slice$' "$TMP/o" && grep -q '^raw$' "$TMP/o" && grep -q 'CREATE TABLE sched_slice (id INTEGER PRIMARY KEY' "$TMP/o" &&
	grep -q '^12266$' "$TMP/o" && grep -q '^x' "$TMP/o" &&
	ok "standard input: .tables, .schema, statements over several lines, .mode" || { not_ok "standard input"; cat "$TMP/o"; }
printf 'select 1;\nselect * from nope;\nselect 2;\n' | "$KTRACE" sql "$A" >"$TMP/o" 2>"$TMP/e"; st=$?
[ $st -eq 2 ] && ! grep -q '^2$' "$TMP/o" && ok "a script from a pipe stops at its first failing statement, exit 2" ||
	not_ok "script error (exit $st)"

# ---- export: TSV and JSON lines read back equal the database ----
$EXPORT --format tsv -o "$TMP/tsv" "$A" "$TMP/boot.dat" || not_ok "export tsv"
$EXPORT --format jsonl -o "$TMP/jsonl" "$A" "$TMP/boot.dat" || not_ok "export jsonl"
$EXPORT --format sqlite -o "$TMP/x.db" "$A" "$TMP/boot.dat" || not_ok "export sqlite"
checker python3 - "$TMP/tsv" "$TMP/jsonl" "$TMP/x.db" <<'EOF'
import codecs, json, os, sqlite3, sys
tsv, jsonl, dbpath = sys.argv[1:]
db = sqlite3.connect(dbpath)
db.text_factory = lambda b: b.decode('utf-8', 'surrogateescape')
# the JSON writer keeps valid UTF-8 and takes any other byte as a Latin-1 character
codecs.register_error('latin1', lambda e: (e.object[e.start:e.start + 1].decode('latin-1'), e.start + 1))
def json_form(row):
    return tuple(v.encode('utf-8', 'surrogateescape').decode('utf-8', 'latin1') if isinstance(v, str) else v
                 for v in row)
tables = [r[0] for r in db.execute("select name from sqlite_schema where type = 'table' order by name")]
def unescape(v):
    if v == '\\N':
        return None
    out, i = [], 0
    while i < len(v):
        if v[i] == '\\' and i + 1 < len(v):
            out.append({'t': '\t', 'n': '\n', 'r': '\r', '\\': '\\', '0': '\0'}.get(v[i + 1], v[i + 1]))
            i += 2
        else:
            out.append(v[i])
            i += 1
    return ''.join(out)
def typed(v, t):
    if v is None:
        return None
    return int(v) if t == 'INTEGER' else float(v) if t == 'REAL' else v
mem = sqlite3.connect(':memory:')
mem.executescript(open(os.path.join(tsv, 'schema.sqlite.sql')).read())
bad = []
for t in tables:
    cols = db.execute('pragma table_info(%s)' % t).fetchall()
    types = [c[2] for c in cols]
    want = db.execute('select * from %s' % t).fetchall()
    rows = []
    with open(os.path.join(tsv, t + '.tsv'), encoding='utf-8', errors='surrogateescape', newline='\n') as f:
        for line in f:
            vals = line.rstrip('\n').split('\t')
            rows.append(tuple(typed(unescape(v), ty) for v, ty in zip(vals, types)))
    mem.executemany('insert into %s values (%s)' % (t, ','.join('?' * len(cols))),
                    [tuple(v.encode('utf-8', 'surrogateescape') if isinstance(v, str) else v for v in r)
                     for r in rows])
    jrows = [tuple(json.loads(l)[c[1]] for c in cols) for l in open(os.path.join(jsonl, t + '.jsonl'))]
    if rows != want:
        bad.append('%s.tsv: %d rows, database %d' % (t, len(rows), len(want)))
    if jrows != [json_form(r) for r in want]:
        bad.append('%s.jsonl: %d rows, database %d' % (t, len(jrows), len(want)))
n = sum(db.execute('select count(*) from %s' % t).fetchone()[0] for t in tables)
if bad or len(tables) != 12:
    print('not ok - export read back: ' + '; '.join(bad[:4]))
else:
    print('ok - export: %d tables, %d rows; TSV (into schema.sqlite.sql) and JSON lines equal the database file' % (len(tables), n))
EOF
grep -q 'ENGINE = MergeTree() ORDER BY (trace_id, ts)' "$TMP/tsv/schema.clickhouse.sql" &&
	grep -q "Distributed('ktrace', currentDatabase(), event_local, trace_id)" "$TMP/tsv/schema.clickhouse.sql" &&
	ok "schema.clickhouse.sql: MergeTree by (trace_id, ts), Distributed over the default cluster" || not_ok "ClickHouse schema"
$EXPORT --format tsv --clickhouse-cluster 'a b' -o "$TMP/t2" "$A" >/dev/null 2>"$TMP/e"; st=$?
[ $st -ne 0 ] && grep -q 'cluster name "a b"' "$TMP/e" && [ ! -e "$TMP/t2" ] &&
	ok "export: a cluster name that is no identifier is refused, nothing written" ||
	{ not_ok "a cluster name with a space must be refused (exit $st)"; sed 's/^/#   /' "$TMP/e" | head -3; }
if [ "$EXPORT" = "$KTRACE export" ]; then
	# a damaged input: nothing written without --partial; with it, the rows before the damage
	"$KTRACE" export --format sqlite -o "$TMP/bad.db" "$TMP/bad.dat" 2>"$TMP/e"; st=$?
	[ $st -eq 1 ] && [ ! -e "$TMP/bad.db" ] && grep -q 'bad.dat: offset 0x3d000' "$TMP/e" &&
		[ -z "$(ls "$TMP" | grep 'bad\.db.')" ] &&
		ok "ktrace export of a damaged trace: the error with its offset, exit 1, no file" ||
		{ not_ok "export damaged (exit $st)"; cat "$TMP/e"; }
	"$KTRACE" export --partial --format sqlite -o "$TMP/bad.db" "$TMP/bad.dat" 2>"$TMP/e"; st=$?
	got=$(sqlite3 "$TMP/bad.db" 'select count(*) from event' 2>&1)
	[ $st -eq 1 ] && [ "$got" = "$n" ] &&
		ok "ktrace export --partial: the $n events before the damage, exit 1" ||
		{ not_ok "export --partial (exit $st, $got events, want $n)"; cat "$TMP/e"; }
	"$KTRACE" export --format tsv "$A" >/dev/null 2>&1; st1=$?
	"$KTRACE" export --format csv -o "$TMP/c" "$A" >/dev/null 2>&1; st2=$?
	"$KTRACE" export --format tsv -o - "$A" >/dev/null 2>&1; st3=$?
	[ $st1 -eq 2 ] && [ $st2 -eq 2 ] && [ $st3 -eq 2 ] && [ ! -e "$TMP/c" ] &&
		ok "ktrace export: no -o, an unknown format, standard output: usage errors" ||
		not_ok "export usage errors ($st1 $st2 $st3)"
	"$KTRACE" export --format tsv --clickhouse-cluster fleet -o "$TMP/t3" "$A" &&
		grep -q "Distributed('fleet', currentDatabase(), event_local, trace_id)" "$TMP/t3/schema.clickhouse.sql" &&
		ok "ktrace export --clickhouse-cluster names the cluster" || not_ok "export --clickhouse-cluster"
	# one command with the trace formats (src/export.c): the table formats from OUT's
	# ending too, and the options of one family refused for the other, nothing written
	mkdir "$TMP/end"
	"$KTRACE" export -o "$TMP/end/a.db" "$A" && "$KTRACE" export -o "$TMP/end/a.tsv" "$A" &&
		"$KTRACE" export -o "$TMP/end/a.jsonl" "$A" &&
		[ "$(sqlite3 "$TMP/end/a.db" 'select count(*) from event')" = \
		  "$(sqlite3 "$TMP/x.db" "select count(*) from event where trace_id = (select trace_id from trace where path like '%allevents.dat')")" ] &&
		[ -s "$TMP/end/a.tsv/event.tsv" ] && [ -s "$TMP/end/a.jsonl/event.jsonl" ] &&
		[ "$(wc -l <"$TMP/end/a.tsv/event.tsv")" = "$(wc -l <"$TMP/end/a.jsonl/event.jsonl")" ] &&
		ok "ktrace export: OUT ending in .db, .tsv, .jsonl chooses sqlite, tsv, jsonl" ||
		{ not_ok "export: format from OUT's ending"; ls -R "$TMP/end" | head; }
	bad=""
	for o in "-F sched_switch" "-v" "--cpu 0" "--pid 1" "--comm x" "--legacy-generic" "-q"; do
		# shellcheck disable=SC2086
		"$KTRACE" export $o --format sqlite -o "$TMP/end/f.db" "$A" 2>"$TMP/e"; st=$?
		{ [ $st -eq 2 ] && grep -q "applies to perfetto and json, not to sqlite" "$TMP/e" &&
		  [ ! -e "$TMP/end/f.db" ]; } || bad="$bad [$o: $st]"
	done
	for f in perfetto json; do
		"$KTRACE" export --clickhouse-cluster fleet --format $f -o "$TMP/end/f.$f" "$A" 2>"$TMP/e"; st=$?
		{ [ $st -eq 2 ] && grep -q "applies to sqlite, tsv and jsonl, not to $f" "$TMP/e" &&
		  [ ! -e "$TMP/end/f.$f" ]; } || bad="$bad [--clickhouse-cluster $f: $st]"
	done
	(cd "$TMP/end" && "$KTRACE" export --clickhouse-cluster fleet "$A" 2>/dev/null) ||
		[ -e "$TMP/end/allevents.perfetto-trace" ] && bad="$bad [--clickhouse-cluster, default perfetto]"
	[ -z "$bad" ] && ok "ktrace export: options of the other formats' family are usage errors, nothing written" ||
		not_ok "export: options of the other family accepted:$bad"
else
	skip 6 "ktrace export" "ktrace export has no table formats in this build"
fi

# ---- the prompt on a terminal ----
checker python3 - "$KTRACE" "$TMP/mixed.dat" <<'PYEOF'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], ['ktrace', 'sql', sys.argv[2]])
out = b''
def read_for(t):
    global out
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                return
for line in [b'.tables\n', b'select count(*)\n', b'from event;\n', b'select nope;\n', b'select 7 * 6;\n', b'.quit\n']:
    read_for(1.0)
    os.write(fd, line)
read_for(3.0)
_, st = os.waitpid(pid, 0)
text = out.decode(errors='replace')
want = ['ktrace> ', '   ...> ', 'thread_state', '│      823 │', 'no such column: nope', '│    42 │']
missing = [w for w in want if w not in text]
if os.waitstatus_to_exitcode(st) == 0 and not missing:
    print('ok - the prompt at a terminal: .tables, a statement over two lines in a box, an error, and on')
else:
    print('not ok - the prompt at a terminal (status %d, missing %s)' % (os.waitstatus_to_exitcode(st), missing))
    for l in text.splitlines()[-8:]:
        print('#   ' + l)
PYEOF
# a fuzzed Darwin file (found by fuzz_export): a class without a name and thread ids past
# INT64_MAX in its thread map; the 8 events before its truncation are read, then the
# error (ktrace sql said "out of memory", ktrace export crashed). Its events' CPUs are
# out of range (653312...: damage where reading stops); its -cpus twin has them 0-3.
"$KTRACE" sql "$ROOT/fuzz/corpus/fuzz_sql/darwin-unknown-class-negative-tid" "select count(*) from event" \
	>"$TMP/o" 2>"$TMP/e"; st=$?
[ $st = 1 ] && grep -q 'offset 0xd000: event: CPU 653312 out of range' "$TMP/e" &&
	ok "fuzzed Darwin file: its first event's CPU is out of range, exit 1" ||
	{ not_ok "fuzzed Darwin file, CPUs out of range (exit $st)"; cat "$TMP/o" "$TMP/e"; }
f="$ROOT/fuzz/corpus/fuzz_sql/darwin-unknown-class-negative-tid-cpus"
"$KTRACE" sql "$f" "select count(*) from event" >"$TMP/o" 2>"$TMP/e"; st=$?
[ $st = 1 ] && grep -qx '8' "$TMP/o" && grep -q 'offset 0xd200: truncated event' "$TMP/e" &&
	ok "fuzzed Darwin file: its 8 events, then where it is truncated, exit 1" ||
	{ not_ok "fuzzed Darwin file (exit $st)"; cat "$TMP/o" "$TMP/e"; }
"$KTRACE" export -q --partial -o "$TMP/fz.json" "$f" 2>"$TMP/e"; st=$?
[ $st = 1 ] && python3 -m json.tool "$TMP/fz.json" >/dev/null 2>&1 &&
	ok "fuzzed Darwin file: export --partial writes what it read, exit 1" ||
	{ not_ok "fuzzed Darwin file: export (exit $st)"; cat "$TMP/e"; }
