# Shared by the bats files.  Tests run as root against the real binary.
# A mid-test "! cmd" is no assertion (errexit ignores it; make lint says
# so): "run -1 grep ..." asserts no match and that grep read its file.
bats_require_minimum_version 1.5.0
# The tree this file is in (tests/perf/*.bats load it as ../helpers).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT="$ROOT/clocktrace"
CT=${CLOCKTRACE_BIN:-$CT}
TOOLS="$ROOT/tools"

# Sum of field NAME over the WORKLOAD lines in FILE (the workloads' own counts).
workload_sum() {
	grep -o "^WORKLOAD .*" "$1" | grep -o " $2=[0-9-]*" | cut -d= -f2 |
		awk '{s += $1} END {print s + 0}'
}

# The names the kernel gives our programs: every program of the BPF object
# (a function in a section of its own, not a .text subprogram), cut to the
# 15 bytes of BPF_OBJ_NAME_LEN.
our_prog_names() {
	llvm-objdump --syms "$ROOT/build/clocktrace.bpf.o" |
		awk '$3 == "F" && $4 != ".text" { print substr($6, 1, 15) }' |
		sort -u
}

# Of the ids on stdin, those no live process holds through an fd of KIND
# ("prog_id" or "link_id" in /proc/PID/fdinfo).
unheld() {
	comm -23 <(sed '/^$/d' | sort -u) <(cat /proc/[0-9]*/fdinfo/* 2>/dev/null |
		awk -v k="$1:" '$1 == k {print $2}' | sort -u)
}

# How many ids that LIST (a command printing ids) names stay unheld over
# a second: an object whose holder just exited is freed after an RCU grace
# period, so only what is unheld at every look counts.  Objects of other
# tracers running meanwhile (tests of another suite) are held or come and
# go; a leaked one stays.
unheld_for_a_while() {
	local kind=$1 left now
	shift
	left=$("$@" | unheld "$kind")
	for _ in 1 2 3 4 5; do
		[ -z "$left" ] && break
		sleep 0.2
		now=$("$@" | unheld "$kind")
		left=$(comm -12 <(echo "$left") <(echo "$now"))
	done
	echo "$left" | sed '/^$/d' | wc -l
}

# The ids of our programs in the kernel.
our_prog_ids() {
	local names
	names=$(our_prog_names | jq -R . | jq -sc .)
	bpftool prog show -j 2>/dev/null | jq -r --argjson n "$names" \
		'.[] | select(.name as $x | $n | any(. == $x)) | .id'
}

# Our BPF programs left in the kernel with no live process holding them
# (should be none after any run).
our_progs() {
	unheld_for_a_while prog_id our_prog_ids
}

link_ids_of_type() {
	bpftool link show -j 2>/dev/null |
		jq -r --arg t "$1" '.[] | select(.type == $t) | .id'
}

# Links of bpftool TYPE (e.g. uprobe_multi) in the kernel that no live
# process holds (should be none after any run).
unheld_links() {
	unheld_for_a_while link_id link_ids_of_type "$1"
}

# Waits until PID runs the image named COMM (a background job is first a
# copy of the shell, or env, until it execs).
wait_exec() {
	for _ in $(seq 200); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.01
	done
	return 1
}

# jq over the JSON report in FILE.
jqr() {
	jq -r "$2" "$1"
}

# forktree -D 2 -W 3 -k 7 -o 2 -s CLOCK_PROCESS_CPUTIME_ID:11: its own counts
# per process (in $T/err) against the report in $T/r.json.
forktree_exact() {
	[ "$(grep -c '^WORKLOAD' "$T/err")" -eq 13 ]
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 13 ]
	while read -r pid stat open clk; do
		got=$(jq -r --argjson p "$pid" '.processes[] | select(.pid == $p) |
			"\(.tz.paths["/etc/localtime"].stat) \(.tz.paths["/etc/localtime"].open) \(.clock.clock_gettime.count)"' "$T/r.json")
		[ "$got" = "$stat $open $clk" ]
	done < <(sed -n 's/^WORKLOAD pid=\([0-9]*\) .*tz_stat=\([0-9]*\) tz_open=\([0-9]*\) clock_syscalls=\([0-9]*\).*/\1 \2 \3 \4/p' "$T/err")
	[ "$(jqr "$T/r.json" '[.processes[].clock_ids.CLOCK_PROCESS_CPUTIME_ID] | add')" -eq 143 ]
	[ "$(jqr "$T/r.json" '.lost_events')" -eq 0 ]
}

# Runs so far of the BPF programs that process PID holds and whose names
# match the regex RE: bpf_runs_of PID RE.  The kernel counts them only
# while kernel.bpf_stats_enabled is 1 (see bpf_stats_on).
bpf_runs_of() {
	local id
	for id in $(awk '$1 == "prog_id:" {print $2}' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u); do
		bpftool -j prog show id "$id" 2>/dev/null |
			jq -r --arg re "$2" 'select(.name | test($re)) | .run_cnt // 0'
	done | awk '{s += $1} END {print s + 0}'
}

# Turns the kernel's BPF run counts on; the caller's teardown restores
# the value saved in BPF_STATS_WAS (bpf_stats_restore).
bpf_stats_on() {
	BPF_STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
}

bpf_stats_restore() {
	[ -z "${BPF_STATS_WAS:-}" ] ||
		sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS_WAS"
}

# run --stacks --json of the command into $tmp/out.json, its stderr in
# $tmp/err; the rows on stderr (shown when a test fails).
run_stacks() {
	env -u TZ "$CT" run --stacks --json -o "$tmp/out.json" -- "$@" \
		2>"$tmp/err" >/dev/null
	jq -c '.stacks[] | [.tz_accesses, .clock_syscalls, .processes,
		[.frames[] | "\(.function)@\(.module)+\(.offset)"]]' \
		"$tmp/out.json" >&2
	jq -c '.losses | with_entries(select(.value > 0))' "$tmp/out.json" >&2
}

