#!/bin/sh
# The integration subset that runs inside each kernel of the matrix
# (tools/vmtest/run.sh boots them), under busybox sh.  Every count is
# checked against the workloads' own WORKLOAD lines from the same run.
#   guest-tests.sh list SUBSET    "NAME DESCRIPTION" per test (on the host)
#   guest-tests.sh run SUBSET ARCH   runs them, one "VMTAP ok|not ok NAME" each
# Lines start with VMTAP (results, "# " diagnostics) or VMINFO (what the
# README's kernel table shows), so that the host tells them from the
# kernel's own console messages.  SUBSET: full, small (arm64: TCG is slow)
# or boot (a guest without a clocktrace binary: proves the boot path only).

CT=/opt/clocktrace/clocktrace
TOOLS=/opt/clocktrace/tools
W=/tmp/vmtest
# --attach MODE for the runs of the *_other tests; empty: auto.
ATTACH_OPT=

# name, subsets, description: in the order they run.  "leftovers" and
# "doctor_agrees" must come after every test that runs clocktrace.
TESTS='
boot_kernel		boot,small,full	boot: the kernel has BTF and the binaries run
doctor_verdict		small,full	doctor: tracing can work here, exit 0
attach_auto		small,full	run: --attach auto takes fentry where it attaches (x86_64; arm64 from 6.4), else the tracepoints
run_forktree		small,full	run: forktree counts per process equal its own, exit statuses 0
run_forktree_other	full		run --attach (the mode auto did not take): forktree counts exact
run_tzloop		full		run: tzloop processes, tz stats and CPU clock syscalls exact
run_exit_status		full		run: PROG exit N is N, death by SIGSEGV is 139
run_compare		full		run --compare: tz counts exact, syscall probes off and on again, CPU time at exit
run_compare_other	full		run --compare --attach (the other mode): probes off and on again, exact
unrelated_cost		full		an untraced getppid loop: no program of ours runs for it in fentry mode, one per call on the tracepoints (times in VMINFO)
tz_env			small,full	run: a TZ=:file first, last, and past the 20 KiB environment copy, exact
libc_localtime		small,full	run --libc: localtime, tzset, clock_gettime calls exact per process
stacks_unwound		small,full	run --stacks: the stack copies load, unwind to do_work and main, weights sum to the exact clock counts
lang_loads		small,full	run --lang --lang-depth 16 --stacks: the script frame and chain walks pass the verifier of this kernel, counts exact
attach_pid		full		attach -p: a running workload and the child it forks, exact
cgroup_targets		small,full	run and top --cgroup: a service made after start, exact; top loads
vdso_sampled		small,full	run --vdso: the perf_event sampler loads and samples each process, nothing lost
vdso_fallback		small,full	run and doctor: on hpet every vDSO read enters the kernel, exact per process, priced by vdso-fallback; none where the vDSO serves
doctor_agrees		small,full	doctor: its verdict agrees with what run did
leftovers		small,full	no BPF program, map or link is left after clocktrace exits
kernel_log		small,full	the kernel logged no warning, bug, lockup or stall
'

list_tests()
{
	echo "$TESTS" | while read -r name subsets desc; do
		[ -n "$name" ] || continue
		case ",$subsets," in
		*",$1,"*) echo "$name $desc" ;;
		esac
	done
}

diag()
{
	echo "$*" | sed 's/^/VMTAP # /'
}

# Fails the current test with a reason (and a command's output, if named).
fail()
{
	diag "$1"
	[ -n "${2:-}" ] && [ -s "$2" ] && tail -n 15 "$2" | sed 's/^/VMTAP #   /'
	return 1
}

# Sum of WORKLOAD field NAME over the lines in FILE.
wl_sum()
{
	grep '^WORKLOAD ' "$1" | sed -n "s/.* $2=\([0-9-]*\).*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

# The clock_gettime syscalls each workload process adds to its own count:
# its two CLOCK_MONOTONIC readings (vdso_clock_gettime=2) enter the kernel
# when the clocksource has no vDSO mode.
vdso_fallback_per_process()
{
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
	case $cs in
	tsc | arch_sys_counter | kvm-clock) echo 0 ;;
	hpet | acpi_pm | jiffies | refined-jiffies) echo 2 ;;
	*) echo "unknown clocksource $cs" >&2; echo x ;;
	esac
}

# The boot path holds without a clocktrace binary too (a guest of an
# architecture not built yet): then every other test goes unreported.
t_boot_kernel()
{
	[ -r /sys/kernel/btf/vmlinux ] || fail "no /sys/kernel/btf/vmlinux" || return 1
	machine=$(uname -m)
	[ "$machine" = "$ARCH" ] || [ "$machine/$ARCH" = aarch64/arm64 ] ||
		fail "uname -m is $machine in the $ARCH guest" || return 1
	[ -x "$CT" ] || return 0
	"$CT" --version > "$W/version" 2>&1 || fail "clocktrace --version failed" \
		"$W/version" || return 1
	"$TOOLS/forktree" -D 0 -k 0 2> "$W/boot.err" ||
		fail "forktree does not run" "$W/boot.err"
}

