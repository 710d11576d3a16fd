#!/bin/sh
# -F filters (libtraceevent's syntax), -v, -T, --cpu, -I, -S: each expression is run
# through `ktrace report` and Debian's trace-cmd 3.1.6 `trace-cmd report` on the same
# file, and the outputs must be byte-identical; expressions trace-cmd rejects (or
# crashes on) must make ktrace exit with status 2.
. "$(dirname "$0")/../lib.sh"
N=0
# one check a "t" line below
plan "$(grep -c '^t ' "$0")"

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v zstd > /dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 1
fi
for n in allevents kmem stacks; do
	zstd -q -d -f -o "$TMP/$n.dat" "$ROOT/tests/data/report/$n.v6.dat.zst"
done
cp "$SHARED/data/ftrace/schedviz_cpu0.v6.dat" "$TMP/sv.dat"

# t FILE OPTIONS...: same output as trace-cmd (or both refuse the options)
t() {
	f=$1
	shift
	N=$((N + 1))
	"$KTRACE" report "$@" "$TMP/$f.dat" > "$TMP/out" 2> "$TMP/err"
	ks=$?
	# trace-cmd, the reference, gets three tries (see golden.sh: it is not always the
	# same); ktrace runs once
	for try in 1 2 3; do
		trace-cmd report "$@" "$TMP/$f.dat" > "$TMP/expect" 2> /dev/null
		ts=$?
		[ $ts -ne 0 ] || cmp -s "$TMP/out" "$TMP/expect" && break
	done
	if [ $ts -ne 0 ]; then
		if [ $ks -eq 2 ]; then ok "$f $* (refused, as by trace-cmd)"
		else not_ok "$f $*: trace-cmd refuses it, ktrace exits $ks"; fi
	elif [ $ks -eq 0 ] && [ -s "$TMP/expect" ] && cmp -s "$TMP/out" "$TMP/expect"; then
		ok "$f $* ($(($(wc -l < "$TMP/expect") - 1)) events)"
	else
		not_ok "$f $* (exit $ks, $(diff "$TMP/out" "$TMP/expect" | grep -c '^>') lines differ)"
		diff "$TMP/out" "$TMP/expect" | head -4 | sed 's/^/#   /'
		head -2 "$TMP/err" | sed 's/^/#   /'
	fi
}

