# Fleet scale: two traces exported apart as TSV, loaded into a ClickHouse cluster of two
# shards (Debian's clickhouse-server run here as two plain processes, on 127.0.0.1 only,
# on free ports, every path in a temporary directory), one trace per shard, through
# schema.clickhouse.sql; queries through the Distributed tables (events per name, top
# CPU users, threads) equal ktrace sql on both files together. The servers are stopped
# by their pids; nothing is left behind.
. "$(dirname "$0")/../lib.sh"
plan 9

if ! command -v clickhouse-server >/dev/null || ! command -v clickhouse-client >/dev/null; then
	skip 9 "ClickHouse two-shard load and queries" "clickhouse-server/clickhouse-client are not installed (Debian packages clickhouse-server and clickhouse-client; scripts/deps.sh test installs them where apt has them)"
	exit 0
fi

# the tables' writer: ktrace export once it has these formats, else the example program
if "$KTRACE" help export 2>/dev/null | grep -q tsv; then
	EXPORT="$KTRACE export"
else
	EXPORT="$ROOT/$B/examples/sql_export"
fi

CH="$TMP/ch"
PIDS=""
stop_servers() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 150 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
	done
}
trap 'stop_servers; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# free ports: bound by the kernel, then released for the servers
set -- $(python3 -c '
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')
P1=$1 H1=$2 P2=$3 H2=$4
CLUSTER=ktrace_test

server_config() {   # dir tcp_port http_port
	d=$1
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	cat >"$d/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
	cat >"$d/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog>
    <size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>$2</tcp_port>
  <http_port>$3</http_port>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <timezone>UTC</timezone>
  <remote_servers><$CLUSTER>
    <shard><replica><host>127.0.0.1</host><port>$P1</port></replica></shard>
    <shard><replica><host>127.0.0.1</host><port>$P2</port></replica></shard>
  </$CLUSTER></remote_servers>
</yandex>
EOF
}

start_server() {   # dir
	clickhouse-server --config-file="$1/config.xml" >"$1/stdout" 2>&1 &
	PIDS="$PIDS $!"
}

wait_server() {   # port
	i=0
	while [ $i -lt 300 ]; do
		clickhouse-client --port "$1" --query 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

q() {   # port query...
	port=$1; shift
	clickhouse-client --port "$port" --distributed_product_mode=local "$@"
}

# two traces of different machines' kind, exported apart
for z in boot stacks; do
	zstd -q -d -f "$ROOT/tests/data/report/$z.v6.dat.zst" -o "$TMP/$z.dat" || not_ok "unpack $z"
	$EXPORT --format tsv --clickhouse-cluster "$CLUSTER" -o "$TMP/$z" "$TMP/$z.dat" ||
		not_ok "export $z as TSV"
done
grep -q "Distributed('$CLUSTER'" "$TMP/boot/schema.clickhouse.sql" &&
	ok "schema.clickhouse.sql: Distributed tables over cluster $CLUSTER" || not_ok "schema names the cluster"

server_config "$CH/s1" "$P1" "$H1"
server_config "$CH/s2" "$P2" "$H2"
start_server "$CH/s1"
start_server "$CH/s2"
if ! wait_server "$P1" || ! wait_server "$P2"; then
	not_ok "two ClickHouse servers on 127.0.0.1:$P1 and :$P2"
	tail -5 "$CH"/s*/stdout "$CH"/s*/error.log 2>/dev/null | sed 's/^/#   /'
	skip 7 "ClickHouse loads and queries" "no servers"
	exit 0
fi
ok "two ClickHouse servers ($(clickhouse-client --port "$P1" --query 'SELECT version()')) on 127.0.0.1:$P1 and :$P2"

loaded=true
for port in $P1 $P2; do
	q "$port" --multiquery <"$TMP/boot/schema.clickhouse.sql" || loaded=false
done
# boot on the first shard, stacks on the second (ClickHouse refuses an empty insert)
for t in $(cd "$TMP/boot" && ls *.tsv | sed 's/\.tsv$//'); do
	[ -s "$TMP/boot/$t.tsv" ] && { q "$P1" --query "INSERT INTO ${t}_local FORMAT TSV" <"$TMP/boot/$t.tsv" || loaded=false; }
	[ -s "$TMP/stacks/$t.tsv" ] && { q "$P2" --query "INSERT INTO ${t}_local FORMAT TSV" <"$TMP/stacks/$t.tsv" || loaded=false; }
done
n1=$(q "$P1" --query 'SELECT count() FROM event_local')
n2=$(q "$P2" --query 'SELECT count() FROM event_local')
e1=$("$KTRACE" sql "$TMP/boot.dat" 'select count(*) from event' | tail -1)
e2=$("$KTRACE" sql "$TMP/stacks.dat" 'select count(*) from event' | tail -1)
$loaded && [ "$n1" = "$e1" ] && [ "$n2" = "$e2" ] &&
	ok "schema and TSV loaded: one trace per shard ($n1 and $n2 events)" ||
	not_ok "loading: $n1/$e1 and $n2/$e2 events"

same() {   # name, ClickHouse query, SQLite query
	q "$P1" --query "$2" >"$TMP/ch.out" 2>"$TMP/ch.err"
	"$KTRACE" sql "$TMP/boot.dat" "$TMP/stacks.dat" "$3" | tail -n +2 >"$TMP/kt.out"
	if [ -s "$TMP/kt.out" ] && cmp -s "$TMP/ch.out" "$TMP/kt.out"; then
		ok "$1 ($(wc -l <"$TMP/kt.out") rows)"
	else
		not_ok "$1"
		head -3 "$TMP/ch.err" | sed 's/^/#   /'
		diff "$TMP/ch.out" "$TMP/kt.out" | head -6 | sed 's/^/#   /'
	fi
}

same "Distributed: events per name equal ktrace sql on both files" \
	'SELECT name, count() AS n FROM event GROUP BY name ORDER BY n DESC, name' \
	'select name, count(*) as n from event group by name order by n desc, name'
same "Distributed: top CPU users equal ktrace sql on both files" \
	"SELECT trace_id, tid, ifNull(name, '') AS thread, sum(dur) AS cpu FROM sched_slice
	 ANY INNER JOIN thread USING (trace_id, utid) WHERE dur >= 0
	 GROUP BY trace_id, tid, thread ORDER BY cpu DESC, tid LIMIT 20" \
	"select trace_id, tid, ifnull(t.name, '') as thread, sum(dur) as cpu from sched_slice s
	 join thread t using (trace_id, utid) where dur >= 0
	 group by trace_id, tid, thread order by cpu desc, tid limit 20"
same "Distributed: worst wakeup latencies equal ktrace sql on both files" \
	"SELECT trace_id, ts, dur, state FROM thread_state WHERE state = 'R' AND dur >= 0
	 ORDER BY dur DESC, ts LIMIT 10" \
	"select trace_id, ts, dur, state from thread_state where state = 'R' and dur >= 0
	 order by dur desc, ts limit 10"
same "Distributed: the machines behind the worst wakeup latencies (docs/fleet.md's query)" \
	"SELECT hostname, kernel_release, ts, dur FROM thread_state ANY INNER JOIN trace USING (trace_id)
	 WHERE state = 'R' AND waker_utid IS NOT NULL AND dur >= 0 ORDER BY dur DESC, ts LIMIT 10" \
	"select hostname, kernel_release, ts, dur from thread_state join trace using (trace_id)
	 where state = 'R' and waker_utid is not null and dur >= 0 order by dur desc, ts limit 10"
same "Distributed: the trace table lists both machines' traces" \
	'SELECT trace_id, hostname, kernel_release, events FROM trace ORDER BY trace_id' \
	'select trace_id, hostname, kernel_release, events from trace order by trace_id'

stop_servers
left=""
for p in $PIDS; do
	kill -0 "$p" 2>/dev/null && left="$left $p"
done
[ -z "$left" ] && ok "servers stopped by their pids" || not_ok "servers still running:$left"
PIDS=""