t_doctor_verdict()
{
	"$CT" doctor > "$W/doctor" 2>&1
	echo $? > "$W/doctor.status"
	"$CT" doctor --json 2>/dev/null | jq -c . | sed 's/^/VMINFO doctor /'
	grep -q '^tracing can work here$' "$W/doctor" && [ "$(cat "$W/doctor.status")" = 0 ] ||
		fail "doctor exited $(cat "$W/doctor.status")" "$W/doctor"
}

# Per process: "pid stat open clock_gettime" from the workload and the report.
forktree_counts()
{
	extra=$1
	sed -n 's/^WORKLOAD pid=\([0-9]*\) .*tz_stat=\([0-9]*\) tz_open=\([0-9]*\) clock_syscalls=\([0-9]*\).*/\1 \2 \3 \4/p' \
		"$W/ft.err" | while read -r pid st op clk; do
		echo "$pid $st $op $((clk + extra))"
	done | sort > "$W/ft.want"
	jq -r '.processes[] | "\(.pid) \(.tz.paths["/etc/localtime"].stat // 0) \(.tz.paths["/etc/localtime"].open // 0) \(.clock.clock_gettime.count // 0)"' \
		"$W/ft.json" | sort > "$W/ft.got"
}

t_run_forktree()
{
	extra=$(vdso_fallback_per_process)
	"$CT" run $ATTACH_OPT --json -o "$W/ft.json" -- "$TOOLS/forktree" -D 2 -W 2 -k 3 \
		-o 2 -s CLOCK_PROCESS_CPUTIME_ID:5 2> "$W/ft.err"
	st=$?
	echo $st > "$W/run.status"
	[ $st -eq 0 ] || fail "run exited $st" "$W/ft.err" || return 1
	[ "$(grep -c '^WORKLOAD ' "$W/ft.err")" -eq 7 ] ||
		fail "forktree did not report 7 processes" "$W/ft.err" || return 1
	[ "$(jq '.processes | length' "$W/ft.json")" -eq 7 ] ||
		fail "report has $(jq '.processes | length' "$W/ft.json") processes, not 7" ||
		return 1
	forktree_counts "$extra"
	cmp -s "$W/ft.want" "$W/ft.got" ||
		{ diff "$W/ft.want" "$W/ft.got" > "$W/ft.diff"; fail \
		"per-process pid/stat/open/clock_gettime differ (-want +got):" "$W/ft.diff"; } ||
		return 1
	[ "$(jq '[.processes[].clock_ids.CLOCK_PROCESS_CPUTIME_ID] | add' "$W/ft.json")" -eq 35 ] ||
		fail "CLOCK_PROCESS_CPUTIME_ID not 35" || return 1
	[ "$(jq '[.processes[].exit_status] | unique | tostring' -r "$W/ft.json")" = "[0]" ] ||
		fail "exit statuses are not all 0" || return 1
	[ "$(jq '.lost_events' "$W/ft.json")" -eq 0 ] || fail "lost events"
}

# The kernel side looks at the environment in one copy of its first 20 KiB
# and its envp, and walks the rest one entry at a time: both must find TZ.
t_tz_env()
{
	cp /etc/localtime "$W/zone" || fail "no /etc/localtime" || return 1
	pad=$(head -c 1000 /dev/zero | tr '\0' x)
	big=
	for i in $(seq 30); do big="$big B$i=$pad"; done
	for where in first last past; do
		case $where in
		first) set -- "TZ=:$W/zone" A=1 ;;
		last) set -- A=1 "TZ=:$W/zone" ;;
		past) set -- $big "TZ=:$W/zone" ;;
		esac
		"$CT" run --json -o "$W/env.json" -- env -i "$@" "$TOOLS/forktree" \
			-D 0 -k 3 -P "$W/zone" 2> "$W/env.err" ||
			fail "run exited $? (TZ $where)" "$W/env.err" || return 1
		got=$(jq "[.processes[].tz.paths[\"$W/zone\"].stat // 0] | add" "$W/env.json")
		[ "$got" = 3 ] || fail "TZ $where: $got stats, want 3" "$W/env.json" ||
			return 1
		[ "$(jq '.losses.tz_paths_unwatched' "$W/env.json")" = 0 ] ||
			fail "TZ $where: tz_paths_unwatched" "$W/env.json" || return 1
	done
}

