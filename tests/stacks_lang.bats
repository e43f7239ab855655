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
	# The parent stays 0.3 s: the workers' maps are its own, readable
	# whenever the loop reads them (this test is about the unwinding; a
	# process gone before then is stack_not_unwound, its weight kept).
	run_stacks /usr/bin/perl "$TOOLS/lang/fork.pl" 1500 3 0.3
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
	# Without --lang, no script frame.
	[ "$(jqr "$tmp/out.json" '[.stacks[].frames[] | select(.lang != null)] | length')" -eq 0 ]
	workers_gone
	check_symbol tz_accesses PyEval_EvalCode /usr/bin/python3.11
	check_symbol tz_accesses Py_RunMain /usr/bin/python3.11
}

# --lang --stacks: the script frames of each copy, "file:line<...",
# innermost first, and its weight, one line per stack that has any; and
# the same of --lang's own sites with their stacks.  Summed by chain.
script_chains() {
	jqr "$tmp/out.json" '[.stacks[] | {w: (.tz_accesses + .clock_syscalls),
		c: ([.frames[] | select(.lang) | "\(.file):\(.line)"] | join("<"))} |
		select(.c != "")] | group_by(.c)[] |
		"\(map(.w) | add) \(.[0].c)"'
}

site_chains() {
	jqr "$tmp/out.json" '[.processes[].lang_sites[] |
		{w: (.tz_accesses + .clock_syscalls),
		 c: ([{file, line}] + .stack | map("\(.file):\(.line)") | join("<"))}] |
		group_by(.c)[] | "\(map(.w) | add) \(.[0].c)"'
}

# KIND's weight of the stacks whose script functions are $2 ("a<b<c").
script_weight() {
	jqr "$tmp/out.json" "[.stacks[] | select(([.frames[] | select(.lang) |
		.function] | join(\"<\")) == \"$2\") | .$1] | add // 0"
}

# Every stack whose innermost script frame is function $1 has its script
# frames in one run, between a native frame under them and the
# interpreter's loop (regex $2) over them.  (Where the copy ends before
# the loop, as in rubygems' deep loading, they are the outermost.)
script_frames_placed() {
	local rows
	rows=$(jqr "$tmp/out.json" '.stacks[] |
		[.frames | to_entries[] | select(.value.lang)] as $s |
		select(($s | length) > 0 and $s[0].value.function == "'"$1"'") |
		"\(.frames[$s[0].key - 1].lang // "native") \($s[-1].key - $s[0].key + 1 - ($s | length)) \(.frames[$s[-1].key + 1].function)"')
	echo "$rows" >&2
	[ -n "$rows" ]
	run -1 grep -Ev "^native 0 ($2)\$" <<<"$rows"
}

# The oracle of --lang --stacks: every stack's script frames are a chain
# --lang counted in the same run, with the same weight; no copy sampled
# or lost.
stacks_agree_with_sites() {
	[ "$(jqr "$tmp/out.json" '[.stacks[] | select(.sampled)] | length')" -eq 0 ]
	[ "$(jqr "$tmp/out.json" '.losses.stack_script_frames_lost + .losses.stack_not_unwound + .losses.stack_ringbuf_full')" -eq 0 ]
	diff <(script_chains) <(site_chains) >&2
}

@test "--lang --stacks, python3's forked workers: each chain's script frames above the eval loop, weights --lang's and the workload's own" {
	env -u TZ "$CT" run --lang --stacks --json -o "$tmp/out.json" -- \
		/usr/bin/python3.11 "$TOOLS/lang/chain.py" 30 3 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" chain_calls)" -eq 90 ]
	[ "$(workload_sum "$tmp/err" direct_calls)" -eq 90 ]
	[ "$(script_weight tz_accesses 'inner<middle<outer<worker<<module>')" -eq 90 ]
	[ "$(script_weight tz_accesses 'inner<direct<worker<<module>')" -eq 90 ]
	[ "$(jqr "$tmp/out.json" '[.stacks[].frames[] | select(.lang) | .lang] | unique | join(",")')" = python ]
	script_frames_placed inner '_PyEval_EvalFrameDefault'
	stacks_agree_with_sites
}

@test "--lang --stacks, sampled: each script chain weighs its exact count, under the copies of its own events" {
	# 400 events a worker: past the 128 copied at once, the rest counted.
	env -u TZ "$CT" run --lang --stacks --json -o "$tmp/out.json" -- \
		/usr/bin/python3.11 "$TOOLS/lang/chain.py" 200 3 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" chain_calls)" -eq 600 ]
	[ "$(workload_sum "$tmp/err" direct_calls)" -eq 600 ]
	[ "$(jqr "$tmp/out.json" '[.stacks[] | select(.sampled)] | length')" -ge 1 ]
	[ "$(script_weight tz_accesses 'inner<middle<outer<worker<<module>')" -eq 600 ]
	[ "$(script_weight tz_accesses 'inner<direct<worker<<module>')" -eq 600 ]
	diff <(script_chains) <(site_chains) >&2
	[ "$(weights tz_accesses)" -eq "$(jqr "$tmp/out.json" '[.processes[].tz.accesses] | add')" ]
}

@test "--lang --stacks, ruby's forked workers: tz accesses and clock syscalls under their methods' chains, above the VM's loop" {
	env -u TZ "$CT" run --lang --stacks --json -o "$tmp/out.json" -- \
		/usr/bin/ruby "$TOOLS/lang/chain.rb" 30 3 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" due_at_calls)" -eq 90 ]
	[ "$(workload_sum "$tmp/err" cpu_reads)" -eq 90 ]
	[ "$(script_weight tz_accesses 'due_at<block in index<index<serve<block (2 levels) in <main><block in <main><<main>')" -eq 90 ]
	[ "$(script_weight clock_syscalls 'cpu_spent<block in show<show<serve<block (2 levels) in <main><block in <main><<main>')" -eq 90 ]
	# Debian's libruby names rb_vm_exec, not the static vm_exec_core.
	script_frames_placed due_at 'rb_vm_exec|vm_exec_core|vm_exec'
	script_frames_placed cpu_spent 'rb_vm_exec|vm_exec_core|vm_exec'
	stacks_agree_with_sites
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
