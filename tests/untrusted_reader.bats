#!/usr/bin/env bats
# The file reader (user/libc/reader.h): every file a traced program names
# is opened and parsed in a sandboxed process, within a deadline; what
# goes wrong there is counted, and the counts of the kernel events stay
# exact.  CLOCKTRACE_READER_FAULT makes the reader behave as a hostile
# file would make it: stall (a file system that never answers), spin (a
# parser bomb), crash (a parser fault).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$(mktemp -d)
	# A copy under a name no other file has: the one the fault hits.
	cp "$TOOLS/tzloop" "$T/hostile-tzloop"
}

teardown() {
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
	[ -n "${CTP:-}" ] && kill -KILL "$CTP" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}

# The hostile copy, then the plain workload: 50 localtime calls each.
run_two() {
	env -u TZ CLOCKTRACE_READER_FAULT="$1" CLOCKTRACE_READER_DEADLINE_MS=500 \
		"$CT" run --libc --json -o "$T/r.json" -- sh -c \
		"'$T/hostile-tzloop' -m localtime -n 50 -c 0 && \
		 '$TOOLS/tzloop' -m localtime -n 50 -c 0" 2>"$T/err" >/dev/null
}

loss() {
	jqr "$T/r.json" ".losses.$1"
}

# Both workloads' calls, counted by the kernel and by the probes alike.
counts_exact() {
	[ "$(workload_sum "$T/err" localtime_calls)" -eq 100 ]
	[ "$(jqr "$T/r.json" '[.processes[].libc.localtime.count // 0] | add')" -eq 100 ]
	[ "$(jqr "$T/r.json" '[.processes[].libc.localtime.kernel.tz_accesses // 0] | add')" -eq 100 ]
}