# glibc (the same build as on the host, where tests/run.bats proves it
# against strace) opens /etc/localtime in the parent's first tzset() and
# stats it in every later tzset() and localtime() with TZ unset.
t_run_tzloop()
{
	extra=$(vdso_fallback_per_process)
	env -u TZ "$CT" run $ATTACH_OPT --json -o "$W/tz.json" -- "$TOOLS/tzloop" -n 300 \
		-c 2 -s CLOCK_THREAD_CPUTIME_ID:7 > /dev/null 2> "$W/tz.err" ||
		fail "run failed" "$W/tz.err" || return 1
	procs=$(grep -c '^WORKLOAD ' "$W/tz.err")
	[ "$procs" -eq 3 ] && [ "$(jq '.processes | length' "$W/tz.json")" -eq 3 ] ||
		fail "not 3 processes" "$W/tz.err" || return 1
	calls=$(($(wl_sum "$W/tz.err" tzset_calls) + $(wl_sum "$W/tz.err" localtime_calls)))
	got_stat=$(jq '[.processes[].tz.paths["/etc/localtime"].stat] | add' "$W/tz.json")
	[ "$got_stat" -eq $((calls - 1)) ] ||
		fail "tz stats: $got_stat, the workload made $calls calls, one an open" ||
		return 1
	[ "$(jq '[.processes[].tz.paths["/etc/localtime"].open // 0] | add' "$W/tz.json")" -eq 1 ] ||
		fail "tz opens are not 1" || return 1
	want_clk=$(($(wl_sum "$W/tz.err" clock_syscalls) + procs * extra))
	got_clk=$(jq '[.processes[].clock.clock_gettime.count] | add' "$W/tz.json")
	[ "$got_clk" -eq "$want_clk" ] ||
		fail "clock_gettime: $got_clk, want $want_clk" || return 1
	[ "$(jq '[.processes[].clock_ids.CLOCK_THREAD_CPUTIME_ID] | add' "$W/tz.json")" -eq 21 ] ||
		fail "CLOCK_THREAD_CPUTIME_ID not 21"
}

# What --attach auto must take here: fentry where the kernel can attach
# it to a kernel function (x86_64; arm64 needs ftrace direct calls, 6.4).
expected_auto()
{
	v=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
	if [ "$ARCH" = x86_64 ] || [ "$v" -ge 604 ]; then
		echo fentry
	else
		echo tracepoint
	fi
}

# The mode auto does not take, for the *_other tests.
other_mode()
{
	[ "$(expected_auto)" = fentry ] && echo tracepoint || echo fentry
}

t_attach_auto()
{
	want=$(expected_auto)
	"$CT" run --json -o "$W/auto.json" -- "$TOOLS/forktree" -D 0 -k 1 \
		2> "$W/auto.err" || fail "run failed" "$W/auto.err" || return 1
	got=$(jq -r '.kernel.attach' "$W/auto.json")
	echo "VMINFO attach $got"
	[ "$got" = "$want" ] || fail "auto took $got, want $want" || return 1
	"$CT" doctor > "$W/auto.doctor" 2>&1
	grep -q "^ok    attach: $want " "$W/auto.doctor" ||
		fail "doctor does not say attach: $want" "$W/auto.doctor" || return 1
	[ "$want" = fentry ] && return 0
	# Asked for where the kernel refuses it: one line, 125, PROG not run.
	"$CT" run --attach fentry -- "$TOOLS/forktree" -D 0 -k 1 > "$W/fe.out" 2>&1
	st=$?
	[ $st -eq 125 ] && [ "$(wc -l < "$W/fe.out")" -eq 1 ] &&
		grep -q '^clocktrace: --attach fentry: this kernel refuses it' "$W/fe.out" ||
		fail "--attach fentry exited $st" "$W/fe.out"
}

# Runs test FUNC with --attach set to the mode auto does not take, where
# the kernel has it (else the test proves that asking for it fails).
with_other_mode()
{
	mode=$(other_mode)
	ATTACH_OPT="--attach $mode"
	echo "VMINFO other_mode $1 $mode"
	"$1"
	st=$?
	ATTACH_OPT=
	return $st
}

t_run_forktree_other()
{
	with_other_mode t_run_forktree
}

t_run_compare_other()
{
	with_other_mode t_run_compare
}

