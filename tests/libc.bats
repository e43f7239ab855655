#!/usr/bin/env bats
# --libc: C library time calls counted exactly, against workloads that
# count their own calls.  Runs as root with BPF; nothing here may skip.
load helpers

setup() {
	tmp=$(mktemp -d)
}

teardown() {
	rm -rf "$tmp"
}

# libc field F of function FN summed over processes of the JSON report.
libc_sum() {
	jq -r "[.processes[].libc.\"$1\".$2 // 0] | add // 0" "$tmp/out.json"
}

run_libc() {
	"$CT" run --libc --json -o "$tmp/out.json" -- "$@" 2>"$tmp/err" >/dev/null
}

@test "localtime: calls exact, one tz access each with TZ unset" {
	env -u TZ "$CT" run --libc --json -o "$tmp/out.json" -- \
		"$TOOLS/tzloop" -m localtime -n 1000 -c 0 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" localtime_calls)" -eq 1000 ]
	[ "$(libc_sum localtime count)" -eq 1000 ]
	[ "$(libc_sum localtime kernel.tz_accesses)" -eq 1000 ]
	[ "$(libc_sum localtime timed)" = true ]
}

@test "mktime: counted once per call, its stats its own (nesting)" {
	run_libc env -u TZ "$TOOLS/tzloop" -m mktime -n 1000 -c 0
	[ "$(libc_sum mktime count)" -eq 1000 ]
	[ "$(libc_sum mktime kernel.tz_accesses)" -eq 1000 ]
	# tzset and localtime_r run inside mktime: not counted on their own.
	[ "$(libc_sum tzset count)" -eq "$(workload_sum "$tmp/err" tzset_calls)" ]
	[ "$(libc_sum localtime_r count)" -eq 0 ]
	[ "$(libc_sum timelocal count)" -eq 0 ]
}

@test "localtime_r, gmtime, strftime, ctime, tzset: exact counts" {
	for m in localtime_r gmtime strftime ctime tzset; do
		run_libc env -u TZ "$TOOLS/tzloop" -m $m -n 700 -c 0
		extra=0
		[ $m = tzset ] && extra=1	# tzloop's own first tzset()
		[ "$(libc_sum $m count)" -eq $((700 + extra)) ]
	done
	run_libc env -u TZ "$TOOLS/tzloop" -m ctime -n 200 -c 0
	# ctime calls localtime inside: the stat is ctime's, localtime unseen.
	[ "$(libc_sum ctime kernel.tz_accesses)" -eq 200 ]
	[ "$(libc_sum localtime count)" -eq 0 ]
}

@test "clock_gettime: counted (entry only), as many as the workload made" {
	run_libc "$TOOLS/tzloop" -m none -n 10 -c 2
	[ "$(libc_sum clock_gettime count)" -eq \
	  "$(workload_sum "$tmp/err" vdso_clock_gettime)" ]
	[ "$(jqr "$tmp/out.json" '.processes[0].libc.clock_gettime.timed')" = false ]
}

@test "time(): reported not observable, never zero calls" {
	run_libc "$TOOLS/tzloop" -m seed -n 100 -c 0
	[ "$(jqr "$tmp/out.json" '.processes[0].libc.time.observable')" = false ]
	[ "$(jqr "$tmp/out.json" '.processes[0].libc.time.count')" = null ]
	[ -n "$(jqr "$tmp/out.json" '.processes[0].libc.time.reason')" ]
	"$CT" run --libc -- "$TOOLS/tzloop" -m seed -n 10 -c 0 2>"$tmp/txt" >/dev/null
	grep -q "time  *not observable" "$tmp/txt"
}

@test "forked children counted separately" {
	run_libc env -u TZ "$TOOLS/tzloop" -m localtime -n 300 -c 3
	[ "$(jq '.processes | length' "$tmp/out.json")" -eq 4 ]
	[ "$(jq '[.processes[].libc.localtime.count] | unique' -c "$tmp/out.json")" = "[300]" ]
}

@test "exec chain through sh -c: the new image is probed" {
	run_libc sh -c "exec '$TOOLS/tzloop' -m localtime -n 400 -c 0"
	[ "$(libc_sum localtime count)" -eq 400 ]
	run_libc sh -c "'$TOOLS/tzloop' -m localtime -n 400 -c 0; true"
	[ "$(libc_sum localtime count)" -eq 400 ]
}

