#!/usr/bin/env bats
# Issue 23, the FUSE row: a traced program maps files from a FUSE file
# system whose server answers the program and never the tracer
# (tools/fusestall.c).  A tracer that stats, opens or reads such a file on
# its loop waits in the kernel, deaf to -d, SIGTERM and /metrics, until the
# server lets go: these tests hold it to the issue's bounds, with the
# victim's own counts (tools/fusevictim.c) exact in the report.
#
# The test shell never touches $T/mnt while the server runs: it would be
# held too.

bats_require_minimum_version 1.5.0
load helpers

# The bounds of the issue ("Done when"): the attach ends within -d + 2 s,
# counted from the command's start (a plain attach --lang -d 8 took 9.2 s
# here at load 10: its start costs ~1 s of the 2); SIGTERM is honoured
# within 1 s, here 1.5 s from our kill to the exit we see: the 0.5 s is for
# a shared 2-core machine (our polls every 20 ms, another helper's build
# running; a plain attach ends ~30 ms after SIGTERM here).
DUR=8
END_BOUND_MS=$(( (DUR + 2) * 1000 ))
TERM_DUR=30
TERM_AFTER_MS=3000
TERM_BOUND_MS=1500
# How long past its bound a test still waits for clocktrace to end (for
# the figure it prints), before it calls it stuck.
GRACE_S=5
# The victim's work: localtime() calls inside the FUSE library, stats of
# /etc/localtime, forced clock_gettime syscalls.
LOCALTIMES=500
TZ_STATS=300
CLOCKS=200

setup() {
	[ -c /dev/fuse ] || skip "no /dev/fuse on this machine"
	T=$(mktemp -d)
	mkdir "$T/mnt"
}

# Microseconds now, without a fork: the machine may be loaded, and the
# waits below are bounded in time, not in rounds.
now_us() {
	NOW_US=${EPOCHREALTIME/./}
}