# The tracepoints: fentry's many trampolines take seconds to attach and
# detach under TCG, and the exit status does not depend on them.
t_run_exit_status()
{
	"$CT" run --attach tracepoint --json -o "$W/ex.json" -- "$TOOLS/misbehave" exit 7 2> "$W/ex.err"
	st=$?
	[ $st -eq 7 ] || fail "run of exit 7 returned $st" "$W/ex.err" || return 1
	[ "$(jq '.exit.code' "$W/ex.json")" -eq 7 ] || fail "exit.code not 7" || return 1
	"$CT" run --attach tracepoint --json -o "$W/sg.json" -- "$TOOLS/misbehave" segv 2> "$W/sg.err"
	st=$?
	[ $st -eq 139 ] || fail "run of segv returned $st" "$W/sg.err" || return 1
	[ "$(jq '.exit.signal' "$W/sg.json")" -eq 11 ] || fail "exit.signal not 11"
}

# run --compare detaches and re-attaches the syscall probes between runs
# and reads each process's CPU time at exit (sum_exec_runtime, CO-RE).
t_run_compare()
{
	env -u TZ "$CT" run $ATTACH_OPT --compare --repeat 1 --json -o "$W/cmp.json" -- \
		"$TOOLS/tzloop" -q -n 300 -c 1 > /dev/null 2> "$W/cmp.err" ||
		fail "run --compare failed" "$W/cmp.err" || return 1
	# tzset once, then tzset + localtime 300 times, in 2 processes.
	[ "$(jq '.compare.before.tz_accesses' "$W/cmp.json")" -eq 1201 ] ||
		fail "tz accesses before the fix not 1201" "$W/cmp.err" || return 1
	[ "$(jq '.compare.after.tz_accesses' "$W/cmp.json")" -le 2 ] ||
		fail "tz accesses after the fix above 2" || return 1
	[ "$(jq '[.compare.runs[] | select(.cpu_ns > 0)] | length' "$W/cmp.json")" -eq 4 ] ||
		fail "a run without CPU time" || return 1
	jq -c '.compare.runs[] | {cpu_ns, rusage_cpu_ns}' "$W/cmp.json" \
		> "$W/cmp.cpu" 2>&1
	jq -e '[.compare.runs[] | (.cpu_ns - .rusage_cpu_ns | fabs) <
		(.rusage_cpu_ns * 0.2 + 20000000)] | all' "$W/cmp.json" > /dev/null ||
		fail "CPU time at exit disagrees with wait4's" "$W/cmp.cpu" ||
		return 1
	# The probes came back: a plain run after it counts again.
	"$CT" run $ATTACH_OPT --json -o "$W/cmp2.json" -- "$TOOLS/tzloop" -q -n 10 -c 0 \
		> /dev/null 2>&1 &&
	[ "$(jq '[.processes[].tz.accesses] | add' "$W/cmp2.json")" -ge 20 ] ||
		fail "a run after --compare counts nothing"
}

# libc field F of function FN for process PID in the report.
libc_count()
{
	jq --argjson p "$1" ".processes[] | select(.pid == \$p) | .libc.$2.$3 // 0" \
		"$W/lc.json"
}

t_libc_localtime()
{
	env -u TZ "$CT" run --libc --json -o "$W/lc.json" -- "$TOOLS/tzloop" \
		-m localtime -n 100 -c 2 > /dev/null 2> "$W/lc.err" ||
		fail "run --libc failed" "$W/lc.err" || return 1
	[ "$(grep -c '^WORKLOAD ' "$W/lc.err")" -eq 3 ] ||
		fail "tzloop did not report 3 processes" "$W/lc.err" || return 1
	sed -n 's/^WORKLOAD pid=\([0-9]*\) .* tzset_calls=\([0-9]*\) .* localtime_calls=\([0-9]*\) .* vdso_clock_gettime=\([0-9]*\).*/\1 \2 \3 \4/p' \
		"$W/lc.err" > "$W/lc.want"
	while read -r pid tzset localtime cg; do
		got="$(libc_count "$pid" tzset count) $(libc_count "$pid" localtime count)"
		got="$got $(libc_count "$pid" localtime kernel.tz_accesses)"
		got="$got $(libc_count "$pid" clock_gettime count)"
		[ "$got" = "$tzset $localtime $localtime $cg" ] || {
			fail "pid $pid: tzset, localtime, its tz accesses, clock_gettime: got $got, want $tzset $localtime $localtime $cg"
			return 1
		}
	done < "$W/lc.want"
}

