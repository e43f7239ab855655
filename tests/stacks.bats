#!/usr/bin/env bats
# --stacks: every tz access and clock syscall tied to its whole user stack,
# unwound from a copy of the stack top with the files' CFI, no uprobe.
# Oracles in the same run: the workloads' own counts, --libc's call sites,
# addr2line on the file after the process is gone.  Runs as root with BPF.
load helpers

setup() {
	tmp=$(mktemp -d)
}

teardown() {
	rm -rf "$tmp"
}

# The stacks that hold tz accesses: "weight<TAB>f1<f2<...", innermost first.
tz_stacks() {
	jqr "$tmp/out.json" '.stacks[] | select(.tz_accesses > 0) |
		"\(.tz_accesses)\t\([.frames[].function // "?"] | join("<"))"'
}

# Each tz stack must reach main through do_work and one of the C
# library's time-zone entries (localtime jumps to __tz_convert: a tail
# call leaves no frame of its own; mktime is also named timelocal).
check_tz_stacks() {
	local w frames
	while IFS=$'\t' read -r w frames; do
		echo "$w $frames" >&2
		[[ $frames == *"<main" ]]
		[[ $frames =~ (^|<)(__tz_convert|tzset|mktime|timelocal|localtime)(<|$) ]]
	done < <(tz_stacks)
	[ -n "$(tz_stacks)" ]
}

# The exact tz accesses of the run (TZ unset): one per localtime, mktime
# (its iterations) or tzset call.
tz_want() {
	echo $(($(workload_sum "$tmp/err" "$1") +
		$(workload_sum "$tmp/err" tzset_calls)))
}

tz_weights() {
	jqr "$tmp/out.json" '[.stacks[].tz_accesses] | add'
}

