#!/usr/bin/env bats
# Findings on real process trees: the parent is the process that forks the
# workers, not a wrapper in front of it; a cost is counted once.

bats_require_minimum_version 1.5.0
load helpers

# Until process $1 maps a file whose name holds $2 (its loader at work).
wait_mapped() {
	for _ in $(seq 100); do
		grep -q "$2" "/proc/$1/maps" 2>/dev/null && return 0
		sleep 0.05
	done
	false
}

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

@test "findings: a wrapper (timeout) is not the parent; nothing is repeated by one process" {
	env -u TZ "$CT" run --json -o "$T/r.json" -- timeout 20 \
		"$TOOLS/tzloop" -n 3000 -c 0 >/dev/null 2>"$T/err"
	wl=$(sed -n 's/^WORKLOAD pid=\([0-9]*\) .*/\1/p' "$T/err")
	[ -n "$wl" ]
	[ "$(jqr "$T/r.json" '.trees | length')" -eq 1 ]
	[ "$(jqr "$T/r.json" '.trees[0].forker')" -eq "$wl" ]
	[ "$(jqr "$T/r.json" '.trees[0].wrappers')" -eq 1 ]
	[ "$(jqr "$T/r.json" '.trees[0].children.processes')" -eq 0 ]
	jq -e '[.findings[].id] | index("tz-repeated-access")' "$T/r.json"
	jq -e '[.findings[].id] | index("tz-children-repeat") == null' "$T/r.json"
}

