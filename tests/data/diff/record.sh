#!/bin/sh
# Records the diff test's traces (tests/diff/diff.sh) on a live machine: run as root from
# the repository's top after `make`; writes tests/data/diff/{base1,base2,changed}.dat.zst.
# Takes the test suite's tracefs lock; `ktrace record` leaves tracefs as it found it.
# The workload, 2 s of wall time each, all pinned:
#   latloop (CPU 1): sleeps 1 ms (select) in a loop: about 1,500 wakeups, each a wakeup
#                    latency of the thread latloop/latloop;
#   bgwork (CPU 0):  spins 2 ms (changed: 4 ms), then sleeps 3 ms;
#   changed only:    hog (CPU 1, nice -19) spins the whole time beside latloop.
# bgwork runs SCHED_FIFO (priority 10) so that the machine's other work does not move
# its CPU time; latloop at nice 0.
# The whole machine is traced (sched and irq events; other sessions' threads too);
# kallsyms are cut out (tests/data/flamegraph/trim_kallsyms.py keeping no line: nothing
# here needs them), the file converted back to version 7 (zstd).
set -eu
OUT=$(cd "$(dirname "$0")" && pwd)
KTRACE=${KTRACE:-$OUT/../../../build/ktrace}
W=$(mktemp -d /tmp/ktrace-diff-rec.XXXXXX)
trap 'rm -rf "$W"' EXIT
exec 9>/tmp/ktrace-tracefs.lock
flock 9
PERL=$(command -v perl)
cp "$PERL" "$W/latloop"
cp "$PERL" "$W/bgwork"
cp "$PERL" "$W/hog"
LAT='use Time::HiRes qw(time); my $e = time + 2; select(undef, undef, undef, 0.001) while time < $e'
BG='use Time::HiRes qw(time); my ($w) = @ARGV; my $e = time + 2;
    while (time < $e) { my $t = time + $w / 1000; 1 while time < $t; select(undef, undef, undef, 0.003) }'
HOG='use Time::HiRes qw(time); my $e = time + 2.2; 1 while time < $e'
rec() {   # name, bgwork's ms, hog (1 or 0)
	"$KTRACE" record -q -b 4096 -e sched -e irq -o "$W/$1.dat" -- sh -c "
		[ $3 = 0 ] || nice -n -19 taskset -c 1 '$W/hog' -e '$HOG' &
		chrt -f 10 taskset -c 0 '$W/bgwork' -e '$BG' $2 &
		taskset -c 1 '$W/latloop' -e '$LAT'
		wait"
	"$KTRACE" convert -q --file-version 6 --compression none -i "$W/$1.dat" -o "$W/$1.v6.dat"
	: >"$W/empty"
	python3 "$OUT/../flamegraph/trim_kallsyms.py" "$W/$1.v6.dat" "$W/empty" "$W/$1.trim.dat"
	"$KTRACE" convert -q -i "$W/$1.trim.dat" -o "$W/$1.v7.dat"
	zstd -q -19 -f "$W/$1.v7.dat" -o "$OUT/$1.dat.zst"
}
rec base1 2 0
rec base2 2 0
rec changed 4 1
ls -l "$OUT"/*.dat.zst
