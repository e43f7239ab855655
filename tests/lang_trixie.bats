#!/usr/bin/env bats
# --lang on interpreters this host's Debian 12 does not ship: Debian 13's
# python3.13 and ruby3.3 in a root file system of their own
# (tools/lang-root.sh, cached in build/), traced from the host.  Their
# paths name no file here: the reader finds them through the process's
# root, by device and inode.

bats_require_minimum_version 1.5.0
load helpers

LANG_ROOT=$ROOT/build/lang-root-trixie

setup_file() {
	"$ROOT/tools/lang-root.sh" "$LANG_ROOT" "python3.13-minimal ruby3.3"
}

setup() {
	T=$(mktemp -d)
	install -m 0644 "$TOOLS/lang/fork.py" "$LANG_ROOT/tmp/fork.py"
	install -m 0644 "$TOOLS/lang/today_workers.rb" "$LANG_ROOT/tmp/today_workers.rb"
	TODAY_LINE=$(grep -n 'Date.today }' "$TOOLS/lang/today_workers.rb" | cut -d: -f1)
	CPU_LINE=$(grep -n 'CLOCK_PROCESS_CPUTIME_ID)' "$TOOLS/lang/today_workers.rb" | cut -d: -f1)
}

teardown() {
	rm -rf "$T"
}

@test "python3.13 of a Debian 13 root: forked workers' calls tied to their .py line, exact per worker, frames read" {
	[ ! -e /usr/bin/python3.13 ]
	line=$(grep -n '^ *time\.mktime(' "$TOOLS/lang/fork.py" | cut -d: -f1)
	stack="/tmp/fork.py:$(grep -n '^    work(n)$' "$TOOLS/lang/fork.py" | cut -d: -f1) worker < /tmp/fork.py:$(grep -n '^ *worker(n, wait)$' "$TOOLS/lang/fork.py" | cut -d: -f1) <module>"
	env -u TZ "$CT" run --lang -v --json -o "$T/r.json" -- \
		chroot "$LANG_ROOT" /usr/bin/python3.13 /tmp/fork.py 150 3 \
		2>"$T/err" >/dev/null
	grep -qF "python3.13: frames read (CPython 3.13)" "$T/err"
	[ "$(jqr "$T/r.json" .lang.mechanism.python)" = frame ]
	[ "$(workload_sum "$T/err" mktime_calls)" -eq 450 ]
	for pid in $(grep -o 'role=worker pid=[0-9]*' "$T/err" | cut -d= -f3); do
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.file == \"/tmp/fork.py\" and
			.line == $line and .function == \"work\") |
			.tz_accesses] | add")" -eq 150 ]
		# --lang-depth: 3.13's frames walked through its entry shims.
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.line == $line and
			.function == \"work\" and .stack_cut == false) |
			.stack | map(\"\(.file):\(.line) \(.function)\") |
			join(\" < \")] | unique | join(\",\")")" = "$stack" ]
	done
	[ "$(jqr "$T/r.json" '.lang.unattributed | add')" -eq 0 ]
	[ "$(jqr "$T/r.json" .losses.lang_python_frame_unreadable)" -eq 0 ]
	[ "$(jqr "$T/r.json" .lang.python_lines_unknown)" -eq 0 ]
}

@test "python3.13 of a Debian 13 root: attach -p --tree to running workers, frames read, exact" {
	env -u TZ chroot "$LANG_ROOT" /usr/bin/python3.13 /tmp/fork.py 200 2 wait \
		2>"$T/err" &
	py=$!
	for _ in $(seq 100); do
		[ "$(grep -c role=ready "$T/err")" -eq 2 ] && break
		sleep 0.1
	done
	"$CT" attach -p "$py" --tree --lang --json -o "$T/r.json" 2>"$T/ct" &
	ct=$!
	sleep 2
	for pid in $(grep -o 'role=ready pid=[0-9]*' "$T/err" | cut -d= -f3); do
		kill -USR1 "$pid"
	done
	wait "$ct"
	[ "$(workload_sum "$T/err" mktime_calls)" -eq 400 ]
	[ "$(jqr "$T/r.json" .lang.python_frame_processes)" -ge 1 ]
	for pid in $(grep -o 'role=ready pid=[0-9]*' "$T/err" | cut -d= -f3); do
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.file == \"/tmp/fork.py\" and
			.function == \"work\") | .tz_accesses] | add")" -eq 200 ]
	done
	[ "$(jqr "$T/r.json" '.lang.unattributed | add')" -eq 0 ]
}