@test "call sites are symbolized to function and module" {
	run_libc "$TOOLS/tzloop" -m localtime -n 50 -c 0
	[ "$(jqr "$tmp/out.json" '.processes[0].callers[] | select(.function == "localtime") | .count')" -eq 50 ]
	jqr "$tmp/out.json" '.processes[0].callers[] | select(.function == "localtime") | .caller' | grep -q '^do_work'
	[ "$(jqr "$tmp/out.json" '.processes[0].callers[] | select(.function == "localtime") | .module')" = tzloop ]
}

# The localtime call site of the last run: FIELD of it.
site() {
	jqr "$tmp/out.json" "[.processes[0].callers[] | select(.function == \"localtime\")][0].$1"
}

# The source line a "FILE:LINE ..." string names must call localtime().
check_source_line() {
	local where=${1%% *}
	sed -n "${where##*:}p" "${where%:*}" | grep -q 'localtime('
}

@test "call sites: FILE:LINE from DWARF; build-id and offset agree with addr2line after exit" {
	cp "$TOOLS/tzloop" "$tmp/prog"
	run_libc env -u TZ "$tmp/prog" -m localtime -n 30 -c 0
	src=$(site source)
	echo "source: $src" >&2
	[[ $src == */tools/tzloop.c:[0-9]* ]]
	check_source_line "$src"
	[ "$(site build_id)" = "$(build_id_of "$tmp/prog")" ]
	# The process is gone and the file is all addr2line is given.
	vaddr=$(off_to_vaddr "$tmp/prog" "$(site offset)")
	line=$(addr2line -e "$tmp/prog" "$vaddr")
	[ "${line##*:}" = "$(echo "${src%% *}" | sed 's/.*://')" ]
}

@test "call sites: separate debug file found by build-id; stripped file gives no source" {
	objcopy --strip-debug "$TOOLS/tzloop" "$tmp/stripped"
	run_libc env -u TZ "$tmp/stripped" -m localtime -n 20 -c 0
	[ "$(site source)" = null ]
	[ "$(site build_id)" = "$(build_id_of "$tmp/stripped")" ]
	[ "$(site offset)" -gt 0 ]
	id=$(build_id_of "$tmp/stripped")
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ ! -e "$dbg" ]
	mkdir -p "${dbg%/*}"
	objcopy --only-keep-debug "$TOOLS/tzloop" "$dbg"
	run_libc env -u TZ "$tmp/stripped" -m localtime -n 20 -c 0
	src=$(site source)
	rm -f "$dbg"
	check_source_line "$src"
}

@test "call sites: one row per site over processes, named in the finding with its share" {
	env -u TZ "$CT" run --libc -o "$tmp/out.txt" -- \
		"$TOOLS/tzloop" -q -m localtime -n 300 -c 2 2>/dev/null
	grep -E '^ +900  localtime +do_work\+0x[0-9a-f]+ \(tzloop\) at /.*tzloop\.c:[0-9]+.*\[3 processes\]$' "$tmp/out.txt"
	grep -E 'mostly from localtime\(\) called at do_work.*tzloop\.c:[0-9]+.*\(100% of its calls\)' "$tmp/out.txt"
	grep -E '^    cost: .* in the kernel \(.*/s, [0-9.]+% of a CPU\); the fix saves at least' "$tmp/out.txt"
}

@test "findings carry the kernel time of the flagged syscalls as their cost" {
	run_libc env -u TZ "$TOOLS/tzloop" -m localtime -n 500 -c 2
	tz_ns=$(jqr "$tmp/out.json" '[.processes[].tz.latency[].total_ns] | add')
	cost=$(jqr "$tmp/out.json" '.findings[] | select(.id == "tz-repeated-access") | .cost.kernel_ns')
	saving=$(jqr "$tmp/out.json" '.findings[] | select(.id == "tz-repeated-access") | .cost.saving_ns')
	echo "tz kernel ns $tz_ns, cost $cost, saving $saving" >&2
	[ "$cost" -eq "$tz_ns" ]
	[ "$saving" -gt 0 ] && [ "$saving" -le "$cost" ]
}

