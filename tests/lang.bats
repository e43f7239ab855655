#!/usr/bin/env bats
# --lang: kernel events tied to Ruby and Python script lines, exact against
# workloads that make a known number of calls.  Debian's ruby and python3
# carry USDT probes; runs as root with BPF and nothing here may skip.
load helpers

# Ruby runs --disable-gems: see README, "--lang" (a crash of Ruby's own
# rb_dtrace_setup() seen while rubygems loads under the probes).
setup() {
	tmp=$(mktemp -d)
}

teardown() {
	bpf_stats_restore
	rm -rf "$tmp"
}

# Line number of the first line of FILE matching PATTERN.
line_of() {
	grep -n "$2" "$1" | head -1 | cut -d: -f1
}

# FIELD of the lang site at FILE:LINE of process number I in the report.
site_field() {
	jqr "$tmp/out.json" "[.processes[$1].lang_sites[] | select(.file == \"$2\" and .line == $3)][0].$4 // 0"
}

# Frame mode (the default) is tests/lang_ruby.bats'; USDT's here.
@test "ruby --lang=usdt: forked workers' tz accesses and CPU clock reads named by .rb line, exact per process" {
	rb="$TOOLS/lang/forkers.rb"
	tz_line=$(line_of "$rb" 'Time.now.localtime')
	clk_line=$(line_of "$rb" 'CLOCK_PROCESS_CPUTIME_ID')
	env -u TZ "$CT" run --lang=usdt --libc --json -o "$tmp/out.json" -- \
		ruby --disable-gems "$rb" 150 2 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" .lang.mechanism.ruby)" = usdt ]
	[ "$(jqr "$tmp/out.json" '.processes | length')" -eq 3 ]
	for i in 0 1 2; do
		[ "$(site_field $i "$rb" "$tz_line" tz_accesses)" -eq 150 ]
		[ "$(site_field $i "$rb" "$tz_line" function)" = localtime ]
		[ "$(site_field $i "$rb" "$tz_line" class)" = Time ]
		[ "$(site_field $i "$rb" "$tz_line" libc_function)" = tzset ]
		[ "$(site_field $i "$rb" "$clk_line" clock_syscalls)" -eq 150 ]
		[ "$(site_field $i "$rb" "$clk_line" function)" = clock_gettime ]
	done
	# The finding names the line.
	jqr "$tmp/out.json" '.findings[] | select(.id == "tz-repeated-access") | .message' |
		grep -F "under the ruby line $rb:$tz_line in Time#localtime"
}

@test "ruby: the text report has one row per script line over the processes (--lang-depth 1: no chain)" {
	env -u TZ "$CT" run --lang --lang-depth 1 -o "$tmp/out.txt" -- \
		ruby --disable-gems "$TOOLS/lang/forkers.rb" 40 2 2>/dev/null
	tz_line=$(line_of "$TOOLS/lang/forkers.rb" 'Time.now.localtime')
	clk_line=$(line_of "$TOOLS/lang/forkers.rb" 'CLOCK_PROCESS_CPUTIME_ID')
	grep -E "^ +120 +0  ruby +.*/forkers\.rb:$tz_line in block in work \[3 processes\]$" "$tmp/out.txt"
	grep -E "^ +0 +120  ruby +.*/forkers\.rb:$clk_line in block in work \[3 processes\]$" "$tmp/out.txt"
}