# The innermost frame of tzloop.c in the heaviest tz stack, the line
# that called the C library: FIELD of it.
call_site() {
	jqr "$tmp/out.json" "[[.stacks[] | select(.tz_accesses > 0)][0].frames[] |
		select(.file // \"\" | endswith(\"/tools/tzloop.c\"))][0] | .$1"
}

@test "tzloop, no --libc: every tz access tied to a stack through localtime to main; weights sum to the exact count" {
	run_stacks "$TOOLS/tzloop" -m localtime -n 2000 -c 2
	[ "$(tz_want localtime_calls)" -eq 6001 ]
	[ "$(tz_weights)" -eq 6001 ]
	[ "$(jqr "$tmp/out.json" '[.processes[].tz.accesses] | add')" -eq 6001 ]
	check_tz_stacks
	# 2000 events per process in a short run: past the rate, sampled.
	[ "$(jqr "$tmp/out.json" '.stacks[0].sampled')" = true ]
	# The two children run the same code: one row, two processes.
	[ "$(jqr "$tmp/out.json" '.stacks[0].processes')" -eq 2 ]
	[ "$(jqr "$tmp/out.json" '.stacks[0].tz_accesses')" -eq 4000 ]
	[ "$(jqr "$tmp/out.json" '.losses.stack_not_unwound')" -eq 0 ]
}

@test "the stacks' file:line is the call site --libc names on the same workload" {
	cp "$TOOLS/tzloop" "$tmp/prog"
	# Long enough for its maps to be read while it runs (stacks.h).
	run_stacks "$tmp/prog" -m localtime -n 3000 -c 0
	check_tz_stacks
	src="$(call_site file):$(call_site line)"
	env -u TZ "$CT" run --libc --json -o "$tmp/libc.json" -- "$tmp/prog" \
		-m localtime -n 3000 -c 0 2>/dev/null >/dev/null
	site=$(jqr "$tmp/libc.json" '.processes[0].callers[] |
		select(.function == "localtime") | .source')
	echo "stack: $src, --libc: $site" >&2
	[[ $src == */tools/tzloop.c:[0-9]* ]]
	[ "$src" = "${site%% *}" ]
}

@test "-O2 -fomit-frame-pointer: mktime's stacks unwound by CFI to main" {
	run_stacks "$TOOLS/tzloop-nofp" -m mktime -n 1500 -c 1
	check_tz_stacks
	[ "$(tz_weights)" -eq "$(tz_want iterations)" ]
	# run_mktime and run_loop are inlined (-O2), each a frame of its own.
	tz_stacks | grep -q $'\t[^\t]*<tzset<\(mktime\|timelocal\)<run_mktime<run_loop<do_work<main$'
}

# The call site's build-id and offset name its line for addr2line,
# given only the file once the process is gone (the offset is a return
# address: the call is the byte before).
check_addr2line() {
	local vaddr line
	[ "$(call_site build_id)" = "$(build_id_of "$1")" ]
	[ "$(call_site module)" = "$(basename "$1")" ]
	vaddr=$(off_to_vaddr "$1" "$(call_site offset)")
	line=$(addr2line -e "$1" "$(printf '0x%x' $((vaddr - 1)))")
	echo "addr2line: $line, stack: $(call_site file):$(call_site line)" >&2
	[ "${line%% *}" = "$(call_site file):$(call_site line)" ]
}

@test "a PIE's stack: build-id and offset agree with addr2line after exit" {
	cp "$TOOLS/tzloop" "$tmp/pie"
	run_stacks "$tmp/pie" -m localtime -n 3000 -c 0
	run kill -0 "$(grep -o '^WORKLOAD pid=[0-9]*' "$tmp/err" | cut -d= -f2)"
	[ "$status" -ne 0 ]
	check_addr2line "$tmp/pie"
}

# addr2line -i -f at the byte before file offset $2 of ELF file $1: the
# frames it names there, "function@file:line" a line each, innermost first.
addr2line_frames() {
	local vaddr
	vaddr=$(off_to_vaddr "$1" "$2")
	addr2line -i -f -e "$1" "$(printf '0x%x' $((vaddr - 1)))" |
		sed 's/ (discriminator [0-9]*)$//' | paste -d@ - -
}

@test "an always_inline function is a frame of its own, inlined, as addr2line -i names it after exit" {
	cp "$TOOLS/tzloop" "$tmp/inl"
	run_stacks "$tmp/inl" -m inline -n 3000 -c 0
	run kill -0 "$(grep -o '^WORKLOAD pid=[0-9]*' "$tmp/err" | cut -d= -f2)"
	[ "$status" -ne 0 ]
	check_tz_stacks
	[ "$(tz_weights)" -eq "$(tz_want localtime_calls)" ]
	# The program's frames of the heaviest tz stack, pc by pc.
	jqr "$tmp/out.json" '[.stacks[] | select(.tz_accesses > 0)][0].frames[] |
		select(.module == "inl") |
		"\(.offset)\t\(.function)@\(.file):\(.line)\t\(.inlined)"' >"$tmp/got"
	cat "$tmp/got" >&2
	: >"$tmp/want"
	for off in $(cut -f1 "$tmp/got" | uniq); do
		addr2line_frames "$tmp/inl" "$off" >"$tmp/a2l"
		n=$(wc -l <"$tmp/a2l")
		awk -v off="$off" -v n="$n" '{ printf "%s\t%s\t%s\n", off, $0,
			NR < n ? "true" : "false" }' "$tmp/a2l" >>"$tmp/want"
	done
	diff "$tmp/want" "$tmp/got"
	# local_now, always inlined, called localtime; run_inline called it.
	grep -qx 'local_now true' <(cut -f2,3 "$tmp/got" | sed -n 1p | sed 's/@[^\t]*//' | tr '\t' ' ')
	grep -qx 'run_inline false' <(cut -f2,3 "$tmp/got" | sed -n 2p | sed 's/@[^\t]*//' | tr '\t' ' ')
	[ "$(wc -l <"$tmp/want")" -ge 4 ]
}

@test "a static binary: stacks unwound to main, addr2line agrees" {
	cp "$TOOLS/tzloop-static" "$tmp/static"
	run_stacks "$tmp/static" -m localtime -n 500 -c 1
	check_tz_stacks
	[ "$(tz_weights)" -eq "$(tz_want localtime_calls)" ]
	check_addr2line "$tmp/static"
}

@test "clock syscalls: weights sum to the workload's own count, stacks reach main" {
	run_stacks "$TOOLS/tzloop" -m none -n 1 -c 2 -s CLOCK_PROCESS_CPUTIME_ID:700
	[ "$(workload_sum "$tmp/err" clock_syscalls)" -eq 2100 ]
	[ "$(jqr "$tmp/out.json" '[.stacks[].clock_syscalls] | add')" -eq 2100 ]
	# The children's: spawn_child is inlined into main.
	[ "$(jqr "$tmp/out.json" '.stacks[0].frames | map(.function) | .[-4:] | join("<")')" = "run_clock_specs<do_work<spawn_child<main" ]
	[ "$(jqr "$tmp/out.json" '.stacks[0].frames | map(.inlined) | .[-4:] | join("<")')" = "true<false<true<false" ]
}

@test "pre-forked workers that exit fast: unwound by their idle parent's maps, one row" {
	run_stacks "$TOOLS/tzloop" -m none -n 1 -c 4 -p -s CLOCK_PROCESS_CPUTIME_ID:300
	[ "$(workload_sum "$tmp/err" clock_syscalls)" -eq 1200 ]
	[ "$(jqr "$tmp/out.json" '.stacks[0].clock_syscalls')" -eq 1200 ]
	[ "$(jqr "$tmp/out.json" '.stacks[0].processes')" -eq 4 ]
	[ "$(jqr "$tmp/out.json" '.stacks[0].frames | map(.function) | join("<")')" = "syscall<run_clock_specs<do_work<spawn_child<main" ]
	[ "$(jqr "$tmp/out.json" '.losses.stack_not_unwound')" -eq 0 ]
}

@test "text: the tz-repeated-access finding names its top stacks innermost first" {
	env -u TZ "$CT" run --stacks -- "$TOOLS/tzloop" -m localtime -n 300 -c 2 \
		2>"$tmp/txt" >/dev/null
	sed -n '/tz-repeated-access/,/^  \[/p' "$tmp/txt" >"$tmp/finding"
	grep -q '^    stacks (tz accesses):$' "$tmp/finding"
	# The two children's stacks are one row, even where a child's copies
	# came before its fork notice and it was gone by then.
	# Inlined calls are frames of their own, marked so.
	grep -Eq '^ +67% 600 \(sampled\) in 2 processes: stat < fstatat64.*< __tz_convert \(tzset\.c:[0-9]+\) < run_simple \(tzloop\.c:[0-9]+, inlined\) < run_loop \(tzloop\.c:[0-9]+, inlined\) < do_work \(tzloop\.c:[0-9]+\) < spawn_child \(tzloop\.c:[0-9]+, inlined\) < main \(tzloop\.c:[0-9]+\)$' "$tmp/finding"
}

@test "--format folded: whole stacks, outermost first, weights sum to the exact counts" {
	env -u TZ "$CT" run --stacks --format folded -o "$tmp/folded" -- \
		"$TOOLS/tzloop" -m localtime -n 400 -c 1 2>"$tmp/err" >/dev/null
	cat "$tmp/folded" >&2
	# Inlined calls marked as stackcollapse-perf.pl --inline marks them.
	grep -Eq '^tzloop;main;do_work;run_loop_\[i\];run_simple_\[i\];__tz_convert;tzset_internal;__tzfile_read;fstatat64;(fstatat64_time64_stat_\[i\];)?stat 400$' "$tmp/folded"
	grep -Eq '^tzloop;main;spawn_child_\[i\];do_work;run_loop_\[i\];run_simple_\[i\];__tz_convert;tzset_internal;__tzfile_read;fstatat64;(fstatat64_time64_stat_\[i\];)?stat 400$' "$tmp/folded"
	[ "$(awk '{ s += $NF } END { print s }' "$tmp/folded")" -eq "$(tz_want localtime_calls)" ]
}

@test "--stacks off: no stack is copied, no stacks in the JSON" {
	env -u TZ "$CT" run --json -o "$tmp/out.json" -- "$TOOLS/tzloop" \
		-m localtime -n 100 -c 0 2>/dev/null >/dev/null
	[ "$(jqr "$tmp/out.json" 'has("stacks")')" = false ]
	run -125 "$CT" run --compare --stacks -- true
}
