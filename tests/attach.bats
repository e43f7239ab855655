#!/usr/bin/env bats
# clocktrace attach and top: live processes, exact counts over the window.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
	rm -rf "$T"
}

# Starts misbehave waitsig in the background and waits until it is ready.
start_waitsig() {
	"$TOOLS/misbehave" waitsig -k "$1" >"$T/ready" 2>"$T/wl" &
	WL=$!
	for _ in $(seq 100); do
		grep -q ready "$T/ready" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# Waits until clocktrace (pid $1) holds the links of its programs: some,
# and no more 0.2 s later.
wait_attached() {
	local n last=0

	for _ in $(seq 100); do
		n=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^link_id:')|| true
		[ "$n" -gt 0 ] && [ "$n" -eq "$last" ] && return 0
		last=$n
		sleep 0.2
	done
	return 1
}

@test "attach: exact counts of a multithreaded process and the child it forks after attach" {
	start_waitsig 250
	"$CT" attach -p "$WL" --json -o "$T/r.json" -v 2>"$T/ct" &
	ct=$!
	wait_attached "$ct"
	# The status line is absent when stderr is not a terminal: 1.5 s
	# attached is long enough to draw one (it comes once a second).
	sleep 1.5
	kill -USR1 "$WL"
	wait "$ct"
	run -1 grep -q 'events,' "$T/ct"
	jq -e '.mode == "attach" and (has("exit") | not)' "$T/r.json"
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 2 ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $WL) | .tz.paths[\"/etc/localtime\"].stat")" -eq 1000 ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.ppid == $WL) | .tz.paths[\"/etc/localtime\"].stat")" -eq 250 ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $WL) | .exit_ns != null")" = true ]
	WL=
}

@test "attach: --comm finds targets; -d ends the trace" {
	"$TOOLS/misbehave" sleep 30 -k 1 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	# -d ends it, not the target's exit 30 s away (timeout(1)'s 124 fails
	# the test): the target outlives the trace, whose own window
	# (duration_ns, BPF load and attach outside it) is the second asked.
	timeout 20 "$CT" attach --comm misbehave -d 1 --json -o "$T/r.json"
	kill -0 "$WL"
	[ "$(jqr "$T/r.json" .duration_ns)" -ge 1000000000 ]
	jq -e --argjson p "$WL" '[.processes[].pid] | index($p) != null' "$T/r.json"
}

@test "attach --comm: a process that execs into the name later is traced too" {
	mkdir -p "$T/a" "$T/b"
	cp "$TOOLS/misbehave" "$T/a/latecomer"
	cp "$TOOLS/forktree" "$T/b/latecomer"
	# One with the name exists at start (it stats nothing while asleep)...
	"$T/a/latecomer" sleep 30 -k 0 2>/dev/null &
	WL=$!
	wait_exec "$WL" latecomer
	"$CT" attach --comm latecomer -d 2 --json -o "$T/r.json" &
	ct=$!
	sleep 0.7
	# ...and one execs into the name while attached: it and its children.
	"$T/b/latecomer" -D 1 -W 2 -k 6 2>"$T/err"
	wait "$ct"
	[ "$(jqr "$T/r.json" '[.processes[].tz.accesses] | add')" -eq 18 ]
	[ "$(jqr "$T/r.json" '[.processes[] | select(.depth == 1)] | length')" -eq 2 ]
}

@test "attach: --tree picks up existing children" {
	"$TOOLS/forktree" -D 1 -W 3 -k 0 -C -P /etc/localtime 2>/dev/null &
	# forktree without work exits fast; use a shell tree that waits instead.
	wait
	bash -c 'sleep 30 & sleep 30 & wait' &
	WL=$!
	sleep 0.3
	"$CT" attach -p "$WL" --tree -d 0.5 --json -o "$T/r.json"
	[ "$(jqr "$T/r.json" '[.processes[] | select(.depth == 1)] | length')" -eq 2 ]
	pkill -P "$WL" sleep || true
}

@test "attach: -i prints interval reports, then the totals" {
	"$TOOLS/misbehave" sleep 30 -k 20 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" attach -p "$WL" -d 2.3 -i 1 -T -o "$T/out"
	[ "$(grep -c '^[0-9:]* *interval' "$T/out")" -eq 2 ]
	grep -q '^clocktrace attach' "$T/out"
}

@test "attach: bad pids are one line and status 125, nothing attached" {
	run -125 "$CT" attach -p 999999999
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" attach -p abc
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" attach -p 4000000
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"no process with pid 4000000"* ]]
}

@test "attach --comm: waits for a process that has the name yet to start" {
	# A name of this test's own (its pid): no other suite runs it.
	name=nys$$
	mkdir -p "$T/b"
	cp "$TOOLS/forktree" "$T/b/$name"
	run -1 pgrep -x "$name"
	"$CT" attach --comm "$name" -d 2 --json -o "$T/r.json" 2>"$T/ct" &
	ct=$!
	for _ in $(seq 200); do
		grep -q "no process named '$name' yet" "$T/ct" && break
		sleep 0.05
	done
	grep -q "no process named '$name' yet" "$T/ct"
	wait_attached "$ct"
	"$T/b/$name" -D 1 -W 2 -k 5 2>"$T/err"
	wait "$ct"
	# The oracle: forktree says what each of its processes did.
	want=$(( $(workload_sum "$T/err" tz_stat) + $(workload_sum "$T/err" tz_open) ))
	[ "$want" -gt 0 ]
	[ "$(jqr "$T/r.json" '[.processes[].tz.accesses] | add')" -eq "$want" ]
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 3 ]
}