# Gone: exited (a zombie until we wait for it) or reaped.
gone() {
	local stat

	read -r stat 2>/dev/null <"/proc/$1/stat" || return 0
	stat=${stat##*) }
	[ "${stat:0:1}" = Z ]
}

# Waits up to $2 seconds for pid $1 to be gone.
wait_gone() {
	local end

	now_us
	end=$((NOW_US + $2 * 1000000))
	while ! gone "$1"; do
		now_us
		[ "$NOW_US" -lt "$end" ] || return 1
		sleep 0.02
	done
}

teardown() {
	# Each step whatever the last did: nothing may be left behind.
	if [ -n "${SCRAPER:-}" ]; then
		kill "$SCRAPER" 2>/dev/null || true
		wait "$SCRAPER" 2>/dev/null || true
	fi
	# The server first: its end fails every request it holds, which frees
	# a process waiting in one (nothing else does, not even SIGKILL).
	if [ -n "${SRV:-}" ]; then
		kill "$SRV" 2>/dev/null || true
		wait_gone "$SRV" 5 || kill -KILL "$SRV" 2>/dev/null || true
		wait "$SRV" 2>/dev/null || true
	fi
	umount -l "$T/mnt" 2>/dev/null || true
	# clocktrace and whatever it started in its session (a worker).
	if [ -n "${CTP:-}" ]; then
		kill -KILL -- "-$CTP" 2>/dev/null || true
		wait "$CTP" 2>/dev/null || true
	fi
	if [ -n "${WL:-}" ]; then
		kill -KILL "$WL" 2>/dev/null || true
		wait "$WL" 2>/dev/null || true
	fi
	if mountpoint -q "$T/mnt"; then
		echo "teardown: $T/mnt still mounted, left in place" >&2
	else
		rm -rf "$T"
	fi
}

# A TCP port nothing listens on now.
free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits up to 5 s for line $2 in file $1.
wait_line() {
	local end

	now_us
	end=$((NOW_US + 5000000))
	until grep -qx "$2" "$1" 2>/dev/null; do
		now_us
		[ "$NOW_US" -lt "$end" ] || return 1
		sleep 0.02
	done
}

# start_attack "NAME=FILE..." VICTIM-ARGS...: the victim held by a shell
# on a fifo (its pid is the one the server answers), the server mounted at
# $T/mnt, then the victim let go until it has loaded its files.
start_attack() {
	local files=$1

	shift
	mkfifo "$T/go"
	TZ=UTC sh -c 'read x <"$0"; exec "$@"' "$T/go" \
		"$TOOLS/fusevictim" "$@" >"$T/vout" 2>"$T/wl" &
	WL=$!
	# shellcheck disable=SC2086 # one word per served file
	"$TOOLS/fusestall" -p "$WL" "$T/mnt" $files >"$T/sout" 2>"$T/serr" &
	SRV=$!
	wait_line "$T/sout" mounted
	echo go >"$T/go"
	wait_line "$T/vout" ready
}

# clocktrace ARGS, in a session of its own so that teardown reaches any
# process it starts; START_US when it began.
start_ct() {
	now_us
	START_US=$NOW_US
	setsid "$CT" "$@" 2>"$T/ct" &
	CTP=$!
	wait_exec "$CTP" clocktrace
	# setsid ran in the same process (no fork): CTP is clocktrace.
	[ "$(ps -o pgid= -p "$CTP" | tr -d ' ')" = "$CTP" ]
}

# Every second while clocktrace runs, one GET /metrics of at most 2 s: its
# HTTP status (000: none) in $T/scrapes.
start_scraper() {
	(
		while ! gone "$CTP"; do
			curl -s -o /dev/null --max-time 2 -w '%{http_code}\n' \
				"http://127.0.0.1:$1/metrics" >>"$T/scrapes" ||
				true
			sleep 1
		done
	) &
	SCRAPER=$!
}

# Waits up to 5 s for clocktrace -v to say pid $1 has its libc links.
wait_probed() {
	local end

	now_us
	end=$((NOW_US + 5000000))
	until grep -q "pid $1 probed" "$T/ct" 2>/dev/null; do
		now_us
		[ "$NOW_US" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# Waits up to 5 s for /metrics on port $1: the loop runs.
wait_metrics() {
	local end

	now_us
	end=$((NOW_US + 5000000))
	until curl -sf -o /dev/null --max-time 0.5 \
		"http://127.0.0.1:$1/metrics"; do
		now_us
		[ "$NOW_US" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# The victim's work, once clocktrace traces it; its WORKLOAD line after.
run_victim() {
	kill -USR1 "$WL"
	wait_line "$T/vout" "done"
}

# Milliseconds from $1 (microseconds, a NOW_US) to now.
ms_since() {
	now_us
	echo $(( (NOW_US - $1) / 1000 ))
}

# Waits for clocktrace to end, up to $1 s from now; ELAPSED_MS since its
# start (empty if it has not ended), CT_STATUS its exit status.
wait_ct_end() {
	ELAPSED_MS=
	CT_STATUS=
	wait_gone "$CTP" "$1" || return 0
	now_us
	ELAPSED_MS=$(( (NOW_US - START_US) / 1000 ))
	CT_STATUS=0
	wait "$CTP" || CT_STATUS=$?
	CTP=
}

# What happened, for the log of a failing run.
say_figures() {
	echo "clocktrace ended after ${ELAPSED_MS:-never (still running)} ms," \
	     "status ${CT_STATUS:-none}"
	[ ! -e "$T/scrapes" ] || echo "/metrics: $(tr '\n' ' ' <"$T/scrapes")"
	echo "requests the server held: $(grep -c ' held ' "$T/serr")"
	sed -n '1,5p' "$T/serr" "$T/ct"
}

# The victim's counts (its WORKLOAD line) and the report's agree.
counts_exact() {
	local want_libc=$1 p

	[ "$(workload_sum "$T/wl" localtime_calls)" -eq "$want_libc" ]
	[ "$(workload_sum "$T/wl" tz_stat)" -eq "$TZ_STATS" ]
	[ "$(workload_sum "$T/wl" clock_syscalls)" -eq "$CLOCKS" ]
	p=".processes[] | select(.pid == $WL)"
	[ "$(jqr "$T/r.json" "$p | .tz.paths[\"/etc/localtime\"].stat")" -eq "$TZ_STATS" ]
	[ "$(jqr "$T/r.json" "$p | .clock_ids.CLOCK_PROCESS_CPUTIME_ID")" -eq "$CLOCKS" ]
	[ "$(jqr "$T/r.json" "$p | .clock.clock_gettime.count")" -eq "$CLOCKS" ]
	if [ "$want_libc" -gt 0 ]; then
		[ "$(jqr "$T/r.json" "$p | .libc.localtime.count")" -eq "$want_libc" ]
	fi
	[ "$(jqr "$T/r.json" .lost_events)" -eq 0 ]
	# What the stall cost is counted: names, never events.
	[ "$(jqr "$T/r.json" .losses.reader_stalled)" -ge 1 ]
}

# The attack reached the tracer (or its worker): not a vacuous pass.
tracer_was_held() {
	[ "$(grep -c ' held ' "$T/serr")" -ge 1 ]
}

@test "attach --libc: a library on a FUSE mount that never answers the tracer: -d honoured, /metrics answered, counts exact" {
	start_attack "libc-stall.so=$TOOLS/libfusestall.so" \
		-l "$T/mnt/libc-stall.so" -n "$LOCALTIMES" -k "$TZ_STATS" \
		-s "CLOCK_PROCESS_CPUTIME_ID:$CLOCKS"
	port=$(free_port)
	start_ct attach -v -p "$WL" --libc -d "$DUR" --json -o "$T/r.json" \
		--listen "127.0.0.1:$port"
	start_scraper "$port"
	# Not asserted here: counts short of the oracle's say it.
	wait_probed "$WL" || echo "pid $WL not probed within 5 s"
	run_victim
	wait_ct_end $((DUR + 2 + GRACE_S))
	say_figures
	[ -n "$ELAPSED_MS" ]
	[ "$ELAPSED_MS" -le "$END_BOUND_MS" ]
	[ "$CT_STATUS" -eq 0 ]
	[ "$(grep -cx 200 "$T/scrapes")" -ge 2 ]
	counts_exact "$LOCALTIMES"
	tracer_was_held
}

@test "attach --libc: SIGTERM ends it within 1 s while the FUSE server holds the tracer's request" {
	start_attack "libc-stall.so=$TOOLS/libfusestall.so" \
		-l "$T/mnt/libc-stall.so" -n "$LOCALTIMES" -k "$TZ_STATS" \
		-s "CLOCK_PROCESS_CPUTIME_ID:$CLOCKS"
	start_ct attach -v -p "$WL" --libc -d "$TERM_DUR" --json -o "$T/r.json"
	wait_probed "$WL" || echo "pid $WL not probed within 5 s"
	run_victim
	left=$(( TERM_AFTER_MS - $(ms_since "$START_US") ))
	[ "$left" -le 0 ] || sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
	now_us
	kill_ms=$(( (NOW_US - START_US) / 1000 ))
	kill -TERM "$CTP"
	wait_ct_end $((TERM_BOUND_MS / 1000 + GRACE_S))
	term_ms=
	[ -z "$ELAPSED_MS" ] || term_ms=$(( ELAPSED_MS - kill_ms ))
	echo "SIGTERM sent $kill_ms ms after start;" \
	     "ended ${term_ms:-never} ms after it (bound $TERM_BOUND_MS)"
	say_figures
	[ -n "$term_ms" ]
	[ "$term_ms" -le "$TERM_BOUND_MS" ]
	[ "$CT_STATUS" -eq 0 ]
	counts_exact "$LOCALTIMES"
	tracer_was_held
}

@test "attach --lang: interpreter-named files (libruby-x.so, python3.11) on a FUSE mount that never answers: -d honoured, counts exact" {
	start_attack "libruby-x.so=$TOOLS/libfusestall.so python3.11=$TOOLS/libfusestall.so" \
		-m "$T/mnt/libruby-x.so" -m "$T/mnt/python3.11" \
		-k "$TZ_STATS" -s "CLOCK_PROCESS_CPUTIME_ID:$CLOCKS"
	port=$(free_port)
	start_ct attach -v -p "$WL" --lang -d "$DUR" --json -o "$T/r.json" \
		--listen "127.0.0.1:$port"
	start_scraper "$port"
	# The loop runs once the target is in: then its syscalls count.
	wait_metrics "$port" || echo "/metrics not answered within 5 s"
	run_victim
	wait_ct_end $((DUR + 2 + GRACE_S))
	say_figures
	[ -n "$ELAPSED_MS" ]
	[ "$ELAPSED_MS" -le "$END_BOUND_MS" ]
	[ "$CT_STATUS" -eq 0 ]
	[ "$(grep -cx 200 "$T/scrapes")" -ge 2 ]
	counts_exact 0
	tracer_was_held
}
