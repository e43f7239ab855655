#!/usr/bin/env bats
# --lang, Python frame mode beyond the thread that holds the GIL: threads
# in a blocking call, a pid namespace of its own, a child that exec'd
# another program, and zones a program loads by name.  Debian's python3
# (3.11); tests/lang_trixie.bats runs 3.13 from a Debian 13 root.

bats_require_minimum_version 1.5.0
load helpers

PY=/usr/bin/python3
PARIS=/usr/share/zoneinfo/Europe/Paris

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# The tz accesses of the script lines of function $2 in report $1.
tz_of_function() {
	jqr "$1" "[.processes[].lang_sites[]? | select(.function == \"$2\") |
		.tz_accesses] | add // 0"
}

unattributed() {
	jqr "$1" '.lang.unattributed | add'
}

@test "python: threads in a blocking open (GIL released): each event under its own thread's line, exact" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		"$PY" "$TOOLS/lang/zone_threads.py" 50 4 2>"$T/err" >/dev/null
	loads=$(workload_sum "$T/err" loads)
	calls=$(workload_sum "$T/err" mktime_calls)
	[ "$loads" -eq 200 ]
	[ "$calls" -gt 0 ]
	# Each load is a stat (in genericpath.isfile) and an open (from C,
	# under the thread's own line); the main thread's mktime, one stat.
	[ "$(jqr "$T/r.json" '[.processes[].lang_sites[]? |
		select((.file | endswith("zone_threads.py")) and .line == 18) |
		.tz_accesses] | add')" -eq "$loads" ]
	[ "$(tz_of_function "$T/r.json" isfile)" -eq "$loads" ]
	[ "$(jqr "$T/r.json" '[.processes[].lang_sites[]? |
		select((.file | endswith("zone_threads.py")) and .line == 24) |
		.tz_accesses] | add')" -eq "$calls" ]
	[ "$(unattributed "$T/r.json")" -eq 0 ]
	[ "$(jqr "$T/r.json" '.losses.lang_python_frame_unreadable')" -eq 0 ]
}

@test "python: a zone loaded by name again and again: the fix is to keep it, not TZ" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		"$PY" "$TOOLS/lang/zone_threads.py" 50 2 idle 2>/dev/null >/dev/null
	f='.findings[] | select(.id == "tz-repeated-access")'
	jqr "$T/r.json" "$f | .message" | grep -qF "accessed $PARIS 200 times"
	[[ "$(jqr "$T/r.json" "$f | .fix")" == "the program loads the zone Europe/Paris by name again and again"*"TZ=:/etc/localtime would not stop these reads"* ]]
	[[ "$(jqr "$T/r.json" "$f | .runtime_fix")" == "zoneinfo.ZoneInfo(key) keeps each zone"* ]]
	[ "$(jqr "$T/r.json" "$f | .runtime")" = python ]
	# The default zone's advice is for /etc/localtime only.
	env -u TZ "$CT" run --json -o "$T/c.json" -- \
		"$TOOLS/tzloop" -n 300 -c 0 -m localtime 2>/dev/null >/dev/null
	[[ "$(jqr "$T/c.json" "$f | .fix")" == "set TZ in the environment"* ]]
}

# The workers' mktime calls, summed per worker as pool.py says them (the
# pool may give one worker both tasks), sorted: "150,150" or "300".
per_worker() {
	grep -o 'role=worker pid=[0-9]* mktime_calls=[0-9]*' "$1" |
		awk -F'[= ]' '{ n[$4] += $6 } END { for (p in n) print n[p] }' |
		sort -n | paste -sd,
}

@test "python: a pool in its own pid namespace (unshare --pid): every call tied to its line, exact per worker" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- \
		unshare --pid --fork --mount-proc \
		"$PY" "$TOOLS/lang/pool.py" 150 2 2>"$T/err" >/dev/null
	[ "$(workload_sum "$T/err" mktime_calls)" -eq 600 ]
	[ "$(jqr "$T/r.json" '[.processes[] | [.lang_sites[]? |
		select((.file | endswith("pool.py")) and .line == 17) |
		.tz_accesses] | add // 0 | select(. > 0)] | sort | map(tostring) | join(",")')" = "$(per_worker "$T/err")" ]
	[ "$(unattributed "$T/r.json")" -eq 0 ]
}

@test "python: a child that exec'd another program is not read as Python: no line, nothing unattributed" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- "$PY" -c \
		"import subprocess; subprocess.run(['$TOOLS/tzloop', '-n', '300', '-c', '0', '-m', 'localtime'])" \
		2>"$T/err" >/dev/null
	[ "$(workload_sum "$T/err" localtime_calls)" -eq 300 ]
	[ "$(jqr "$T/r.json" '[.processes[] | select(.comm == "tzloop") |
		.lang_sites | length] | add')" -eq 0 ]
	[ "$(jqr "$T/r.json" '[.processes[] | select(.comm == "tzloop") |
		.tz.accesses] | add')" -ge 300 ]
	[ "$(unattributed "$T/r.json")" -eq 0 ]
	[ "$(jqr "$T/r.json" '.losses.lang_python_frame_unreadable')" -eq 0 ]
}
