#!/usr/bin/env bats
# --lang with a shared libpython: the interpreter the loader maps after
# exec (pyenv's and the official images' python3, embedding programs).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$(mktemp -d)
	cc -O2 -o "$T/embed" "$TOOLS/lang/embed.c" \
		$(python3.11-config --includes) \
		$(python3.11-config --embed --ldflags)
}

teardown() {
	rm -rf "$T"
}

@test "lang: an embedding program's shared libpython3.11 is read: every call tied to its line" {
	ldd "$T/embed" | grep -q 'libpython3\.11\.so'
	env -u TZ "$CT" run --lang --json -o "$T/r.json" -- "$T/embed" 300 \
		2>"$T/err" >/dev/null
	[ "$(workload_sum "$T/err" localtime_calls)" -eq 300 ]
	[ "$(jqr "$T/r.json" '.lang.python_frame_processes')" -eq 1 ]
	[ "$(jqr "$T/r.json" '[.processes[].lang_sites[]? | select(.file == "<string>" and .line == 3) | .tz_accesses] | add')" -eq 300 ]
	[ "$(jqr "$T/r.json" '.losses.lang_python_frame_unreadable')" -eq 0 ]
}
