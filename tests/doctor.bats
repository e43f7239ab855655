#!/usr/bin/env bats
# clocktrace doctor and --version.
load helpers
CT=${CLOCKTRACE_BIN:-$CT}

teardown() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true
}

@test "doctor as root: every check ok, exit 0" {
	run "$CT" doctor
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -cvE '^ok  |^tracing can work here$')" -eq 0 ]
	[[ "$output" == *"ok    btf:"* ]]
	[[ "$output" == *"ok    tp_btf sys_enter: yes"* ]]
	[[ "$output" == *"ok    clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"* ]]
	[[ "$output" == *"ok    libc: glibc"* ]]
	[[ "$output" == *"ok    capabilities after attach: attach and top keep cap_dac_read_search,cap_sys_ptrace,cap_bpf; run adds cap_kill;"* ]]
}

@test "doctor --json parses and says tracing can work" {
	run "$CT" doctor --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.can_trace == true'
	echo "$output" | jq -e '[.checks[].status | IN("ok", "warn", "fail")] | all'
	echo "$output" | jq -e '[.checks[] | select(.check == "permission")][0].status == "ok"'
}

@test "doctor without privilege: permission fails, exit 1" {
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$CT" doctor
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"fail  permission: uid 65534 without CAP_BPF and CAP_PERFMON"* ]]
	[[ "$output" == *"tracing cannot work here"* ]]
}

@test "doctor -p: a process with TZ unset gets the finding" {
	env -u TZ sleep 30 &
	pid=$!
	wait_exec "$pid" sleep
	run "$CT" doctor -p "$pid"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok    process TZ: unset"* ]]
	[[ "$output" == *"process libc: glibc"*"dynamically linked"* ]]
	[[ "$output" == *"warn  process finding: TZ unset: every localtime() will stat /etc/localtime"* ]]
}

@test "doctor -p --json: a process with TZ=UTC" {
	TZ=UTC sleep 30 &
	pid=$!
	wait_exec "$pid" sleep
	run "$CT" doctor -p "$pid" --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.process.tz == "UTC" and .process.tz_set == true'
	echo "$output" | jq -e '.process.libc == "glibc" and .process.static == false'
	echo "$output" | jq -e '.process.finding | startswith("TZ set")'
}

@test "doctor -p on a static glibc program" {
	"$TOOLS/tzloop-static" -n 100000000 -c 0 >/dev/null 2>&1 &
	pid=$!
	wait_exec "$pid" tzloop-static
	run "$CT" doctor -p "$pid" --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.process.static == true and .process.libc == "glibc"'
}

@test "doctor -p with a bad pid: one line, exit 125" {
	run "$CT" doctor -p 999999999
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$CT" doctor -p nope
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "--version: one line with libbpf and the kernel's features" {
	run "$CT" --version
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "clocktrace "*"libbpf 1."*"btf=yes tp_btf=yes uprobe=yes"*"ringbuf=yes"* ]]
}
