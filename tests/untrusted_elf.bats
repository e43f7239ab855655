#!/usr/bin/env bats
# Files a traced program chooses (issue 23): hostile symbol tables and
# DWARF in the program's own executable, read when its --libc call sites
# are named.  Each file is a copy of tools/tzloop made by
# tools/hostile_elf.py in the test's directory; it runs as tzloop does and
# counts its own calls.  The caps that hold them are in
# user/libc/symbolize.c and user/libc/srcline.c (README, "Files the traced
# program chooses").  Runs as root with BPF; nothing here may skip.
load helpers

CALLS=1000
# Peak RSS of clocktrace and what it waited for, and the CPU of a run:
# the bounds of issue 23 (100 MB, 3 s) with room for a loaded machine.
RSS_MAX_KIB=$((85 * 1024))
CPU_MAX_S=3

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# hostile VARIANT [NAME]: $T/NAME (default VARIANT), tzloop made hostile.
hostile() {
	python3 "$TOOLS/hostile_elf.py" "$1" "$TOOLS/tzloop" "$T/${2:-$1}"
}

# measured ARGS...: runs the plain binary (a sanitizer's shadow memory is
# not ours) with ARGS, the workload's stderr in $T/err; "status peak_rss_kib
# cpu_ms" of the run, CPU of clocktrace and the workload together.
measured() {
	python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    st = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
                        stderr=err).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(st, u.ru_maxrss, int((u.ru_utime + u.ru_stime) * 1000))' \
		"$T/err" env -u TZ "$ROOT/clocktrace" "$@"
}

# hostile_run NAME [OPTIONS...]: run OPTIONS --libc --json on $T/NAME, then
# the checks every attack shares: exit 0, a report, counts exact, RSS.
hostile_run() {
	local prog=$1

	shift
	read -r st rss cpu < <(measured run "$@" --libc --json -o "$T/r.json" \
		-- "$T/$prog" -m localtime -n $CALLS -c 0)
	echo "status $st, peak RSS $rss KiB, CPU $cpu ms" >&2
	cat "$T/err" >&2
	[ "$st" -eq 0 ]
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 1 ]
	[ "$(workload_sum "$T/err" localtime_calls)" -eq $CALLS ]
	[ "$(jqr "$T/r.json" '.processes[0].libc.localtime.count')" -eq $CALLS ]
	[ "$(jqr "$T/r.json" '.processes[0].libc.localtime.kernel.tz_accesses')" -eq $CALLS ]
	[ "$(jqr "$T/r.json" '.lost_events')" -eq 0 ]
	[ "$rss" -lt $RSS_MAX_KIB ]
	CPU_MS=$cpu
}

# The function of the localtime call site, as named in $T/r.json.
localtime_caller() {
	jqr "$T/r.json" '.processes[0].callers[] |
		select(.function == "localtime") | .caller'
}

@test "untrusted ELF: a call site inside 60,000 nested lexical blocks: no crash, the line still named" {
	hostile deep-scopes
	hostile_run deep-scopes
	[[ "$(localtime_caller)" == do_work+0x* ]]
	# The line table is the file's own: the scopes above the cap are not.
	[[ "$(jqr "$T/r.json" '.processes[0].callers[] |
		select(.function == "localtime") | .source')" == /*/tzloop.c:* ]]
}

@test "untrusted ELF: one symbol table under 20 headers, 2,000 names of 32 KiB: RSS bounded, still named" {
	hostile many-symtabs
	hostile_run many-symtabs
	[[ "$(localtime_caller)" == do_work+0x* ]]
}

@test "untrusted ELF: sh_entsize 1 and names without an end: CPU under 3 s, still named" {
	hostile entsize-one
	hostile_run entsize-one
	[[ "$(localtime_caller)" == do_work+0x* ]]
	[ "$CPU_MS" -lt $((CPU_MAX_S * 1000)) ]
}

@test "untrusted ELF: the same file named python3-* under --lang: CPU under 3 s" {
	# Its OBJECT symbols are what --lang reads of a Python binary.
	hostile entsize-one python3-hostile
	hostile_run python3-hostile --lang
	[ "$CPU_MS" -lt $((CPU_MAX_S * 1000)) ]
}

@test "untrusted ELF: .debug_str a zlib bomb (256 MiB of zeros): refused, RSS bounded, still named" {
	hostile zlib-bomb
	hostile_run zlib-bomb
	[[ "$(localtime_caller)" == do_work+0x* ]]
	# No DWARF read from that file: no source line.
	[ "$(jqr "$T/r.json" '.processes[0].callers[] |
		select(.function == "localtime") | .source')" = null ]
}