# Feeds folded stacks to stackvis (npm, installed by make deps), a
# flame-graph tool that reads Brendan Gregg's collapsed format.
flamegraph_svg() {
	"$ROOT/tools/flamegraph/node_modules/.bin/stackvis" collapsed flamegraph-svg
}

@test "--format folded: call-site stacks a flame-graph tool draws with the JSON's counts" {
	run_libc env -u TZ "$TOOLS/tzloop" -q -m localtime -n 120 -c 2
	calls=$(libc_sum localtime count)
	env -u TZ "$CT" run --libc --format folded -o "$tmp/out.folded" -- \
		"$TOOLS/tzloop" -q -m localtime -n 120 -c 2 2>/dev/null
	cat "$tmp/out.folded" >&2
	grep -Eq '^tzloop;do_work \(tzloop\.c:[0-9]+\);localtime 360$' "$tmp/out.folded"
	[ "$calls" -eq 360 ]
	# Every line is "frames count", frames without spaces around ';'.
	run -1 grep -Ev '^[^;]+(;[^;]+)+ [0-9]+$' "$tmp/out.folded"
	flamegraph_svg < "$tmp/out.folded" > "$tmp/fg.svg"
	grep -q 'localtime (360 samples' "$tmp/fg.svg"
}

@test "--format folded without --libc: kernel events per command, path escaped" {
	"$CT" run --format folded -o "$tmp/out.folded" -- env -u TZ \
		"$TOOLS/tzloop" -q -n 50 -c 1 -s CLOCK_MONOTONIC:7 2>/dev/null
	cat "$tmp/out.folded" >&2
	grep -qx 'tzloop;stat;/etc/localtime 200' "$tmp/out.folded"
	grep -qx 'tzloop;clock_gettime;CLOCK_MONOTONIC 14' "$tmp/out.folded"
	flamegraph_svg < "$tmp/out.folded" | grep -q 'CLOCK_MONOTONIC (14 samples'
	# A frame the program names cannot split a frame or a line.
	"$CT" run --format folded -o "$tmp/hostile.folded" -- \
		perl -e 'stat("/usr/share/zoneinfo/x;y\nz w") for 1..3'
	grep -qx 'perl;stat;/usr/share/zoneinfo/x\\x3by\\x0az w 3' "$tmp/hostile.folded"
	run "$CT" run -i 1 --format folded -- /bin/true
	[ "$status" -eq 125 ]
	run "$CT" top --format folded
	[ "$status" -eq 125 ]
}

@test "static glibc binary: named as having no C library to probe" {
	"$CT" run --libc -- "$TOOLS/tzloop-static" -m localtime -n 10 -c 0 \
		2>"$tmp/txt" >/dev/null
	grep "No C library to probe" "$tmp/txt" | grep -q "tzloop-static"
	run_libc "$TOOLS/tzloop-static" -m localtime -n 10 -c 0
	[ "$(libc_sum localtime count)" -eq 0 ]
}

@test "static musl binary: named as having no C library to probe" {
	"$CT" run --libc -- "$TOOLS/tzloop-musl" -m localtime -n 10 -c 0 \
		2>"$tmp/txt" >/dev/null
	grep -q "No C library to probe" "$tmp/txt"
}

@test "no uprobe program or link of ours remains after a --libc run" {
	run_libc "$TOOLS/tzloop" -m localtime -n 10 -c 1
	# Programs and links of tracers running meanwhile are held: not ours.
	[ "$(our_progs)" -eq 0 ]
	[ "$(unheld_links uprobe_multi)" -eq 0 ]
}

@test "a vDSO clock_gettime is not blamed for a later direct clock syscall" {
	"$CT" run --libc --json -o "$BATS_TEST_TMPDIR/p.json" -- \
		"$TOOLS/tzloop" -m none -n 1 -c 0 -s CLOCK_PROCESS_CPUTIME_ID:50 >/dev/null 2>&1
	jq -e '.processes[0].libc.clock_gettime.count == 2 and
		.processes[0].libc.clock_gettime.kernel.clock_syscalls == 0 and
		.processes[0].clock.clock_gettime.count == 50' "$BATS_TEST_TMPDIR/p.json"
}
