#!/usr/bin/env bats
# --stacks where the code that reaches the kernel is no C program of ours:
# Debian's perl and python3 (their forking workers' stacks through the
# interpreter's C frames) and a Go program, which has no C library at all.
# Oracles in the same run: the workloads' own counts; after the processes
# are gone, the files themselves (addr2line where they have lines, their
# symbol tables where they have none).  Runs as root with BPF.
load helpers

setup() {
	tmp=$(mktemp -d)
}

teardown() {
	rm -rf "$tmp"
}

# "weight<TAB>f1<f2<...", innermost first, of the stacks holding KIND
# (tz_accesses or clock_syscalls); "?" for a frame with no name.
stacks_of() {
	jqr "$tmp/out.json" ".stacks[] | select(.$1 > 0) |
		\"\(.$1)\t\([.frames[] | .function // \"?\"] | join(\"<\"))\""
}

weights() {
	jqr "$tmp/out.json" "[.stacks[].$1] | add"
}

# Every stack holding tz accesses matches the extended regex $1.
all_tz_stacks_match() {
	local w frames
	while IFS=$'\t' read -r w frames; do
		echo "$w $frames" >&2
		[[ $frames =~ $1 ]]
	done < <(stacks_of tz_accesses)
	[ -n "$(stacks_of tz_accesses)" ]
}