@test "findings: wrapped forking workload: the forker is the parent, the children's cost is counted once" {
	env -u TZ "$CT" run --json -o "$T/r.json" -- timeout 20 \
		"$TOOLS/tzloop" -n 2000 -c 2 >/dev/null 2>"$T/err"
	parent=$(jqr "$T/r.json" '.processes[] | select(.comm == "tzloop" and .depth == 1) | .pid')
	[ "$(jqr "$T/r.json" '.trees[0].forker')" -eq "$parent" ]
	[ "$(jqr "$T/r.json" '.trees[0].children.processes')" -eq 2 ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.tz_accesses')" -eq \
	  "$(jqr "$T/r.json" ".processes[] | select(.pid == $parent) | .tz.accesses")" ]
	jq -e --argjson p "$parent" '.findings[] | select(.id == "tz-children-repeat") |
		(.message | endswith("in the parent pid \($p)")) and .cost == null and
		.see == "tz-repeated-access"' "$T/r.json"
	# CPU time per role: the kernel's figures of the processes it holds.
	[ "$(jqr "$T/r.json" '.trees[0].children.cpu_processes')" -eq 2 ]
	[ "$(jqr "$T/r.json" '.trees[0].children.cpu_ns')" -eq \
	  "$(jqr "$T/r.json" "[.processes[] | select(.ppid == $parent) | .cpu_ns] | add")" ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.cpu_ns')" -eq \
	  "$(jqr "$T/r.json" ".processes[] | select(.pid == $parent) | .cpu_ns")" ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.cpu_ns')" -gt 0 ]
	# Its severity is the one of the finding whose cost it explains.
	[ "$(jqr "$T/r.json" '[.findings[] | select(.id | startswith("tz-")) | .severity] | unique | length')" -eq 1 ]
	# The text names the real parent and the wrapper it skipped.
	env -u TZ "$CT" run -- timeout 20 "$TOOLS/tzloop" -n 200 -c 2 >/dev/null 2>"$T/text"
	grep -Eq '^  tree of pid [0-9]+ \(timeout\): the parent is pid [0-9]+ \(tzloop\), below 1 wrapper' "$T/text"
	grep -q '^    cost: counted under tz-repeated-access$' "$T/text"
}

@test "findings: severity is info for a cost far below a percent of a CPU" {
	# Twenty stats in a run of a second: microseconds of kernel time.
	env -u TZ "$CT" run --json -o "$T/r.json" -- sh -c \
		"'$TOOLS/tzloop' -m localtime -n 20 -c 0; sleep 1" >/dev/null 2>&1
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.severity == "info" and .cost.cpu_percent < 1' "$T/r.json"
}

# Advice in the program's language: the runtime that made the calls, its
# calls named as its users write them, and a fix in its code that works.

# A Ruby program that calls Date.today N times, or only Time (TZ_IN_CODE:
# it sets ENV["TZ"] first, as the Ruby fix says).
ruby_prog() {
	local first="# TZ from the environment"

	[ -z "${3:-}" ] || first='ENV["TZ"] = ":/etc/localtime"'
	cat >"$T/$1.rb" <<RUBY
$first
require "date"
n = Integer(ARGV[0])
$2
warn "WORKLOAD calls=#{n}"
RUBY
}

@test "findings: a Ruby program's Date.today: runtime ruby, named by its line, the fix in Ruby" {
	ruby_prog date 'n.times { Date.today }'
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		ruby --disable-gems "$T/date.rb" 400 >/dev/null 2>"$T/err"
	grep -q "WORKLOAD calls=400" "$T/err"
	# Exact: one stat per Date.today, under its line (all its sites).
	jq -c '.processes[] | [.pid, .tz.accesses, [.lang_sites[] | select(.tz_accesses > 0)]]' "$T/r.json"
	[ "$(jqr "$T/r.json" "[.processes[0].lang_sites[] | select(.line == 4) | .tz_accesses] | add")" -eq 400 ]
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.runtime == "ruby" and
		(.message | contains("date.rb:4 in block in <main> (")) and
		(.runtime_fix | contains("Date.today and DateTime.now re-check")) and
		(.runtime_fix | contains("ENV[\"TZ\"] = \":/etc/localtime\""))' "$T/r.json"
	# Without --lang, the executable says Ruby.
	env -u TZ "$CT" run --json -o "$T/r2.json" -- \
		ruby --disable-gems "$T/date.rb" 400 >/dev/null 2>&1
	jq -e '.findings[] | select(.id == "tz-repeated-access") | .runtime == "ruby"' "$T/r2.json"
	env -u TZ "$CT" run -- ruby --disable-gems "$T/date.rb" 400 >/dev/null 2>"$T/text"
	grep -q '^    fix in ruby: Date.today and DateTime.now re-check' "$T/text"
}

@test "findings: Ruby's Time calls and Date.today after ENV[TZ] in the code: no finding, the zone read once" {
	ruby_prog time 'n.times { Time.now.localtime.strftime("%Z %H"); Time.at(0).getlocal }'
	ruby_prog fixed 'n.times { Date.today }' tz
	for prog in time fixed; do
		env -u TZ "$CT" run --json -o "$T/$prog.json" -- \
			ruby --disable-gems "$T/$prog.rb" 400 >/dev/null 2>"$T/err"
		grep -q "WORKLOAD calls=400" "$T/err"
		echo "$prog: $(jqr "$T/$prog.json" '.processes[0].tz.accesses') tz accesses"
		[ "$(jqr "$T/$prog.json" '.processes[0].tz.accesses')" -le 2 ]
		[ "$(jqr "$T/$prog.json" '[.findings[] | select(.id | startswith("tz-"))] | length')" -eq 0 ]
	done
}

@test "findings: a Python pool: runtime python, time.mktime() in task(), and os.environ + time.tzset() fixes it" {
	env -u TZ "$CT" run --lang --libc --json -o "$T/r.json" -- \
		/usr/bin/python3 "$TOOLS/lang/pool.py" 150 2 >/dev/null 2>"$T/err"
	[ "$(grep -c 'role=worker.*mktime_calls=150' "$T/err")" -eq 2 ]
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.runtime == "python" and
		(.message | contains("mostly from mktime() (time.mktime() in python)")) and
		(.message | contains(" in time.mktime() in task() (100% of them)")) and
		(.runtime_fix | contains("os.environ[\"TZ\"] = \":/etc/localtime\" and call time.tzset()"))' "$T/r.json"
	jq -e '.findings[] | select(.id == "tz-children-repeat") | .runtime == "python"' "$T/r.json"
	# The Python fix, done in the code before the pool starts.
	env -u TZ "$CT" run --json -o "$T/fixed.json" -- /usr/bin/python3 -c "
import os, runpy, sys, time
os.environ['TZ'] = ':/etc/localtime'
time.tzset()
sys.argv = ['pool.py', '150', '2']
runpy.run_path('$TOOLS/lang/pool.py', run_name='__main__')" >/dev/null 2>"$T/err"
	[ "$(grep -c 'role=worker.*mktime_calls=150' "$T/err")" -eq 2 ]
	[ "$(jqr "$T/fixed.json" '[.processes[].tz.accesses] | add')" -le 2 ]
	[ "$(jqr "$T/fixed.json" '[.findings[] | select(.id | startswith("tz-"))] | length')" -eq 0 ]
}

@test "findings: a C program is runtime c only when --libc saw the C call; null without it" {
	env -u TZ "$CT" run --json -o "$T/r.json" -- "$TOOLS/tzloop" -m localtime -n 300 -c 0 >/dev/null 2>&1
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.runtime == null and .runtime_fix == null' "$T/r.json"
	env -u TZ "$CT" run --libc --json -o "$T/r.json" -- "$TOOLS/tzloop" -m localtime -n 300 -c 0 >/dev/null 2>&1
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.runtime == "c" and (.runtime_fix | contains("localtime_r() does not"))' "$T/r.json"
}

@test "doctor -p: a Ruby process is told what Date.today and Time.now will do" {
	env -u TZ ruby --disable-gems -e 'sleep 30' &
	pid=$!
	wait_mapped "$pid" libruby
	run "$CT" doctor -p "$pid"
	echo "$output"
	[[ $output == *"warn  process runtime: ruby, TZ unset: Date.today and DateTime.now re-check"* ]]
	"$CT" doctor -j -p "$pid" >"$T/d.json" || true
	[ "$(jqr "$T/d.json" .process.runtime)" = ruby ]
	jq -e '.process.runtime_finding | contains("ENV[\"TZ\"]")' "$T/d.json"
	kill "$pid"
	TZ=:/etc/localtime ruby --disable-gems -e 'sleep 30' &
	pid=$!
	wait_mapped "$pid" libruby
	run "$CT" doctor -p "$pid"
	kill "$pid"
	echo "$output"
	[[ $output == *"ok    process runtime: ruby, TZ set: none of its calls re-checks the zone file"* ]]
}