@test "attach: a zombie and a kernel thread are refused: 125, one line" {
	sh -c 'sleep 0.01 & echo $! >"$1"; exec sleep 5' sh "$T/zpid" &
	WL=$!
	for _ in $(seq 100); do
		[ -s "$T/zpid" ] && [ "$(awk '{print $3}' "/proc/$(cat "$T/zpid")/stat" 2>/dev/null)" = Z ] && break
		sleep 0.05
	done
	run "$CT" attach -p "$(cat "$T/zpid")" -d 1 -o "$T/r.txt"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has exited (a zombie"* ]]
	[ ! -e "$T/r.txt" ]
	run "$CT" attach -p 2 -d 1 -o "$T/r.txt"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"pid 2 is a kernel thread"* ]]
	# A live process named alongside is no excuse.
	run "$CT" attach -p "$WL,2" -d 1 -o "$T/r.txt"
	[ "$status" -eq 125 ]
	[[ "$output" == *"kernel thread"* ]]
}

# Target gone before its entry in the process map, or after: never a
# "running" process in the report, and attach ends without -d.
@test "attach: a target exiting 0-10 ms after attach starts is refused or reported exited, never running" {
	for ms in 0 1 2 3 4 5 6 7 8 9 10; do
		sleep "0.$(printf '%03d' "$ms")" &
		target=$!
		rm -f "$T/r.json"
		st=0
		timeout 20 "$CT" attach -p "$target" --json -o "$T/r.json" \
			2>"$T/err" || st=$?
		echo "delay $ms ms: status $st: $(cat "$T/err")"
		wait "$target" || true
		if [ "$st" -eq 125 ]; then
			[ "$(wc -l <"$T/err")" -eq 1 ]
			grep -Eq "pid $target (exited before tracing began|has exited|does not exist)|no process with pid $target" "$T/err"
			[ ! -e "$T/r.json" ]
		else
			[ "$st" -eq 0 ]
			[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $target) | .exit_ns")" != null ]
		fi
	done
}

@test "attach without -d ends by itself when its target exits, exit time reported" {
	sleep 1.5 &
	target=$!
	# A trace that waited on would be stopped by timeout(1): status 124.
	timeout 20 "$CT" attach -p "$target" --json -o "$T/r.json"
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $target) | .exit_ns")" != null ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $target) | .comm")" = sleep ]
}

@test "top: finds the process that re-reads tz files among busy others" {
	"$TOOLS/misbehave" sleep 30 -k 300 2>/dev/null &
	WL=$!
	"$TOOLS/clockthreads" -t 1 -n 100000000 -c CLOCK_MONOTONIC 2>/dev/null &
	busy=$!
	wait_exec "$WL" misbehave
	wait_exec "$busy" clockthreads
	# misbehave stats in one burst of 300 a second: 1.5 s holds at least
	# one whole burst (a count: the interval's rate times its length).
	"$CT" top -i 1.5 -n 2 --top 1000 --json -o "$T/top.json"
	kill "$busy"
	[ "$(wc -l < "$T/top.json")" -eq 2 ]
	# Ranked above the busy clock reader (other tz readers may exist).
	tail -1 "$T/top.json" | jq -e --argjson p "$WL" --argjson b "$busy" \
		'(.processes | map(.pid) | index($p)) as $i |
		 (.processes | map(.pid) | index($b)) as $j |
		 $i != null and ($j == null or $i < $j) and
		 (.processes[$i].tz_per_s * .interval_s | round) >= 300 and
		 (.processes[$i].finding | startswith("TZ unset"))'
	tail -1 "$T/top.json" | jq -e --argjson p "$busy" \
		'[.processes[] | select(.pid == $p)][0].top_clock == "CLOCK_MONOTONIC"'
}

@test "top: plain lines when stdout is not a terminal" {
	"$CT" top -i 0.3 -n 2 > "$T/top.txt"
	[ "$(grep -c '^clocktrace top' "$T/top.txt")" -eq 2 ]
	grep -q 'TZ/s' "$T/top.txt"
	! grep -q $'\033' "$T/top.txt"
}

@test "openmetrics: attach and top output parses with the Prometheus client's parser" {
	"$TOOLS/misbehave" sleep 30 -k 50 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	# 2.5 s holds two whole bursts of 50 even if a busy machine delays
	# misbehave's wake-ups by half a second; one is asserted below.
	"$CT" attach -p "$WL" -d 2.5 --format openmetrics -o "$T/om.txt"
	"$CT" top -i 0.5 -n 1 --format openmetrics > "$T/top.txt"
	for f in "$T/om.txt" "$T/top.txt"; do
		/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert "clocktrace_tz_accesses" in fams, fams.keys()
assert fams["clocktrace_syscall_latency_seconds"].type == "histogram"
assert fams["clocktrace_lost_events"].type == "counter"
' "$f"
	done
	/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
n = sum(s.value for f in text_string_to_metric_families(open(sys.argv[1]).read())
        if f.name == "clocktrace_tz_accesses" for s in f.samples
        if s.labels["comm"] == "misbehave" and "pid" not in s.labels)
assert n >= 50, n
' "$T/om.txt"
}

@test "openmetrics -i into a file: each interval replaces the last exposition" {
	"$TOOLS/misbehave" sleep 30 -k 50 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" attach -p "$WL" -d 2.5 -i 1 --format openmetrics -o "$T/om.prom"
	[ "$(grep -c '^# EOF' "$T/om.prom")" -eq 1 ]
	"$CT" top -i 0.3 -n 3 --format openmetrics -o "$T/top.prom"
	[ "$(grep -c '^# EOF' "$T/top.prom")" -eq 1 ]
}

@test "attach: no BPF program of ours is left afterwards" {
	"$TOOLS/misbehave" sleep 30 -k 1 2>/dev/null &
	WL=$!
	"$CT" attach -p "$WL" -d 0.3 -o /dev/null
	[ "$(our_progs)" -eq 0 ]
}