# FIELD of the frame of FUNCTION in the heaviest stack holding KIND.
frame() {
	jqr "$tmp/out.json" "[.stacks[] | select(.$1 > 0)][0].frames[] |
		select(.function == \"$2\") | .$3"
}

# The workloads' processes are all gone.
workers_gone() {
	local pid
	for pid in $(grep -o ' pid=[0-9]*' "$tmp/err" | cut -d= -f2); do
		run kill -0 "$pid"
		[ "$status" -ne 0 ]
	done
}

# The function symbol of FILE (dynamic or static table) whose bytes hold
# link-time address $2.
symbol_at() {
	local v=$(($2)) addr size type name
	while read -r addr size type name; do
		[[ $type == [tTwW] ]] || continue
		if [ "$v" -ge $((16#$addr)) ] &&
			[ "$v" -lt $((16#$addr + 16#$size)) ]; then
			echo "$name"
			return
		fi
	done < <(nm -D -S --defined-only "$1"; nm -S --defined-only "$1" 2>/dev/null)
	return 1
}

# A frame of FUNCTION (in stacks holding KIND) named by a FILE that has no
# line table: its build-id is the file's and the symbol at its offset
# (the byte before the return address: the call) is FUNCTION.
check_symbol() {
	local vaddr sym
	[ "$(frame "$1" "$2" build_id)" = "$(build_id_of "$3")" ]
	[ "$(frame "$1" "$2" module)" = "$(basename "$3")" ]
	vaddr=$(off_to_vaddr "$3" "$(frame "$1" "$2" offset)")
	sym=$(symbol_at "$3" $((vaddr - 1)))
	echo "$2: symbol at $vaddr - 1 in $3: $sym" >&2
	[ "$sym" = "$2" ]
}

# The same for a file with a line table: addr2line names the frame's
# file:line.
check_addr2line() {
	local vaddr line
	[ "$(frame "$1" "$2" build_id)" = "$(build_id_of "$3")" ]
	vaddr=$(off_to_vaddr "$3" "$(frame "$1" "$2" offset)")
	line=$(addr2line -e "$3" "$(printf '0x%x' $((vaddr - 1)))")
	echo "$2: addr2line $line, stack $(frame "$1" "$2" file):$(frame "$1" "$2" line)" >&2
	[ "${line%% *}" = "$(frame "$1" "$2" file):$(frame "$1" "$2" line)" ]
}

@test "perl's forked workers: each localtime's tz access on a stack through tzset and pp_gmtime to main; exact weights" {
	run_stacks /usr/bin/perl "$TOOLS/lang/fork.pl" 1500 3
	[ "$(workload_sum "$tmp/err" localtime_calls)" -eq 4500 ]
	[ "$(weights tz_accesses)" -eq 4500 ]
	[ "$(jqr "$tmp/out.json" '[.processes[].tz.accesses] | add')" -eq 4500 ]
	# Debian's perl is built with LOCALTIME_R_NEEDS_TZSET: the builtin
	# calls tzset, then localtime_r.  main is perl's own (libperl is
	# linked into /usr/bin/perl).
	all_tz_stacks_match '<tzset<Perl_localtime64_r<Perl_pp_gmtime<Perl_runops_standard<perl_run<main$'
	[ "$(jqr "$tmp/out.json" '[.stacks[] | select(.tz_accesses > 0)][0].processes')" -eq 3 ]
	[ "$(jqr "$tmp/out.json" '.losses.stack_not_unwound')" -eq 0 ]
	workers_gone
	check_symbol tz_accesses Perl_pp_gmtime /usr/bin/perl
	check_symbol tz_accesses perl_run /usr/bin/perl
}

@test "python3's forked workers: each mktime's tz access on a stack through the eval loop to Py_BytesMain; exact weights" {
	run_stacks /usr/bin/python3.11 "$TOOLS/lang/fork.py" 1500 3
	[ "$(workload_sum "$tmp/err" mktime_calls)" -eq 4500 ]
	# time.localtime is localtime_r, which reads no zone; time.mktime
	# calls tzset: one access per mktime.
	[ "$(stacks_of tz_accesses | grep '<tzset<timelocal<' |
		awk '{ s += $1 } END { print s }')" -eq 4500 ]
	for pid in $(grep -o 'role=worker pid=[0-9]*' "$tmp/err" | cut -d= -f3); do
		[ "$(jqr "$tmp/out.json" ".processes[] | select(.pid == $pid) |
			.tz.accesses")" -eq 1500 ]
	done
	# The rest is the parent's: the time module's import reads the zone.
	[ "$(weights tz_accesses)" -eq "$(jqr "$tmp/out.json" '[.processes[].tz.accesses] | add')" ]
	# The workers' stacks, whole: python3.11's main jumps to Py_BytesMain
	# (a tail call, no frame of its own).  The import's stack is deeper
	# than the 8 KiB copied: it ends where the copy does.
	stacks_of tz_accesses | grep '<timelocal<' >"$tmp/mktime"
	[ "$(grep -c . "$tmp/mktime")" -ge 1 ]
	run -1 grep -Ev '<tzset<timelocal<(.*<)?_PyEval_EvalFrameDefault<PyEval_EvalCode<(.*<)?Py_RunMain<Py_BytesMain<__libc_start_call_main<__libc_start_main<_start$' "$tmp/mktime"
	[ "$(jqr "$tmp/out.json" '.losses.stack_not_unwound')" -eq 0 ]
	workers_gone
	check_symbol tz_accesses PyEval_EvalCode /usr/bin/python3.11
	check_symbol tz_accesses Py_RunMain /usr/bin/python3.11
}

@test "Go, no C library: zone loads and clock syscalls tied to main.main's lines, addr2line agrees; --libc names no site" {
	cp "$TOOLS/zoneload" "$tmp/zoneload"
	run_stacks "$tmp/zoneload" -n 1200 -s 700
	[ "$(workload_sum "$tmp/err" load_location_calls)" -eq 1200 ]
	[ "$(workload_sum "$tmp/err" clock_syscalls)" -eq 700 ]
	# Each LoadLocation opens the file itself, under the zoneinfo
	# directory that clocktrace watches (Go joins with "//").
	[ "$(jqr "$tmp/out.json" '.processes[0].tz.paths["/usr/share/zoneinfo//Europe/Paris"].open')" -eq 1200 ]
	[ "$(weights tz_accesses)" -eq 1200 ]
	[ "$(weights clock_syscalls)" -eq 700 ]
	all_tz_stacks_match '^runtime/internal/syscall\.Syscall6<.*<syscall\.openat<.*<time\.LoadLocation<main\.loadZones<main\.main<runtime\.main<runtime\.goexit\.abi0$'
	stacks_of clock_syscalls | grep -q $'^700\t.*<syscall\\.Syscall<main\\.readCPUClock<main\\.main<runtime\\.main<'
	[[ $(frame tz_accesses main.loadZones file) == */tools/zoneload.go ]]
	workers_gone
	check_addr2line tz_accesses main.main "$tmp/zoneload"
	check_addr2line tz_accesses main.loadZones "$tmp/zoneload"
	check_addr2line clock_syscalls main.main "$tmp/zoneload"
	[ "$(frame tz_accesses main.main line)" -ne "$(frame clock_syscalls main.main line)" ]
	# Nothing for --libc to probe: the counts stay, no call site.
	env -u TZ "$CT" run --libc --json -o "$tmp/libc.json" -- \
		"$tmp/zoneload" -n 100 -s 10 2>/dev/null >/dev/null
	[ "$(jqr "$tmp/libc.json" '.processes[0].tz.accesses')" -eq 100 ]
	[ "$(jqr "$tmp/libc.json" '.processes[0].callers | length')" -eq 0 ]
}
