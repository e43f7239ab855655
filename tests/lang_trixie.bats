#!/usr/bin/env bats
# --lang on an interpreter this host's Debian 12 does not ship: Debian 13's
# python3.13 in a root file system of its own (tools/lang-root.sh, cached
# in build/), traced from the host.  Its path names no file here: the
# reader finds it through the process's root, by device and inode.

bats_require_minimum_version 1.5.0
load helpers

LANG_ROOT=$ROOT/build/lang-root-trixie

setup_file() {
	"$ROOT/tools/lang-root.sh" "$LANG_ROOT" python3.13-minimal
}

setup() {
	T=$(mktemp -d)
	install -m 0644 "$TOOLS/lang/fork.py" "$LANG_ROOT/tmp/fork.py"
}

teardown() {
	rm -rf "$T"
}

@test "python3.13 of a Debian 13 root: forked workers' calls tied to their .py line, exact per worker, frames read" {
	[ ! -e /usr/bin/python3.13 ]
	line=$(grep -n '^ *time\.mktime(' "$TOOLS/lang/fork.py" | cut -d: -f1)
	stack="/tmp/fork.py:$(grep -n '^    work(n)$' "$TOOLS/lang/fork.py" | cut -d: -f1) worker < /tmp/fork.py:$(grep -n '^ *worker(n, wait)$' "$TOOLS/lang/fork.py" | cut -d: -f1) <module>"
	env -u TZ "$CT" run --lang -v --json -o "$T/r.json" -- \
		chroot "$LANG_ROOT" /usr/bin/python3.13 /tmp/fork.py 150 3 \
		2>"$T/err" >/dev/null
	grep -qF "python3.13: frames read (CPython 3.13)" "$T/err"
	[ "$(jqr "$T/r.json" .lang.mechanism.python)" = frame ]
	[ "$(workload_sum "$T/err" mktime_calls)" -eq 450 ]
	for pid in $(grep -o 'role=worker pid=[0-9]*' "$T/err" | cut -d= -f3); do
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.file == \"/tmp/fork.py\" and
			.line == $line and .function == \"work\") |
			.tz_accesses] | add")" -eq 150 ]
		# --lang-depth: 3.13's frames walked through its entry shims.
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.line == $line and
			.function == \"work\" and .stack_cut == false) |
			.stack | map(\"\(.file):\(.line) \(.function)\") |
			join(\" < \")] | unique | join(\",\")")" = "$stack" ]
	done
	[ "$(jqr "$T/r.json" '.lang.unattributed | add')" -eq 0 ]
	[ "$(jqr "$T/r.json" .losses.lang_python_frame_unreadable)" -eq 0 ]
	[ "$(jqr "$T/r.json" .lang.python_lines_unknown)" -eq 0 ]
}

@test "python3.13 of a Debian 13 root: attach -p --tree to running workers, frames read, exact" {
	env -u TZ chroot "$LANG_ROOT" /usr/bin/python3.13 /tmp/fork.py 200 2 wait \
		2>"$T/err" &
	py=$!
	for _ in $(seq 100); do
		[ "$(grep -c role=ready "$T/err")" -eq 2 ] && break
		sleep 0.1
	done
	"$CT" attach -p "$py" --tree --lang --json -o "$T/r.json" 2>"$T/ct" &
	ct=$!
	sleep 2
	for pid in $(grep -o 'role=ready pid=[0-9]*' "$T/err" | cut -d= -f3); do
		kill -USR1 "$pid"
	done
	wait "$ct"
	[ "$(workload_sum "$T/err" mktime_calls)" -eq 400 ]
	[ "$(jqr "$T/r.json" .lang.python_frame_processes)" -ge 1 ]
	for pid in $(grep -o 'role=ready pid=[0-9]*' "$T/err" | cut -d= -f3); do
		[ "$(jqr "$T/r.json" "[.processes[] | select(.pid == $pid) |
			.lang_sites[] | select(.file == \"/tmp/fork.py\" and
			.function == \"work\") | .tz_accesses] | add")" -eq 200 ]
	done
	[ "$(jqr "$T/r.json" '.lang.unattributed | add')" -eq 0 ]
}
