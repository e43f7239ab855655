#!/usr/bin/env bats
# Bad input (issue 7): one clear line on stderr, status 125, and nothing
# loaded into the kernel.  "Nothing loaded" is checked on clocktrace's own
# bpf(2) calls (strace), so other tracers running on the machine at the
# same time cannot make the check pass or fail.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

# LeakSanitizer cannot run under ptrace: off for the sanitized binary there.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# Runs clocktrace ARGS... under strace, recording its bpf(2) calls.
ct_traced() {
	run strace -f -qq -e trace=bpf -o "$TMP/bpf.trace" "$CT" "$@"
}

# Nothing was created in the kernel: no map, no program, no link.
nothing_loaded() {
	! grep -E 'BPF_(MAP_CREATE|PROG_LOAD|LINK_CREATE|RAW_TRACEPOINT_OPEN)' \
		"$TMP/bpf.trace"
}

one_line() {
	[ -n "$output" ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
	[[ "$output" == clocktrace:* ]]
}

# ARGS... is refused: 125, one line on stderr, nothing on stdout, no BPF.
refused() {
	strace -f -qq -e trace=bpf -o "$TMP/bpf.trace" "$CT" "$@" \
		>"$TMP/out" 2>"$TMP/err" && return 1
	local st=$?
	output=$(cat "$TMP/err")
	echo "status $st: $output"
	[ "$st" -eq 125 ]
	one_line
	[ ! -s "$TMP/out" ]
	nothing_loaded
}

@test "the BPF check sees a real run (so it can fail)" {
	ct_traced run -o "$TMP/r.txt" -- true
	[ "$status" -eq 0 ]
	grep -q BPF_PROG_LOAD "$TMP/bpf.trace"
	! nothing_loaded
}

@test "no subcommand: 125, usage" {
	run "$CT"
	[ "$status" -eq 125 ]
	[[ "$output" == *Usage* ]]
}

@test "unknown subcommand: 125, one line, nothing loaded" {
	refused bogus
	[[ "$output" == *"unknown command 'bogus'"* ]]
	refused ''
}

@test "run without PROG: 125, one line, nothing loaded" {
	refused run
	[[ "$output" == *"missing PROG"* ]]
	refused run --
	refused run --json -o "$TMP/r.json"
	[ ! -e "$TMP/r.json" ]
}

@test "unknown options: 125, one line, nothing loaded" {
	refused run --bogus -- true
	[[ "$output" == *"--bogus"* ]]
	refused run -Z true
	[[ "$output" == *"-Z"* ]]
	# attach's options are not run's.
	refused run -p 1 -- true
	refused attach --follow -p 1
	refused top --user nobody
}

@test "options missing their value: 125, one line, nothing loaded" {
	refused run -o
	refused run --output
	refused run --max-procs
	# The option is named, not as a raw byte (optopt of a long option).
	[[ "$output" == *"'--max-procs'"* ]]
	refused attach -p
}

@test "bad numbers: 125, one line, nothing loaded" {
	refused run -d -1 -- true
	refused run -d abc -- true
	refused run -d 0 -- true
	refused run -d nan -- true
	refused run -d 1e400 -- true
	refused run -i 0.001 -- true
	refused run --top 0 -- true
	refused run --top -3 -- true
	refused run --max-procs 0 -- true
	refused run --max-procs 99999999999999999999 -- true
	refused run --max-procs 12x -- true
	refused run --ringbuf-kb 3 -- true
	refused run --ringbuf-kb 6 -- true
	refused run --ringbuf-kb 2 -- true
	refused run --format yaml -- true
}

@test "attach: -d -1, -p abc, no target: 125, one line, nothing loaded" {
	refused attach -d -1 -p 1
	[[ "$output" == *"-1"* ]]
	refused attach -p abc
	[[ "$output" == *abc* ]]
	refused attach -p 1,,x
	refused attach -p 0
	refused attach -p -5
	refused attach
	refused attach --comm 0123456789abcdefgh
}

@test "pid lists with empty items or blanks: 125, one line, nothing loaded" {
	refused attach -p 1,,2
	[[ "$output" == *"'1,,2'"* ]]
	refused attach -p ",$$"
	refused attach -p "$$,"
	refused attach -p " $$"
	refused attach -p "$$ "
	refused attach -p "+$$"
	# The same pid written plainly is accepted (so the refusals can fail).
	run "$CT" attach -p "$$" -d 0.2 -o "$TMP/r.txt"
	[ "$status" -eq 0 ]
}

@test "seconds are plain decimals: hex, exponents, too large, too small" {
	refused attach -d 0x10 -p 1
	[[ "$output" == *"not a plain positive number"* ]]
	refused attach -d 1e-9 -p 1
	refused attach -d 1E3 -p 1
	refused attach -d inf -p 1
	refused attach -d ' 5' -p 1
	refused attach -d 99999999999 -p 1
	[[ "$output" == *"too large"* ]]
	[[ "$output" != *"not a plain positive"* ]]
	refused attach -d 0.0000001 -p 1
	[[ "$output" == *"too small"* ]]
	refused run -i 0x1 -- true
	refused top -i 1e1
	refused bench -d 0x1
	refused bench -d 1e-3
}

@test "bench: an empty clock list or item is refused: 125, one line" {
	refused bench -c ''
	[[ "$output" == *"empty item"* ]]
	refused bench -c 'monotonic,'
	refused bench -c ',monotonic'
	refused bench -c 'monotonic,,realtime'
	refused bench --cpu ' 0'
}

@test "arguments echoed in errors are escaped: one line, no raw control bytes" {
	# No such name yet: attach waits for it, and says so in one line.
	run -0 "$CT" attach --comm $'a\nb' -d 0.2 -o /dev/null
	one_line
	[[ "$output" == *"'a\x0ab'"* ]]
	refused attach -p $'1\n2'
	[[ "$output" == *'1\x0a2'* ]]
	refused $'bo\ngus'
	[[ "$output" == *'bo\x0agus'* ]]
	refused run $'--bo\033[2Jgus' -- true
	[[ "$output" != *$'\033'* ]]
	refused bench -c $'x\ny'
	refused doctor $'x\ny'
	refused run -o "$TMP/"$'no\nsuch/r.txt' -- true
	[[ "$output" == *'no\x0asuch'* ]]
	run -127 "$CT" run -o "$TMP/r.txt" -- $'/no\nprog'
	one_line
	[[ "$output" == *'/no\x0aprog'* ]]
}

@test "top with TERM=dumb or a file sends no terminal codes; a terminal gets them" {
	TERM=dumb script -qec "$CT top -n 1 -i 0.2" /dev/null >"$TMP/dumb"
	grep -q 'clocktrace top' "$TMP/dumb"
	run -1 grep -q $'\033' "$TMP/dumb"
	TERM= script -qec "$CT top -n 1 -i 0.2" /dev/null >"$TMP/unset"
	run -1 grep -q $'\033' "$TMP/unset"
	TERM=xterm script -qec "$CT top -n 1 -i 0.2" /dev/null >"$TMP/xterm"
	grep -q $'\033\\[2J' "$TMP/xterm"
}

@test "stderr closed: messages never land in the -o report (fds 0-2 filled)" {
	# SUDO_USER makes clocktrace print its note on stderr.
	SUDO_USER=nobody "$CT" run --json -o "$TMP/r.json" -- true 2>&- <&-
	jq -e '.version' "$TMP/r.json"
	run -1 grep -q 'clocktrace:' "$TMP/r.json"
	# With stdout closed too, PROG's output does not reach the report.
	SUDO_USER=nobody "$CT" run --json -o "$TMP/r2.json" -- \
		printf '%s-%s\n' prog output >&- 2>&-
	jq -e '.version' "$TMP/r2.json"
	! grep -q 'prog-output' "$TMP/r2.json"
}

@test "top: bad count and interval: 125, one line, nothing loaded" {
	refused top -n 0
	refused top -i 0
	refused top extra
}

@test "run -u with an unknown user: 125, one line, nothing loaded" {
	refused run -u no-such-user-xyz -- true
	[[ "$output" == *no-such-user-xyz* ]]
	refused run -u 4294967295 -- true
}

@test "-o to an existing symlink: refused (125), its target untouched" {
	echo precious >"$TMP/target"
	ln -s "$TMP/target" "$TMP/link"
	refused run -o "$TMP/link" -- true
	[[ "$output" == *"symbolic link"* ]]
	[ "$(cat "$TMP/target")" = precious ]
	[ -L "$TMP/link" ]
	# A dangling link is not followed into creating its target either.
	ln -s "$TMP/created" "$TMP/dangling"
	refused run -o "$TMP/dangling" -- true
	[ ! -e "$TMP/created" ]
}

@test "-o into a directory that does not exist: 125, one line" {
	refused run -o "$TMP/no/such/dir/r.txt" -- true
	[[ "$output" == *"$TMP/no/such/dir/r.txt"* ]]
	[ ! -e "$TMP/no" ]
	refused run -o "$TMP" -- true
}

@test "-o FILE: the report is written there, mode 0644, nothing on stderr" {
	run "$CT" run -o "$TMP/r.txt" -- true
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q '^PROCESSES' "$TMP/r.txt"
	[ "$(stat -c %a "$TMP/r.txt")" = 644 ]
}

@test "PROG not found: 127, one line" {
	run -127 "$CT" run -o "$TMP/r.txt" -- "$TMP/no-such-prog"
	[ "$status" -eq 127 ]
	one_line
	[[ "$output" == *"no-such-prog"* ]]
	run -127 "$CT" run -o "$TMP/r.txt" -- no-such-prog-in-path-xyz
	[ "$status" -eq 127 ]
	one_line
}

@test "PROG not executable: 126, one line" {
	echo 'echo hi' >"$TMP/noexec"
	chmod 0644 "$TMP/noexec"
	run -126 "$CT" run -o "$TMP/r.txt" -- "$TMP/noexec"
	[ "$status" -eq 126 ]
	one_line
	run -126 "$CT" run -o "$TMP/r.txt" -- "$TMP"
	[ "$status" -eq 126 ]
	one_line
}

@test "exit statuses pass through: 0, 1, 3, 255" {
	for code in 0 1 3 255; do
		run "$CT" run -o "$TMP/r.txt" -- "$TOOLS/misbehave" exit "$code"
		[ "$status" -eq "$code" ]
	done
	run "$CT" run -o "$TMP/r.txt" -- sh -c 'exit 42'
	[ "$status" -eq 42 ]
}

@test "--help: status 0, usage on stdout, nothing on stderr, nothing loaded" {
	strace -f -qq -e trace=bpf -o "$TMP/bpf.trace" "$CT" run --help \
		>"$TMP/out" 2>"$TMP/err"
	grep -q '^Usage: clocktrace run' "$TMP/out"
	grep -q -- '--max-procs' "$TMP/out"
	[ ! -s "$TMP/err" ]
	nothing_loaded
}