# event names and patterns
t sv -F sched_switch
t sv -F SCHED_WAKEUP
t sv -F 'sched.*'
t sv -F 'sched/sched_w.*'
t kmem -F 'irq.*'
t allevents -F 'writeback/.*'
t stacks -F 'ftrace/print,raw_data'
t sv -F 'sched_switch,sched_wakeup: pid == 726 || next_pid == 726'
# numbers
t sv -F 'sched_switch: prev_pid == 10937'
t sv -F 'sched_switch: prev_pid == 0x2ac9'
t sv -F 'sched_switch: prev_pid > 0x1000'
t sv -F 'sched_switch: prev_prio < 120'
t sv -F 'sched_switch: prev_prio <= 120 && next_prio >= 100'
t sv -F 'sched_wakeup: success == 1 && target_cpu == 0'
t kmem -F 'kmem_cache_alloc: bytes_req > 100'
t allevents -F 'sys_exit: ret < 0'
t allevents -F 'sys_exit: ret > 0xffffffff'
t allevents -F 'mm_page_alloc: order > 0 || gfp_flags & 0x100'
t allevents -F 'filemap/.*: i_ino > 100 && !(s_dev == 0)'
# arithmetic and bit tests
t sv -F 'sched_switch: prev_state & 2'
t sv -F 'sched_switch: !(prev_state & 1)'
t allevents -F 'sys_exit: ret % 2'
t allevents -F 'sys_exit: ret >> 1'
t allevents -F 'sys_exit: ret ^ 2'
t allevents -F 'sys_exit: ret * 3'
t allevents -F 'sys_exit: ret / 4'
t allevents -F 'sys_exit: ret - 1'
t allevents -F 'sys_exit: ret | 1'
t allevents -F 'sys_exit: ret << 2'
t allevents -F 'sys_exit: ret & 1 && id > 2'
t kmem -F 'kmem/.*: gfp_flags & 0x400'
# strings and regular expressions
t sv -F 'sched_switch: prev_comm == "cat"'
t sv -F 'sched_switch: prev_comm != "cat" && prev_state == 1'
t sv -F 'sched_switch: prev_comm =~ "^mc"'
t sv -F 'sched_switch: next_comm !~ "swap.*"'
t sv -F 'sched_switch: prev_comm == "cat" || prev_comm == "mcollectived"'
t sv -F "sched_switch: prev_comm == 'c'"
t kmem -F 'kmalloc: call_site =~ "^alloc"'
t kmem -F 'kmem_cache_alloc: call_site == "alloc_empty_file"'
t kmem -F 'timer/hrtimer_.*: function =~ "tick"'
t kmem -F 'sched_switch: prev_comm =~ "k.*" && next_comm =~ "^s"'
t allevents -F '.*: name =~ "vda"'
t stacks -F 'print: buf =~ "marker"'
# COMM, CPU, common fields
t sv -F 'sched_switch: COMM =~ "mc"'
t sv -F 'sched_switch: CPU == 0'
t kmem -F '.*: COMM == "bash"'
t kmem -F '.*: CPU == 1 && common_flags & 0x1'
t kmem -F '.*: common_pid == 0'
# && || ! and parentheses (grouped left to right, as libtraceevent does)
t sv -F 'sched_switch: prev_pid == 10937 || next_pid == 0'
t sv -F 'sched_switch: (prev_pid == 726 || next_pid == 726) && prev_state == 1'
t allevents -F 'sys_exit: id == 0 || id == 1 && ret == 0'
t allevents -F 'sys_exit: id == 0 && ret == 0 || id == 1'
t allevents -F 'sys_exit: !(id == 0) && !(id == 1)'
t allevents -F 'sys_exit: !!(id == 3)'
t allevents -F 'sys_exit: id == 3 || !(id == 0 || id == 1)'
# fields an event does not have, libtraceevent's odd parses
t sv -F 'sched_switch: nosuch == 1'
t sv -F 'sched_switch: nosuch == 1 || prev_pid == 726'
t sv -F 'sched_switch: nosuch != 1 && prev_pid == 726'
t sv -F 'sched_switch: !nosuch == 1'
t sv -F 'sched_switch: prev_pid == -1'
# several filters, -v, stack traces that follow a shown event
t sv -F 'sched_switch: prev_pid == 726' -F 'sched_wakeup: pid == 7'
t sv -v -F 'sched_switch'
t sv -F 'sched_switch' -v -F 'sched_switch: next_pid == 0'
t kmem -F 'sched_switch' -F 'sched_wakeup' -v -F 'sched_switch: prev_state == 0'
t allevents -v -F 'mm.*' -F 'kmem/.*'
t stacks -F 'sched_switch'
t stacks -F 'sched_switch: prev_pid == 0'
t stacks -v -F 'user_stack'
# -I -S --cpu, with filters
t kmem -I
t kmem -S
t kmem -I -S -F 'irq/.*'
t kmem --cpu 1
t kmem --cpu 0,1 -F 'sched_switch'
# filters libtraceevent refuses
t sv -F 'sched_switch: prev_pid =='
t sv -F 'sched_switch: (prev_pid == 1'
t sv -F 'nosuchevent'
t sv -F 'sched_switch: prev_comm == cat'
t allevents -F 'sys_exit: ret == 1 + 2'
t allevents -F 'sys_exit: (ret + 1) == 0'
t allevents -F 'sys_exit: ~ret'
# -T: the filters as libtraceevent rewrote them
t sv -T -F 'sched_switch: prev_pid == 1 && (next_comm =~ "a" || nosuch == 2)'
t sv -T -F 'sched.*: pid == 3'
t sv -T -F 'sched_switch: prev_state & 3 || prev_prio > 100'
# --pid and --comm (trace-cmd's pid filter, added after the -F ones)
t sv --pid 726
t sv --pid 726,7 --pid 10937
t sv -T --pid 726,7 --pid 10937
t kmem --pid 16292 -F sched_switch
t kmem --comm bash,gzip
t kmem -T --comm gzip --comm ls
t kmem --comm ls --pid 7 -F sched_switch
# libtracecmd's blktrace event is there for patterns (not for -E)
t kmem -T -F 'ftrace/.*: pid == 3'
t allevents -T -F '.*'
echo "# $N filter runs"