# The call site's function in the process running image NAME.
site_of() {
	jqr "$T/r.json" "[.processes[] | select(.comm == \"$1\") |
		.callers[]? | select(.function == \"localtime\") | .caller][0]"
}

@test "reader: a file that crashes it is counted once, the next file is still named" {
	run_two crash:hostile-
	counts_exact
	[ "$(loss reader_crashed)" -eq 1 ]
	[ "$(loss reader_skipped)" -ge 1 ]
	# Unnamed: only its address is known.
	[[ "$(site_of hostile-tzloop)" == 0x* ]]
	# Restarted: the plain workload's site is named as without a fault.
	[[ "$(site_of tzloop)" == do_work* ]]
}

@test "reader: a parser bomb costs one deadline, then its file is skipped" {
	run_two spin:hostile-
	counts_exact
	[ "$(loss reader_timeout)" -eq 1 ]
	[ "$(loss reader_stalled)" -eq 0 ]
	[ "$(loss reader_skipped)" -ge 1 ]
	[[ "$(site_of tzloop)" == do_work* ]]
}

@test "reader: a file system that never answers costs one deadline per device" {
	run_two stall:hostile-
	counts_exact
	[ "$(loss reader_stalled)" -eq 1 ]
	[ "$(loss reader_skipped)" -ge 1 ]
	[[ "$(site_of tzloop)" == do_work* ]]
}

@test "reader: without a fault nothing is lost and both sites are named" {
	run_two none:nothing-matches
	counts_exact
	[ "$(jqr "$T/r.json" '.lost_events')" -eq 0 ]
	[[ "$(site_of hostile-tzloop)" == do_work* ]]
	[[ "$(site_of tzloop)" == do_work* ]]
}

@test "reader: more inlined frames than RD_INLINE_MAX in an answer: none believed, the next file named" {
	env -u TZ CLOCKTRACE_READER_FAULT=lie:hostile- "$CT" run --stacks \
		--json -o "$T/r.json" -- sh -c \
		"'$T/hostile-tzloop' -m localtime -n 3000 -c 0 -w 300 && \
		 '$TOOLS/tzloop' -m localtime -n 3000 -c 0 -w 300" 2>"$T/err" >/dev/null
	jq -c '.losses | with_entries(select(.value > 0))' "$T/r.json" >&2
	jq -c '.stacks[] | [.tz_accesses, [.frames[] | "\(.function)@\(.module)"]]' \
		"$T/r.json" >&2
	[ "$(jqr "$T/r.json" '[.stacks[].tz_accesses] | add')" -eq \
		$(($(workload_sum "$T/err" localtime_calls) +
		   $(workload_sum "$T/err" tzset_calls))) ]
	[ "$(jqr "$T/r.json" '[.stacks[].frames[] |
		select(.function == "lie" or .file == "/lie.c")] | length')" -eq 0 ]
	# The lying answer's file: its frames unnamed, module and offset kept.
	[ "$(jqr "$T/r.json" '[.stacks[].frames[] |
		select(.module == "hostile-tzloop") | .function] | unique | tostring')" = '[null]' ]
	[ "$(jqr "$T/r.json" '[.stacks[].frames[] |
		select(.module == "tzloop") | .function] | index("do_work") != null')" = true ]
}

# The reader of a running attach: the child of CTP that is not PROG.
reader_pid() {
	for _ in $(seq 100); do
		for c in $(pgrep -P "$CTP"); do
			if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
			   grep -q -- '--clocktrace-file-reader'; then
				echo "$c"
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}

@test "reader: runs with read capabilities only, no new privileges, seccomp and limits" {
	"$TOOLS/misbehave" sleep 30 -k 0 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" attach -p "$WL" --libc -d 5 --json -o "$T/r.json" 2>"$T/ct" &
	CTP=$!
	r=$(reader_pid)
	[ -n "$r" ]
	status_of() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$r/status"; }
	# CAP_DAC_READ_SEARCH (2) and CAP_SYS_PTRACE (19): nothing else.
	[ "$(status_of CapEff)" = 0000000000080004 ]
	[ "$(status_of CapPrm)" = 0000000000080004 ]
	[ "$(status_of NoNewPrivs)" = 1 ]
	[ "$(status_of Seccomp)" = 2 ]
	# ASan reserves terabytes of shadow up front: no address-space cap there.
	as=268435456
	[[ "$CT" == */build-san/* ]] && as=unlimited
	grep -Eq "^Max address space +$as +$as" "/proc/$r/limits"
	grep -Eq '^Max cpu time +60 +60' "/proc/$r/limits"
	grep -Eq '^Max file size +0 +0' "/proc/$r/limits"
	kill -TERM "$CTP"
	wait "$CTP"
	CTP=
	# Gone with the tracer (reaped, or a zombie init will reap).
	for _ in $(seq 40); do
		[ ! -e "/proc/$r" ] || grep -q '^State:.*Z' "/proc/$r/status" || {
			sleep 0.05; continue; }
		break
	done
	run ! grep -Eq '^State:[[:space:]]+[RSD]' "/proc/$r/status"
}

@test "reader: SIGTERM ends a session whose reader is stalled, without waiting for it" {
	"$TOOLS/misbehave" sleep 30 -k 0 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	# A deadline far longer than the bound below: only the signal ends it.
	CLOCKTRACE_READER_FAULT=stall:misbehave CLOCKTRACE_READER_DEADLINE_MS=60000 \
		"$CT" attach -p "$WL" --libc -d 60 --json -o "$T/r.json" 2>"$T/ct" &
	CTP=$!
	r=$(reader_pid)
	[ -n "$r" ]
	sleep 1
	start=$(date +%s%N)
	kill -TERM "$CTP"
	wait "$CTP" || true
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	CTP=
	echo "ended ${ms} ms after SIGTERM"
	# 60 s of deadline and of -d against 10 s: a loaded machine keeps it.
	[ "$ms" -lt 10000 ]
	[ -s "$T/r.json" ]
	[ "$(jqr "$T/r.json" '.losses.reader_skipped')" -ge 1 ]
}

@test "maps scans: 30,000 mapped files in 9 processes do not hold attach past -d, counts exact" {
	"$TOOLS/mapmany" -d "$T" -f 30000 -k 8 -n 100 -s 8 >"$T/ready" 2>"$T/wl" &
	WL=$!
	for _ in $(seq 600); do
		grep -q ready "$T/ready" 2>/dev/null && break
		sleep 0.05
	done
	grep -q ready "$T/ready"
	start=$(date +%s%N)
	env -u TZ "$CT" attach -p "$WL" --tree --libc -d 6 --json -o "$T/r.json" 2>"$T/ct" &
	CTP=$!
	sleep 1.5
	kill -USR1 "$WL"
	wait "$CTP"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	CTP=
	echo "attach -d 6 took ${ms} ms"
	# Before: 12-13.5 s, the -i loop rescanning every process's maps.
	[ "$ms" -lt 9000 ]
	wait "$WL"
	WL=
	[ "$(grep -c '^WORKLOAD' "$T/wl")" -eq 9 ]
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 9 ]
	# The first localtime() opens the zone, the 99 others stat it.
	[ "$(jqr "$T/r.json" '[.processes[].tz.paths["/etc/localtime"].stat] | add')" -eq 891 ]
	[ "$(jqr "$T/r.json" '[.processes[].libc.localtime.count] | add')" -eq 900 ]
}
