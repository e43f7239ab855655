#!/usr/bin/env bats
# --lang on Ruby 3.1, frame mode: what tests/lang_ruby.bats asserts on
# counts, here at the scale and the timing make bench is for (issue 24):
# no crash in 200 runs, and nothing paid per method call.

load ../helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# tests/lang_ruby.bats runs 20 of these; a crash rate of 3 in 120 (Ruby
# 3.1 under its USDT probes, README) would show here almost surely.
@test "ruby frames: 200 runs under --lang, no Ruby crash, every run's lines exact" {
	rb="$TOOLS/lang/today_workers.rb"
	today=$(grep -n 'Date.today }' "$rb" | head -1 | cut -d: -f1)
	cpu=$(grep -n 'CLOCK_PROCESS_CPUTIME_ID)' "$rb" | head -1 | cut -d: -f1)
	for i in $(seq 200); do
		env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
			ruby --disable-gems "$rb" 50 2 2>"$T/err" >/dev/null ||
			{ echo "run $i: status $?" >&2; head -20 "$T/err" >&2; false; }
		run -1 grep -q '\[BUG\]\|Segmentation fault' "$T/err"
		[ "$(jqr "$T/r.json" .lang.mechanism.ruby)" = frame ]
		tz=$(jqr "$T/r.json" "[.processes[].lang_sites[] |
			select(.file == \"$rb\" and .line == $today) | .tz_accesses] | add // 0")
		clk=$(jqr "$T/r.json" "[.processes[].lang_sites[] |
			select(.file == \"$rb\" and .line == $cpu) | .clock_syscalls] | add // 0")
		[ "$tz" -eq "$(workload_sum "$T/err" today_calls)" ] &&
			[ "$clk" -eq "$(workload_sum "$T/err" cputime_reads)" ] ||
			{ echo "run $i: $tz tz accesses at line $today, $clk clock syscalls at $cpu" >&2
			  jq -c '.lang, [.processes[] | [.pid, .comm, .lang_sites]]' "$T/r.json" >&2
			  grep WORKLOAD "$T/err" >&2; false; }
	done
	[ "$(workload_sum "$T/err" today_calls)" -eq 150 ]
}

# Frame mode reads at kernel events only; a C method served by the vDSO
# makes none.  USDT traps at each call's entry and return: the control.
@test "ruby: frame mode costs nothing per method call: < 1.2x untraced, where USDT is > 10x" {
	spin="$TOOLS/lang/spin.rb"
	# Best of five, untraced and traced interleaved (as the Python test).
	for _ in 1 2 3 4 5; do
		spin_ns ruby --disable-gems "$spin" 2000000 >> "$T/u"
		spin_ns "$CT" run --lang --json -o "$T/out.json" -- \
			ruby --disable-gems "$spin" 2000000 >> "$T/f"
	done
	u=$(sort -n "$T/u" | head -1)
	f=$(sort -n "$T/f" | head -1)
	x=$(spin_ns "$CT" run --lang=usdt -o /dev/null -- \
		ruby --disable-gems "$spin" 20000)
	echo "untraced: $(tr '\n' ' ' < "$T/u"); frame mode: $(tr '\n' ' ' < "$T/f")" >&2
	echo "ns per call: untraced $u, frame mode $f, USDT $x" >&2
	awk -v u="$u" -v f="$f" 'BEGIN { exit !(f < 1.2 * u) }'
	awk -v u="$u" -v x="$x" 'BEGIN { exit !(x > 10 * u) }'
	[ "$(jqr "$T/out.json" .lang.mechanism.ruby)" = frame ]
}