# FIELD summed over PID's sites of the Ruby workload's LINE in report R.
rb_line_sum() {
	jqr "$1" "[.processes[] | select(.pid == $2) | .lang_sites[] |
		select(.file == \"/tmp/today_workers.rb\" and .line == $3 and
		.function == \"block in work\") | .$4] | add // 0"
}

# Each process today_workers.rb names in E: its Date.today line has its
# calls as tz accesses, its CPU-time line its reads as clock syscalls, in
# report R; WANT processes.  Ruby 3.3's frames read, no USDT probe.
rb_each_exact() {
	local r=$1 e=$2 want=$3 pids pid
	pids=$(grep -o 'pid=[0-9]* today_calls' "$e" | cut -d' ' -f1 | cut -d= -f2)
	[ "$(echo "$pids" | wc -w)" -eq "$want" ]
	for pid in $pids; do
		echo "pid $pid: today $(rb_line_sum "$r" "$pid" "$TODAY_LINE" tz_accesses), cputime $(rb_line_sum "$r" "$pid" "$CPU_LINE" clock_syscalls)" >&2
		[ "$(rb_line_sum "$r" "$pid" "$TODAY_LINE" tz_accesses)" -eq \
		  "$(grep "pid=$pid today" "$e" | workload_sum /dev/stdin today_calls)" ]
		[ "$(rb_line_sum "$r" "$pid" "$CPU_LINE" clock_syscalls)" -eq \
		  "$(grep "pid=$pid today" "$e" | workload_sum /dev/stdin cputime_reads)" ]
		[ "$(rb_line_sum "$r" "$pid" "$TODAY_LINE" clock_syscalls)" -eq 0 ]
		[ "$(rb_line_sum "$r" "$pid" "$CPU_LINE" tz_accesses)" -eq 0 ]
	done
	[ "$(jqr "$r" .lang.mechanism.ruby)" = frame ]
	[ "$(jqr "$r" .lang.usdt_files)" -eq 0 ]
	[ "$(jqr "$r" .lang.ruby_frame_processes)" -ge 1 ]
	[ "$(jqr "$r" .losses.lang_ruby_frame_unreadable)" -eq 0 ]
}

# Every event of the Ruby processes is at a script line or counted as
# unattributed: none is lost between the two.
rb_all_accounted() {
	local r=$1 events sites un
	events=$(jqr "$r" '[.processes[] | select(.comm == "ruby3.3") |
		(.tz.accesses // 0), ([.clock[]?.count] | add // 0)] | add')
	sites=$(jqr "$r" '[.processes[].lang_sites[]? |
		.tz_accesses, .clock_syscalls] | add')
	un=$(jqr "$r" '.lang.unattributed | add')
	echo "events $events, at lines $sites, unattributed $un" >&2
	[ "$events" -eq $((sites + un)) ]
}

@test "ruby3.3 of a Debian 13 root: forked workers' Date.today and CPU-time reads tied to their .rb lines, exact per process, frames read" {
	[ ! -e /usr/bin/ruby3.3 ]
	env -u TZ "$CT" run --lang -v --json -o "$T/r.json" -- \
		chroot "$LANG_ROOT" /usr/bin/ruby3.3 --disable-gems \
		/tmp/today_workers.rb 300 3 2>"$T/err" >/dev/null
	grep -qF "libruby-3.3.so.3.3.8: frames read (Ruby 3.3)" "$T/err"
	rb_each_exact "$T/r.json" "$T/err" 4
	rb_all_accounted "$T/r.json"
	# --lang-depth: the parent's Date.today line under the calls that led
	# there, Integer#times (Ruby code in 3.3) among them.
	rb=$TOOLS/lang/today_workers.rb
	pid=$(grep -o 'role=parent pid=[0-9]*' "$T/err" | cut -d= -f3)
	want="today_workers.rb:$(grep -n 'Date.today }' "$rb" | cut -d: -f1) work < today_workers.rb:$(grep -n '^work(n, "parent")' "$rb" | cut -d: -f1) <main>"
	got=$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
		.lang_sites[] | select(.function == \"block in work\" and
		.tz_accesses > 0) | .stack | map(\"\(.file | split(\"/\") | last):\(.line) \(.function)\") |
		join(\" < \")] | unique | join(\",\")")
	echo "parent's stack: $got" >&2
	[[ "$got" =~ ^"<internal:numeric>:"[0-9]+" times < $want"$ ]]
}

@test "ruby3.3 of a Debian 13 root: attach -p --tree --lang to running workers, frames read, exact" {
	env -u TZ chroot "$LANG_ROOT" /usr/bin/ruby3.3 --disable-gems \
		/tmp/today_workers.rb 200 2 wait 2>"$T/err" &
	for _ in $(seq 100); do
		[ "$(grep -c waiting "$T/err")" -eq 3 ] && break
		sleep 0.1
	done
	rb=$(grep -o 'role=parent pid=[0-9]*' "$T/err" | cut -d= -f3)
	"$CT" attach -p "$rb" --tree --lang --json -o "$T/r.json" 2>"$T/ct" &
	ct=$!
	sleep 2
	for pid in $(grep -o 'pid=[0-9]* waiting' "$T/err" | cut -d' ' -f1 | cut -d= -f2); do
		kill -USR1 "$pid"
	done
	wait "$ct"
	rb_each_exact "$T/r.json" "$T/err" 3
	rb_all_accounted "$T/r.json"
}

@test "ruby3.3 of a Debian 13 root: threads of one process, each event under its own thread's line (its own TLS)" {
	cat >"$LANG_ROOT/tmp/threads.rb" <<'RUBY'
require "date"
GC.disable
n = Integer(ARGV[0])
a = Thread.new { n.times { Date.today } }
b = Thread.new { n.times { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) } }
c = Thread.new { n.times { File.open("/etc/localtime") { } } }
[a, b, c].each(&:join)
warn "WORKLOAD calls=#{n}"
RUBY
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		chroot "$LANG_ROOT" /usr/bin/ruby3.3 --disable-gems \
		/tmp/threads.rb 2000 2>"$T/err"
	grep -q 'WORKLOAD calls=2000' "$T/err"
	site() {
		jqr "$T/r.json" "[.processes[0].lang_sites[] | select(.file == \"/tmp/threads.rb\" and .line == $1) | .$2] | add // 0"
	}
	[ "$(site 4 tz_accesses)" -eq 2000 ]
	[ "$(site 5 clock_syscalls)" -eq 2000 ]
	[ "$(site 6 tz_accesses)" -eq 2000 ]
	[ "$(site 4 clock_syscalls)" -eq 0 ]
	[ "$(site 5 tz_accesses)" -eq 0 ]
	[ "$(site 6 clock_syscalls)" -eq 0 ]
	rb_all_accounted "$T/r.json"
}
