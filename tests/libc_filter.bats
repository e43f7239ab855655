#!/usr/bin/env bats
# --libc and the rest of the machine (issue 14, item 4): attach gives each
# traced process uprobe links of its own (kernel >= 6.6: this machine's),
# so an untraced process pays nothing; run and top probe the library file
# for every process, and say so, with the cost, at start.
load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	bpf_stats_restore
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
	[ -n "${CTP:-}" ] && kill "$CTP" 2>/dev/null
	rm -rf "$T"
}

# A shell (SH) that waits for a line on fifo $T/go, then execs ARGS:
# attached first, so that the exec'd program's every call is seen.
start_held() {
	local sh=$1

	shift
	mkfifo "$T/go"
	env -u TZ $sh -c 'read x < "$0"; exec "$@"' "$T/go" "$@" 2>"$T/wl" &
	WL=$!
	wait_exec "$WL" "${sh%% *}"
}

# Waits until clocktrace -v says pid $1 has its links.
wait_probed() {
	for _ in $(seq 100); do
		grep -q "pid $1 probed" "$T/ct" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

@test "attach --libc: the target's exec'd image counted exactly, its late child marked incomplete" {
	start_held sh "$TOOLS/tzloop" -m localtime -n 500 -c 2
	"$CT" attach -v -p "$WL" --libc --json -o "$T/r.json" 2>"$T/ct" &
	CTP=$!
	wait_probed "$WL"
	sleep 0.3
	echo go > "$T/go"
	wait "$WL" || true
	WL=
	wait "$CTP"
	CTP=
	cat "$T/ct" >&2
	[ "$(workload_sum "$T/wl" localtime_calls)" -eq 1500 ]
	[ "$(jqr "$T/r.json" .libc_probes)" = per_process ]
	root=$(jqr "$T/r.json" '.processes[] | select(.depth == 0) | .pid')
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $root) | .libc.localtime.count")" -eq 500 ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $root) | .libc_complete")" = true ]
	# Forked after attach: probed when the fork was seen, so its first
	# calls may be missed, and the report says so.
	[ "$(jqr "$T/r.json" '[.processes[] | select(.ppid == '"$root"')] | length')" -eq 2 ]
	[ "$(jqr "$T/r.json" '[.processes[] | select(.ppid == '"$root"') | .libc_complete == false] | all')" = true ]
	[ "$(jqr "$T/r.json" '[.processes[] | select(.ppid == '"$root"') | .libc.localtime.count // 0] | max')" -le 500 ]
	! grep -q "probes every process" "$T/ct"
}

@test "attach --libc: a static shell (no C library) that execs a dynamic program: every call seen" {
	start_held "busybox sh" "$TOOLS/tzloop" -m localtime -n 400 -c 0
	"$CT" attach -v -p "$WL" --libc --json -o "$T/r.json" 2>"$T/ct" &
	CTP=$!
	wait_probed "$WL"
	echo go > "$T/go"
	wait "$WL" || true
	WL=
	wait "$CTP"
	CTP=
	[ "$(workload_sum "$T/wl" localtime_calls)" -eq 400 ]
	[ "$(jqr "$T/r.json" '.processes[0].libc.localtime.count')" -eq 400 ]
	[ "$(jqr "$T/r.json" '.processes[0].libc_complete')" = true ]
}

# An untraced loop of 20,000 localtime() with TZ unset.
untraced_loop() {
	env -u TZ "$TOOLS/tzloop" -q -m localtime -n 20000 -c 0 >/dev/null 2>&1
}

# The CPU it costs is measured by make bench (tests/perf/perf.bats); here,
# the probe runs it makes, counted by the kernel.
@test "attach --libc: an untraced localtime loop runs none of its probes; under run --libc each call does" {
	bpf_stats_on
	# The target waits on its fifo: it calls nothing meanwhile.
	start_held sh "$TOOLS/tzloop" -m localtime -n 10 -c 0
	"$CT" attach -v -p "$WL" --libc -o /dev/null 2>"$T/ct" &
	CTP=$!
	wait_probed "$WL"
	before=$(bpf_runs_of "$CTP" '^libc_')
	untraced_loop
	attached=$(( $(bpf_runs_of "$CTP" '^libc_') - before ))
	kill -INT "$CTP"
	wait "$CTP" || true
	CTP=
	"$CT" run --libc -o /dev/null -- sleep 30 2>"$T/run" &
	CTP=$!
	for _ in $(seq 200); do
		grep -q "probes every process" "$T/run" && break
		sleep 0.05
	done
	sleep 0.3
	before=$(bpf_runs_of "$CTP" '^libc_')
	untraced_loop
	systemwide=$(( $(bpf_runs_of "$CTP" '^libc_') - before ))
	kill -INT "$CTP"
	wait "$CTP" || true
	CTP=
	echo "libc probe runs during an untraced loop of 20,000 localtime():" \
	     "attach --libc $attached, run --libc $systemwide" >&2
	[ "$attached" -eq 0 ]
	[ "$systemwide" -ge 20000 ]
}

@test "run --libc: one warning line at start with the cost to other processes" {
	"$CT" run --libc -o /dev/null -- "$TOOLS/tzloop" -q -m localtime -n 10 -c 1 2>"$T/err" >/dev/null
	[ "$(grep -c 'probes every process on this machine' "$T/err")" -eq 1 ]
	grep -Eq 'each call of tzset, localtime, .* costs ~[0-9.]+-[0-9.]+ us more while clocktrace runs' "$T/err"
	"$CT" run --libc --json -o "$T/r.json" -- /bin/true 2>/dev/null
	[ "$(jqr "$T/r.json" .libc_probes)" = systemwide ]
}

@test "attach --libc with CLOCKTRACE_NO_LIBC_FILTER=1: system-wide, and says so" {
	env -u TZ "$TOOLS/tzloop" -q -m localtime -n 100000000 -c 0 >/dev/null 2>&1 &
	WL=$!
	CLOCKTRACE_NO_LIBC_FILTER=1 "$CT" attach -p "$WL" -d 0.5 --libc \
		--json -o "$T/r.json" 2>"$T/err"
	[ "$(grep -c 'probes every process on this machine (CLOCKTRACE_NO_LIBC_FILTER is set)' "$T/err")" -eq 1 ]
	[ "$(jqr "$T/r.json" .libc_probes)" = systemwide ]
	[ "$(jqr "$T/r.json" ".processes[] | select(.pid == $WL) | .libc.localtime.count")" -gt 0 ]
}

@test "attach --libc: past 64 processes the probes go system-wide, with one warning" {
	cp "$TOOLS/misbehave" "$T/manyprobed"
	pids=()
	for _ in $(seq 70); do
		"$T/manyprobed" sleep 30 -k 0 2>/dev/null &
		pids+=($!)
	done
	for _ in $(seq 300); do
		[ "$(pgrep -xc manyprobed)" -ge 70 ] && break
		sleep 0.05
	done
	[ "$(pgrep -xc manyprobed)" -ge 70 ]
	"$CT" attach -v --comm manyprobed -d 1 --libc --json -o "$T/r.json" 2>"$T/err"
	kill "${pids[@]}" 2>/dev/null || true
	cat "$T/err" >&2
	[ "$(grep -c 'probes every process on this machine (more than 64 processes to probe one by one)' "$T/err")" -eq 1 ]
	[ "$(jqr "$T/r.json" .libc_probes)" = systemwide ]
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 70 ]
	[ "$(our_progs)" -eq 0 ]
}