# The link-time address of file offset $2 in ELF file $1 (PT_LOAD).
off_to_vaddr() {
	local off=$(($2)) type o v fs rest
	while read -r type o v _ fs rest; do
		[ "$type" = LOAD ] || continue
		if [ $off -ge $((o)) ] && [ $off -lt $((o + fs)) ]; then
			printf '0x%x\n' $((off - o + v))
			return
		fi
	done < <(readelf -lW "$1")
	return 1
}

build_id_of() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

# Sum of the samples of family $2 whose labels match $3 (python dict
# literal), parsed from file $1 with the Prometheus client's OpenMetrics
# parser ($4 = text: its Prometheus text format parser).
om_sum() {
	/usr/bin/python3 - "$@" <<'PY'
import ast, sys
if len(sys.argv) > 4 and sys.argv[4] == "text":
    from prometheus_client.parser import text_string_to_metric_families
else:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
want = ast.literal_eval(sys.argv[3])
n = 0
for f in text_string_to_metric_families(open(sys.argv[1]).read()):
    if f.name != sys.argv[2]:
        continue
    for s in f.samples:
        if s.name.endswith(("_created", "_bucket", "_sum")):
            continue
        if all(s.labels.get(k) == v for k, v in want.items()):
            n += s.value
print(int(n))
PY
}

# The cgroup v2 hierarchy: /sys/fs/cgroup, or /sys/fs/cgroup/unified on
# hybrid hosts.
cgroup2_mount() {
	awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts
}

# CPU ns per iteration of a spin workload's loop (tools/lang/spin.py and
# spin.rb say cpu_ns_per=), as the workload measured it.
spin_ns() {
	"$@" 2>&1 >/dev/null | grep -o 'cpu_ns_per=[0-9.]*' | cut -d= -f2
}