# The pool's per-worker counts against the workload's own; MECHANISM is
# what the report must say followed the Python frames.
pool_exact() {
	py="$TOOLS/lang/pool.py"
	line=$(line_of "$py" '^ *time\.mktime(')
	env -u TZ "$CT" run --lang --libc --json -o "$tmp/out.json" -- \
		/usr/bin/python3 "$py" 120 2 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" .lang.mechanism.python)" = "$1" ]
	[ "$(grep role=parent "$tmp/err" | grep -o 'mktime_calls=[0-9]*')" = mktime_calls=240 ]
	# Per worker: the line's tz accesses equal the calls it says it made.
	for pid in $(grep -o 'role=worker pid=[0-9]*' "$tmp/err" | cut -d= -f3 | sort -u); do
		want=$(grep "role=worker pid=$pid " "$tmp/err" | workload_sum /dev/stdin mktime_calls)
		got=$(jqr "$tmp/out.json" "[.processes[] | select(.pid == $pid) | .lang_sites[] | select(.file == \"$py\" and .line == $line) | .tz_accesses] | add")
		echo "worker $pid: $got of $want" >&2
		[ "$got" -eq "$want" ] || {
			# What the worker's events went to instead.
			jqr "$tmp/out.json" "[.processes[] | select(.pid == $pid) | {tz: .tz.accesses, lang_sites}], .losses, .lang, .lost_events" >&2
			false
		}
	done
	[ "$(jqr "$tmp/out.json" "[.processes[].lang_sites[] | select(.file == \"$py\" and .line == $line) | .tz_accesses] | add")" -eq 240 ]
	[ "$(jqr "$tmp/out.json" "[.processes[].lang_sites[] | select(.file == \"$py\" and .line == $line)][0].function")" = task ]
	[ "$(jqr "$tmp/out.json" "[.processes[].lang_sites[] | select(.file == \"$py\" and .line == $line)][0].libc_function")" = mktime ]
	[ "$(jqr "$tmp/out.json" .losses.lang_python_frame_unreadable)" -eq 0 ]
	[ "$(jqr "$tmp/out.json" .lang.python_lines_unknown)" -eq 0 ]
}

@test "python: a multiprocessing pool's mktime(localtime()) named by .py line, exact per worker (frames read, CPython 3.11)" {
	pool_exact frame
}

@test "python: the same through the USDT line probe (CLOCKTRACE_NO_PYFRAME, the other versions' path)" {
	CLOCKTRACE_NO_PYFRAME=1 pool_exact usdt
}

# Runs of the Python line probe while PROG runs spin.py's N lines: PROG is
# a shell that holds clocktrace (and its programs' counts) until told.
line_probe_runs() {
	mkfifo "$tmp/done"
	env "$@" "$CT" run --lang --json -o "$tmp/out.json" -- sh -c \
		"/usr/bin/python3 '$TOOLS/lang/spin.py' lines 20000 2>'$tmp/spin'
		 read x < '$tmp/done'" 2>/dev/null &
	ct=$!
	for _ in $(seq 300); do
		grep -q '^WORKLOAD' "$tmp/spin" 2>/dev/null && break
		sleep 0.1
	done
	bpf_runs_of "$ct" '^python_line$'
	echo >"$tmp/done"
	wait "$ct"
	rm -f "$tmp/done" "$tmp/spin"
}

# The cost itself (< 1.5x untraced, > 10x) is measured by make bench
# (tests/perf/perf.bats): here, what it comes from, counted.
@test "python: frame mode runs no probe per line, where the line probe runs for each of 20,000" {
	bpf_stats_on
	frame=$(line_probe_runs)
	echo "python_line runs in frame mode: $frame" >&2
	[ "$frame" -eq 0 ]
	[ "$(jqr "$tmp/out.json" .lang.mechanism.python)" = frame ]
	usdt=$(line_probe_runs CLOCKTRACE_NO_PYFRAME=1)
	echo "python_line runs in USDT line mode: $usdt" >&2
	[ "$usdt" -ge 20000 ]
	[ "$(jqr "$tmp/out.json" .lang.mechanism.python)" = usdt ]
}

@test "--format folded with --lang: script frames outermost first, libc function, event kind" {
	env -u TZ "$CT" run --lang --libc --format folded -o "$tmp/out.folded" -- \
		ruby --disable-gems "$TOOLS/lang/forkers.rb" 30 1 2>/dev/null
	cat "$tmp/out.folded" >&2
	rb=$TOOLS/lang/forkers.rb
	tz_line=$(line_of "$rb" 'Time.now.localtime')
	clk_line=$(line_of "$rb" 'CLOCK_PROCESS_CPUTIME_ID')
	fork=$(line_of "$rb" 'fork { work(n) }')
	main=$(line_of "$rb" '^work(n)$')
	# The parent's work, then the forked worker's (its <main> named from
	# the parent: the same frame at the same address).
	grep -Eqx "ruby;forkers\\.rb:$main <main>;forkers\\.rb:$tz_line work;forkers\\.rb:$tz_line block in work;tzset;tz 30" "$tmp/out.folded"
	grep -Eqx "ruby;forkers\\.rb:$main <main>;forkers\\.rb:$clk_line work;forkers\\.rb:$clk_line block in work;clock 30" "$tmp/out.folded"
	w="ruby;forkers\\.rb:$fork <main>;forkers\\.rb:$fork block in <main>;forkers\\.rb:$fork block \\(2 levels\\) in <main>"
	grep -Eqx "$w;forkers\\.rb:$tz_line work;forkers\\.rb:$tz_line block in work;tzset;tz 30" "$tmp/out.folded"
	grep -Eqx "$w;forkers\\.rb:$clk_line work;forkers\\.rb:$clk_line block in work;clock 30" "$tmp/out.folded"
}

@test "ruby: names the program chose are escaped in the text report" {
	# The script's own path holds the escape too: it is printed per site.
	dir=$tmp/$'d\e[31m'
	mkdir "$dir"
	cat > "$dir/evil.rb" <<'RUBY'
GC.disable
Object.send(:define_method, "x\e[2J\ny") { ENV["TZ"] = nil; Time.now.localtime }
Class.new { define_method("evil\e[31m") { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) } }.new.send("evil\e[31m")
20.times { send("x\e[2J\ny") }
RUBY
	env -u TZ "$CT" run --lang -o "$tmp/out.txt" -- ruby --disable-gems "$dir/evil.rb"
	run -1 grep -q $'\e' "$tmp/out.txt"
	grep -qF 'd\x1b[31m/evil.rb:2 in block in <main>' "$tmp/out.txt"
	# USDT names the methods the line calls, and the process's names.
	env -u TZ "$CT" run --lang=usdt -o "$tmp/out.txt" -- ruby --disable-gems "$dir/evil.rb"
	run -1 grep -q $'\e' "$tmp/out.txt"
	grep -qF 'd\x1b[31m/evil.rb:2 in Time#localtime' "$tmp/out.txt"
}

@test "no --lang program remains after a run" {
	"$CT" run --lang -o /dev/null -- ruby --disable-gems -e "Time.now"
	# Programs and links of tracers running meanwhile are held: not ours.
	[ "$(our_progs)" -eq 0 ]
}

@test "python: attach -p --lang reads a running CPython 3.11's frames (no USDT semaphore needed), exact" {
	cat > "$tmp/late.py" <<'PY'
import signal
import sys
import time


def work(n):
    for _ in range(n):
        time.mktime(time.localtime())


signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("WORKLOAD role=main waiting", file=sys.stderr, flush=True)
signal.sigwait([signal.SIGUSR1])
work(int(sys.argv[1]))
print(f"WORKLOAD role=main mktime_calls={sys.argv[1]}", file=sys.stderr)
PY
	env -u TZ /usr/bin/python3 "$tmp/late.py" 150 2>"$tmp/wl" &
	wl=$!
	for _ in $(seq 100); do
		grep -q waiting "$tmp/wl" && break
		sleep 0.1
	done
	"$CT" attach -p "$wl" --lang --json -o "$tmp/out.json" 2>"$tmp/err" &
	ct=$!
	sleep 2
	kill -USR1 "$wl"
	wait "$ct"
	line=$(line_of "$tmp/late.py" 'time\.mktime(')
	[ "$(jqr "$tmp/out.json" .lang.mechanism.python)" = frame ]
	[ "$(jqr "$tmp/out.json" .lang.python_frame_processes)" -eq 1 ]
	grep -q 'role=main mktime_calls=150' "$tmp/wl"
	[ "$(jqr "$tmp/out.json" "[.processes[] | select(.pid == $wl) | .lang_sites[] | select(.file == \"$tmp/late.py\" and .line == $line)][0].tz_accesses")" -eq 150 ]
	[ "$(jqr "$tmp/out.json" "[.processes[] | select(.pid == $wl) | .lang_sites[] | select(.file == \"$tmp/late.py\" and .line == $line)][0].function")" = work ]
}
