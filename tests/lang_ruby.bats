#!/usr/bin/env bats
# --lang on Ruby 3.1 (Debian's ruby3.1): the running thread's frames read
# at each kernel event, no USDT probe (issue 24).  Counts exact against a
# workload that says what it did; runs as root with BPF, nothing may skip.
load helpers

setup() {
	T=$(mktemp -d)
	RB="$TOOLS/lang/today_workers.rb"
	TODAY_LINE=$(grep -n 'Date.today }' "$RB" | head -1 | cut -d: -f1)
	CPU_LINE=$(grep -n 'CLOCK_PROCESS_CPUTIME_ID)' "$RB" | head -1 | cut -d: -f1)
}

teardown() {
	bpf_stats_restore
	rm -rf "$T"
}

# The links PID holds whose program is a USDT one: 0 in frame mode.
usdt_links_of() {
	local link prog
	for link in $(awk '$1 == "link_id:" {print $2}' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u); do
		prog=$(bpftool -j link show id "$link" 2>/dev/null | jq -r '.prog_id // empty')
		[ -n "$prog" ] || continue
		bpftool -j prog show id "$prog" 2>/dev/null | jq -r .name
	done | grep -cE '^(ruby_entry|python_line|lang_return)$' || true
}

# FIELD summed over PID's sites at the workload's LINE in report R.
line_sum() {
	jqr "$1" "[.processes[] | select(.pid == $2) | .lang_sites[] |
		select(.file == \"$RB\" and .line == $3) | .$4] | add // 0"
}

# Every process the workload says worked: its Date.today line has its
# calls as tz accesses, its CPU-time line its reads as clock syscalls,
# and the report has that many processes.  R: the report, E: the stderr.
each_process_exact() {
	local r=$1 e=$2 want=$3 pids pid
	pids=$(grep -o 'role=[a-z]* pid=[0-9]* today_calls' "$e" | cut -d' ' -f2 | cut -d= -f2)
	[ "$(echo "$pids" | wc -w)" -eq "$want" ]
	for pid in $pids; do
		calls=$(grep "pid=$pid today_calls" "$e" | workload_sum /dev/stdin today_calls)
		reads=$(grep "pid=$pid today_calls" "$e" | workload_sum /dev/stdin cputime_reads)
		echo "pid $pid: today $(line_sum "$r" "$pid" "$TODAY_LINE" tz_accesses) of $calls, cputime $(line_sum "$r" "$pid" "$CPU_LINE" clock_syscalls) of $reads" >&2
		[ "$(line_sum "$r" "$pid" "$TODAY_LINE" tz_accesses)" -eq "$calls" ]
		[ "$(line_sum "$r" "$pid" "$CPU_LINE" clock_syscalls)" -eq "$reads" ]
		# The line made nothing else.
		[ "$(line_sum "$r" "$pid" "$TODAY_LINE" clock_syscalls)" -eq 0 ]
		[ "$(line_sum "$r" "$pid" "$CPU_LINE" tz_accesses)" -eq 0 ]
	done
	[ "$(jqr "$r" .lang.mechanism.ruby)" = frame ]
	[ "$(jqr "$r" .lang.usdt_files)" -eq 0 ]
	[ "$(jqr "$r" .losses.lang_ruby_frame_unreadable)" -eq 0 ]
	[ "$(jqr "$r" .lang.unattributed.not_gvl_holder)" -eq 0 ]
	[ "$(jqr "$r" .lang.unattributed.frames_past_limit)" -eq 0 ]
}

@test "ruby frames: forked workers' Date.today and CPU-time reads tied to their .rb lines, exact per process, no USDT link" {
	bpf_stats_on
	mkfifo "$T/done"
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- sh -c \
		"ruby '$RB' 300 2 2>'$T/err'; read x < '$T/done'" &
	ct=$!
	for _ in $(seq 300); do
		[ "$(grep -c today_calls "$T/err" 2>/dev/null)" = 3 ] && break
		sleep 0.1
	done
	links=$(usdt_links_of "$ct")
	runs=$(bpf_runs_of "$ct" '^(ruby_entry|lang_return)$')
	echo >"$T/done"
	wait "$ct"
	echo "USDT links: $links, USDT program runs: $runs" >&2
	[ "$links" -eq 0 ]
	[ "$runs" -eq 0 ]
	each_process_exact "$T/r.json" "$T/err" 3
	[ "$(jqr "$T/r.json" .lang.ruby_frame_processes)" -ge 1 ]
	# Named as Ruby names the frame.
	[ "$(jqr "$T/r.json" "[.processes[].lang_sites[] | select(.file == \"$RB\" and .line == $TODAY_LINE)][0].function")" = "block in work" ]
}

@test "ruby --lang=usdt: the probes are attached and run at each method call (the control of the test above)" {
	bpf_stats_on
	mkfifo "$T/done"
	env -u TZ "$CT" run --lang=usdt --json -o "$T/r.json" -- sh -c \
		"ruby --disable-gems '$RB' 300 2 2>'$T/err'; read x < '$T/done'" &
	ct=$!
	for _ in $(seq 300); do
		[ "$(grep -c today_calls "$T/err" 2>/dev/null)" = 3 ] && break
		sleep 0.1
	done
	links=$(usdt_links_of "$ct")
	runs=$(bpf_runs_of "$ct" '^(ruby_entry|lang_return)$')
	echo >"$T/done"
	wait "$ct"
	echo "USDT links: $links, USDT program runs: $runs" >&2
	[ "$links" -ge 1 ]
	# Each Date.today and Process.clock_gettime call enters and returns.
	[ "$runs" -ge 3600 ]
	[ "$(jqr "$T/r.json" .lang.mechanism.ruby)" = usdt ]
}

@test "ruby frames: 20 runs under --lang, no Ruby crash, every run exact" {
	for i in $(seq 20); do
		env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
			ruby "$RB" 50 2 2>"$T/err" ||
			{ echo "run $i: status $?" >&2; grep -v '^[0-9a-f]*-[0-9a-f]* ' "$T/err" | head -20 >&2; false; }
		run -1 grep -q '\[BUG\]\|Segmentation fault' "$T/err"
		each_process_exact "$T/r.json" "$T/err" 3 2>/dev/null
	done
}

@test "ruby frames: attach -p --lang to running workers, started after them, exact" {
	env -u TZ ruby "$RB" 200 2 wait 2>"$T/err" &
	wl=$!
	for _ in $(seq 100); do
		[ "$(grep -c waiting "$T/err")" = 3 ] && break
		sleep 0.1
	done
	pids=$(grep -o 'pid=[0-9]* waiting' "$T/err" | cut -d' ' -f1 | cut -d= -f2)
	"$CT" attach -p "$(echo $pids | tr ' ' ,)" --lang --json -o "$T/r.json" 2>"$T/ct" &
	ct=$!
	# Attached and the processes read (as the Python attach test waits).
	sleep 2
	[ "$(usdt_links_of "$ct")" -eq 0 ]
	kill -USR1 $pids
	wait "$wl"
	# attach ends when the processes it follows have all exited.
	for _ in $(seq 300); do
		kill -0 "$ct" 2>/dev/null || break
		sleep 0.1
	done
	wait "$ct"
	each_process_exact "$T/r.json" "$T/err" 3
	[ "$(jqr "$T/r.json" .lang.ruby_frame_processes)" -eq 3 ]
}

@test "ruby frames: threads of one process, each event under its own thread's line" {
	cat >"$T/threads.rb" <<'RUBY'
require "date"
GC.disable
n = Integer(ARGV[0])
a = Thread.new { n.times { Date.today } }
b = Thread.new { n.times { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) } }
c = Thread.new { n.times { Date.today; Thread.pass } }
[a, b, c].each(&:join)
warn "WORKLOAD calls=#{n}"
RUBY
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		ruby --disable-gems "$T/threads.rb" 2000 2>"$T/err"
	grep -q 'WORKLOAD calls=2000' "$T/err"
	site() {
		jqr "$T/r.json" "[.processes[0].lang_sites[] | select(.file == \"$T/threads.rb\" and .line == $1) | .$2] | add // 0"
	}
	[ "$(site 4 tz_accesses)" -eq 2000 ]
	[ "$(site 5 clock_syscalls)" -eq 2000 ]
	[ "$(site 6 tz_accesses)" -eq 2000 ]
	[ "$(site 5 tz_accesses)" -eq 0 ]
	[ "$(jqr "$T/r.json" .lang.unattributed.not_gvl_holder)" -eq 0 ]
}
