#!/usr/bin/env bats
# A traced program that attacks its root tracer through what the tracer
# reads from it (issue 13: FIFOs, hostile bytes, colliding keys, paths
# changed under the tracer).  Real BPF, as root; tools/hostile is the
# program, its WORKLOAD lines the oracle.

load helpers

setup() {
	TMP=$(mktemp -d)
	# A directory the traced user (nobody) may write to.
	PUB=$(mktemp -d /tmp/ct-hostile.XXXXXX)
	chmod 777 "$PUB"
}

teardown() {
	for p in ${BG_PIDS:-}; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$TMP" "$PUB"
}

# Waits up to 1 s for PID to be gone.
gone_within_1s() {
	for _ in $(seq 20); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	! kill -0 "$1" 2>/dev/null
}

# --- item 1: a FIFO where a file was -----------------------------------------

@test "a FIFO put at PROG's path never blocks the report (--libc -u nobody)" {
	cp "$TOOLS/hostile" "$PUB/prog"
	env -u TZ timeout -s KILL 20 "$CT" run --libc -u nobody --json \
		-o "$TMP/r.json" -- "$PUB/prog" fifo-exe 100 2>"$TMP/err"
	[ -p "$PUB/prog" ]
	[ "$(jqr "$TMP/r.json" '.processes[0].libc.localtime.count')" -eq 100 ]
	[ "$(our_progs)" -eq 0 ]
}

@test "SIGTERM once PROG is gone ends clocktrace within 1 s, nothing left" {
	cp "$TOOLS/hostile" "$PUB/prog"
	env -u TZ "$CT" run --libc -u nobody -o "$TMP/r.txt" -- \
		"$PUB/prog" fifo-exe 100 2>"$TMP/err" 3>&- &
	ct=$!
	BG_PIDS=$ct
	for _ in $(seq 200); do
		[ -p "$PUB/prog" ] && break
		sleep 0.01
	done
	[ -p "$PUB/prog" ]
	kill -TERM "$ct" 2>/dev/null || true
	gone_within_1s "$ct"
	st=0
	wait "$ct" || st=$?
	# Either the report was done (PROG's 0) or the signal ended it.
	[ "$st" -eq 0 ] || [ "$st" -eq 143 ]
	[ "$(our_progs)" -eq 0 ]
}