t_stacks_unwound()
{
	# Workers of an idle parent: its maps unwind them even once they are
	# gone.  2000 calls each: the whole run must outlast the tracer's
	# first look at the maps (stacks.h), slow as it is under TCG.
	"$CT" run --stacks --json -o "$W/st.json" -- "$TOOLS/tzloop" -m none \
		-n 1 -c 2 -p -s CLOCK_PROCESS_CPUTIME_ID:2000 > /dev/null \
		2> "$W/st.err" || fail "run --stacks failed" "$W/st.err" || return 1
	# hpet here: the vDSO's reads are syscalls too, counted exactly.
	want=$(jq '[.processes[].clock[].count] | add' "$W/st.json")
	got=$(jq '[.stacks[].clock_syscalls] | add' "$W/st.json")
	[ "$got" = "$want" ] ||
		fail "stack weights $got, clock syscalls $want" "$W/st.err" || return 1
	top=$(jq -r '.stacks[0].frames | map(.function // "?") | join("<")' \
		"$W/st.json")
	# Inlined calls are frames too (spawn_child at -O2, between them).
	case "$top" in
	*"<do_work<"*"main") ;;
	*)	diag "losses: $(jq -c '.losses | with_entries(select(.value > 0))' "$W/st.json")"
		diag "rows: $(jq -c '[.stacks[] | [.event, .clock_syscalls, .processes, (.frames | length)]]' "$W/st.json")"
		fail "the top stack does not reach do_work and main: $top"; return 1 ;;
	esac
}

t_lang_loads()
{
	# No interpreter here: what is tested is that the object loads with
	# the walks live (without --lang they are dead code to the verifier),
	# at the default depth and the deepest.
	for depth in 8 16; do
		"$CT" run -v --lang --lang-depth $depth --stacks --json \
			-o "$W/lang.json" -- "$TOOLS/tzloop" -m none -n 1 -c 0 \
			-s CLOCK_PROCESS_CPUTIME_ID:10 > /dev/null 2> "$W/lang.err" ||
			{ grep -v '^WORKLOAD' "$W/lang.err" | grep -iE 'processed|too|invalid|limit|R[0-9]|back-edge|loop' | tail -n 8 > "$W/lang.why"
			  fail "run --lang --lang-depth $depth did not load or run" "$W/lang.why"; return 1; }
		# (On hpet the C library's own vDSO reads are syscalls too.)
		got=$(jq '[.processes[].clock_ids.CLOCK_PROCESS_CPUTIME_ID // 0] | add' "$W/lang.json")
		[ "$got" = 10 ] ||
			fail "depth $depth: CPU-time clock syscalls $got, want 10" "$W/lang.err" || return 1
	done
}

# Waits (up to 60 s: TCG) until the attach of pid $1 printed its first
# interval report: by then its targets are in the filter.  The reports go
# to stderr as they come (-o would rename the whole file in at the end).
wait_for_first_report()
{
	i=0
	while [ $i -lt 600 ] && kill -0 "$1" 2>/dev/null; do
		[ -s "$W/at.json" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

t_attach_pid()
{
	"$TOOLS/misbehave" waitsig -k 40 > "$W/ready" 2> "$W/at.wl" &
	wl=$!
	i=0
	while ! grep -q ready "$W/ready" && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$CT" attach -p "$wl" -i 0.5 --json 2> "$W/at.json" &
	ct=$!
	wait_for_first_report "$ct" || {
		kill "$ct" "$wl" 2>/dev/null
		fail "attach did not attach" "$W/at.json"
		return 1
	}
	kill -USR1 "$wl"
	wait "$ct" || fail "attach failed" "$W/at.json" || return 1
	wait "$wl"
	# One report per interval, then the totals.
	jq -s '.[-1]' "$W/at.json" > "$W/at.total" ||
		fail "the reports are not JSON" "$W/at.json" || return 1
	[ "$(jq '.processes | length' "$W/at.total")" -eq 2 ] ||
		fail "not 2 processes" "$W/at.total" || return 1
	while read -r _ pid ppid _ st _; do
		pid=${pid#pid=} ppid=${ppid#ppid=} st=${st#tz_stat=}
		got=$(jq -r --argjson p "$pid" '.processes[] | select(.pid == $p) |
			"\(.ppid) \(.tz.paths["/etc/localtime"].stat)"' "$W/at.total")
		[ "$got" = "$ppid $st" ] ||
			{ fail "pid $pid: ppid and stats $got, want $ppid $st"; return 1; }
	done < "$W/at.wl"
	[ "$(wl_sum "$W/at.wl" tz_stat)" -eq 200 ] || fail "workload made $(wl_sum "$W/at.wl" tz_stat), not 200"
}

# The kernel's cgroup walk (bpf/targets.bpf.h in_target_cgroup) is
# pruned unless --cgroup is given: its verifier pass is proved here.  A
# "service" started outside PROG's tree, in a cgroup made after start.
t_cgroup_targets()
{
	cg=/sys/fs/cgroup
	grep -q "^cgroup2 $cg " /proc/mounts || mount -t cgroup2 none $cg ||
		fail "cannot mount cgroup2" || return 1
	mkdir -p $cg/vmt
	(
		while [ ! -e "$W/cg.go" ]; do sleep 0.1; done
		mkdir $cg/vmt/svc
		sh -c "echo \$\$ > $cg/vmt/svc/cgroup.procs && exec $TOOLS/forktree -D 1 -W 2 -k 3" 2> "$W/cg.wl"
		"$TOOLS/forktree" -D 1 -W 2 -k 3 2> /dev/null
		touch "$W/cg.done"
	) &
	"$CT" run --cgroup /vmt/svc --json -o "$W/cg.json" -- sh -c \
		"touch $W/cg.go; while [ ! -e $W/cg.done ]; do sleep 0.1; done" 2> "$W/cg.err" ||
		fail "run --cgroup failed" "$W/cg.err" || return 1
	wait
	got=$(jq '[.processes[] | select(.comm == "forktree") | .tz.paths["/etc/localtime"].stat] | add' "$W/cg.json")
	[ "$got" = "$(wl_sum "$W/cg.wl" tz_stat)" ] && [ "$got" = 9 ] ||
		fail "forktree in the cgroup: $got stats, want 9" "$W/cg.json" || return 1
	"$CT" top --cgroup /vmt -d 0.5 -o /dev/null 2> "$W/cgtop.err" ||
		fail "top --cgroup failed" "$W/cgtop.err" || return 1
	rmdir $cg/vmt/svc $cg/vmt
}

# The least wall ns per getppid of an untraced sysloop, over its slices.
# Not its CPU time: without a stable TSC the guest counts that in jiffies.
getppid_ns()
{
	"$TOOLS/sysloop" getppid 20000 10 > "$W/uc.loop" 2>&1 &&
		[ "$(grep -c ' wall_ns=[1-9]' "$W/uc.loop")" -eq 10 ] ||
		{ cat "$W/uc.loop" >&2; return 1; }
	sed -n 's/.* calls=\([0-9]*\) .* wall_ns=\([0-9]*\) .*/\1 \2/p' "$W/uc.loop" |
		awk '{ v = $2 / $1 } NR == 1 || v < m { m = v } END { printf "%.1f\n", m }'
}

# The runs of clocktrace's syscall programs so far (bpf_stats), all of
# them: the tracepoints' and fentry's.
syscall_prog_runs()
{
	bpfobjs runs | awk '$3 ~ /^(sys_enter|sys_exit|fentry_|fexit)/ { s += $4 }
		END { printf "%d\n", s }'
}

# getppid_ns while clocktrace in MODE (none: no tracer) traces another
# process: sysloop itself is never traced.  Two loops per session; how
# often our syscall programs ran meanwhile goes to $W/uc.runs.MODE.
cost_with()
{
	[ "$1" = none ] && { getppid_ns; getppid_ns; return; }
	: > "$W/uc.json"
	"$CT" attach --attach "$1" -p "$UC_TARGET" -i 0.3 --json \
		> /dev/null 2> "$W/uc.json" &
	ct=$!
	i=0
	while [ $i -lt 600 ] && kill -0 $ct 2>/dev/null && [ ! -s "$W/uc.json" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$W/uc.json" ] || { echo "attach --attach $1 did not attach" >&2; return 1; }
	# What attaching left for the kernel to finish (trampoline images
	# freed after RCU grace periods, text patching) is not the mode's cost.
	sleep 2
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	before=$(syscall_prog_runs)
	ns=$(getppid_ns; getppid_ns)
	echo $(($(syscall_prog_runs) - before)) > "$W/uc.runs.$1"
	echo 0 > /proc/sys/kernel/bpf_stats_enabled
	kill -INT $ct
	wait $ct || { echo "attach --attach $1 failed" >&2; return 1; }
	jq -se '.[-1].kernel.attach == "'"$1"'"' "$W/uc.json" > /dev/null ||
		{ echo "the report does not say attach $1" >&2; return 1; }
	echo "$ns"
}

# What each attach mode adds to a syscall clocktrace does not count, in a
# process it does not trace: the raw tracepoints slow every syscall of the
# machine, fentry only the counted ones.  Each mode attaches once (fentry
# takes seconds to attach under TCG) for two loops of 10 slices each, with
# no tracer between them, the least slice kept: other guests and the
# host's load only add time.
# Under TCG every instruction is emulated: ratios, not nanoseconds, carry.
# Also what a run of /bin/true takes in each mode (attach and detach).
t_unrelated_cost()
{
	for m in tracepoint fentry; do
		start=$(uptime_cs)
		"$CT" run --attach $m -o /dev/null -- true ||
			fail "run --attach $m failed" || return 1
		echo "VMINFO run_true_ms $m $(( ($(uptime_cs) - start) * 10 ))"
	done
	sleep 1000 &
	UC_TARGET=$!
	for m in none tracepoint fentry; do
		: > "$W/uc.$m"
	done
	for m in none tracepoint none fentry none; do
		cost_with $m >> "$W/uc.$m" || { kill $UC_TARGET; fail "$m"; return 1; }
		grep -qvx '[0-9]*\.[0-9]' "$W/uc.$m" &&
			{ kill $UC_TARGET; fail "$m: not times" "$W/uc.$m"; return 1; }
	done
	kill $UC_TARGET
	wait $UC_TARGET 2>/dev/null
	for m in none tracepoint fentry; do
		eval "ns_$m=$(sort -n "$W/uc.$m" | head -n 1)"
		echo "VMINFO unrelated_cost_rounds $m $(tr '\n' ' ' < "$W/uc.$m")"
	done
	echo "$ns_none $ns_tracepoint $ns_fentry" | awk '{
		printf "VMINFO unrelated_cost getppid bare_ns=%s tracepoint_ns=%s fentry_ns=%s tracepoint_added_pct=%.1f fentry_added_pct=%.1f (TCG: emulated ns)\n",
			$1, $2, $3, ($2 / $1 - 1) * 100, ($3 / $1 - 1) * 100 }'
	tp_runs=$(cat "$W/uc.runs.tracepoint") fe_runs=$(cat "$W/uc.runs.fentry")
	echo "VMINFO unrelated_runs getppid_calls=400000 tracepoint=$tp_runs fentry=$fe_runs"
	# The times swing with the host's load (other guests share its CPUs);
	# what each mode makes an unrelated syscall run does not: on the
	# tracepoints, our program for every one of the 400,000 getppids; on
	# fentry, none (what runs is for sysloop's own clock reads, a few per
	# slice, and other processes' counted syscalls).
	[ "$tp_runs" -ge 400000 ] ||
		fail "tracepoint mode ran its programs $tp_runs times for 400,000 getppids" ||
		return 1
	[ "$fe_runs" -lt 4000 ] ||
		fail "fentry mode ran its programs $fe_runs times during 400,000 getppids"
}

# Where the clocksource has a vDSO mode the reads are sampled inside it;
# the estimate's accuracy is make bench's (tests/perf), not TCG's.
t_vdso_sampled()
{
	"$CT" run --vdso --json -o "$W/vd.json" -- "$TOOLS/vdsoloop" \
		-n 1000000 -c 1 > "$W/vd.wl" 2> "$W/vd.err" ||
		fail "run --vdso failed" "$W/vd.err" || return 1
	[ "$(grep -c '^WORKLOAD ' "$W/vd.wl")" -eq 2 ] ||
		fail "vdsoloop did not report 2 processes" "$W/vd.wl" || return 1
	n=$(jq '[.processes[] | select(.vdso.total_samples > 0)] | length' "$W/vd.json")
	[ "$n" -eq 2 ] || fail "$n of 2 processes sampled" "$W/vd.err" || return 1
	lost=$(jq '.losses.vdso_map_full' "$W/vd.json")
	[ "$lost" -eq 0 ] || fail "vdso_map_full $lost" || return 1
	[ "$(vdso_fallback_per_process)" = 0 ] || return 0
	s=$(jq '[.processes[].vdso.by_function.clock_gettime.samples // 0] | add' "$W/vd.json")
	[ "$s" -gt 0 ] || fail "no sample in the vDSO's clock_gettime" "$W/vd.err"
}

# hpet has no vDSO mode: each of vdsoloop's clock_gettime(CLOCK_MONOTONIC)
# is a syscall, counted exactly per process and priced by vdso-fallback;
# its time() calls never fall back.  A guest whose clocksource has a vDSO
# mode (arm64's arch_sys_counter) must get none of it.
t_vdso_fallback()
{
	"$CT" run --json -o "$W/vf.json" -- "$TOOLS/vdsoloop" -n 2000 -t 100 \
		-c 1 > "$W/vf.wl" 2> "$W/vf.err" ||
		fail "run failed" "$W/vf.err" || return 1
	[ "$(grep -c '^WORKLOAD ' "$W/vf.wl")" -eq 2 ] ||
		fail "vdsoloop did not report 2 processes" "$W/vf.wl" || return 1
	"$CT" doctor > "$W/vf.doctor" 2>&1
	n=$(jq '[.findings[] | select(.id == "vdso-fallback")] | length' "$W/vf.json")
	if [ "$(vdso_fallback_per_process)" = 0 ]; then
		[ "$n" -eq 0 ] || fail "vdso-fallback where the vDSO serves" \
			"$W/vf.json" || return 1
		grep -q '^ok    clocksource: .*the vDSO serves the clocks' "$W/vf.doctor" ||
			fail "doctor does not say the vDSO serves" "$W/vf.doctor"
		return
	fi
	while read -r _ pid _ _ cg _; do
		pid=${pid#pid=} cg=${cg#vdso_clock_gettime=}
		got=$(jq --argjson p "$pid" '.processes[] | select(.pid == $p) |
			.clock_ids.CLOCK_MONOTONIC // 0' "$W/vf.json")
		[ "$got" = "$cg" ] && [ "$cg" = 2000 ] ||
			{ fail "pid $pid: $got CLOCK_MONOTONIC syscalls, made $cg"; return 1; }
		jq -e --argjson p "$pid" '.findings[] | select(.id == "vdso-fallback") |
			.pids | index($p)' "$W/vf.json" > /dev/null ||
			{ fail "pid $pid not in vdso-fallback" "$W/vf.json"; return 1; }
		grep -q "pid $pid (vdsoloop) 2,000 reads" "$W/vf.json" ||
			{ fail "pid $pid not priced" "$W/vf.json"; return 1; }
	done < "$W/vf.wl"
	jq -c '.findings[] | select(.id == "vdso-fallback") | .cost' "$W/vf.json" |
		sed 's/^/VMINFO vdso_fallback_cost /'
	jq -e '.findings[] | select(.id == "vdso-fallback") | .cost.saving_ns > 0' \
		"$W/vf.json" > /dev/null || fail "no saving priced" "$W/vf.json" ||
		return 1
	grep -q '^warn  clocksource: .* has no vDSO mode: .* saves at least' "$W/vf.doctor" ||
		fail "doctor does not price a switch" "$W/vf.doctor"
}

t_doctor_agrees()
{
	[ -s "$W/doctor.status" ] && [ -s "$W/run.status" ] ||
		fail "doctor or run did not run" || return 1
	doctor=$(cat "$W/doctor.status") run=$(cat "$W/run.status")
	# doctor 0 (can trace) must mean run works; 1 must mean it does not.
	[ "$doctor" -eq 0 ] && [ "$run" -eq 0 ] && return 0
	[ "$doctor" -eq 1 ] && [ "$run" -eq 125 ] && return 0
	fail "doctor exited $doctor but run exited $run"
}

t_leftovers()
{
	# Every clocktrace above was waited for; its objects go with its fds.
	i=0
	while [ $i -lt 50 ]; do
		bpfobjs > "$W/after" 2>&1
		cmp -s "$W/baseline" "$W/after" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	diff "$W/baseline" "$W/after" > "$W/left.diff"
	fail "BPF objects differ from before the tests (-before +after):" "$W/left.diff"
}

# What a kernel says when BPF code hurts it: a WARN (5.10 warns at load
# of a tracing program with run-time allocated maps), an oops, a lockup.
t_kernel_log()
{
	dmesg > "$W/dmesg" 2>&1 || fail "no dmesg" "$W/dmesg" || return 1
	grep -n -E 'WARNING:|BUG:|soft lockup|hard LOCKUP|rcu.*stall|hung_task|Call Trace|Oops' \
		"$W/dmesg" > "$W/dmesg.bad"
	[ -s "$W/dmesg.bad" ] || return 0
	fail "the kernel logged:" "$W/dmesg.bad"
	# The first report whole, with its backtrace, for the host's log.
	diag "from the first of them:"
	awk -v at="$(head -n 1 "$W/dmesg.bad" | cut -d: -f1)" \
		'NR >= at && NR < at + 40' "$W/dmesg" | sed 's/^/VMTAP #   /'
	return 1
}

# Time since boot in hundredths of a second (busybox date has no %N).
uptime_cs()
{
	awk '{ printf "%d\n", $1 * 100 }' /proc/uptime
}

info()
{
	echo "VMINFO release $(uname -r)"
	echo "VMINFO machine $(uname -m)"
	echo "VMINFO clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
}

run_tests()
{
	mkdir -p "$W"
	info
	# What the kernel holds before any clocktrace runs (bpffs iterators, ...).
	bpfobjs > "$W/baseline" 2>&1
	list_tests "$1" | while read -r name desc; do
		start=$(uptime_cs)
		if "t_$name" > "$W/$name.out" 2>&1; then
			echo "VMTAP ok $name"
			grep '^VMINFO ' "$W/$name.out"
		else
			echo "VMTAP not ok $name"
			grep -E '^VM(TAP|INFO) ' "$W/$name.out"
			# What a command printed that no check quoted.
			grep -vE '^VM(TAP|INFO) ' "$W/$name.out" | tail -n 10 |
				sed 's/^/VMTAP #   /'
		fi
		echo "VMINFO seconds $name $(( ($(uptime_cs) - start) / 100 ))"
	done
	echo "VMTAP done"
}

ARCH=${3:-x86_64}
case ${1:-} in
list) list_tests "${2:-full}" ;;
run) run_tests "${2:-full}" ;;
*) echo "usage: $0 list|run SUBSET" >&2; exit 2 ;;
esac
