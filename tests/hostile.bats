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

@test "DWARF that names a FIFO as its supplementary file never blocks the report" {
	# dwz moves shared DWARF into a file the program names (.gnu_debugaltlink);
	# libdw would open that path itself, blocking on a FIFO put there.
	cp "$TOOLS/hostile" "$PUB/a"
	cp "$TOOLS/hostile" "$PUB/b"
	dwz -m "$PUB/alt.debug" -M "$PUB/altfifo" "$PUB/a" "$PUB/b"
	readelf --string-dump=.gnu_debugaltlink "$PUB/a" | grep -qF "$PUB/altfifo"
	rm "$PUB/alt.debug"
	mkfifo "$PUB/altfifo"
	env -u TZ timeout -s KILL 20 "$CT" run --libc --json -o "$TMP/r.json" \
		-- "$PUB/a" localtime 20 2>"$TMP/err"
	[ "$(jqr "$TMP/r.json" '.processes[0].libc.localtime.count')" -eq 20 ]
	# Named by its symbol; no source line from DWARF it cannot trust.
	jqr "$TMP/r.json" '.processes[0].callers[0].caller' | grep -q '^caller+0x'
	[ "$(jqr "$TMP/r.json" '.processes[0].callers[0].source')" = null ]
}

# --- items 2 and 8: hostile bytes, in every view, never merged ----------------

# Bytes a terminal or a cron-like parser would act on.
EVIL_SCREEN=$'/usr/share/zoneinfo/\n\e[2J\e[31mEVIL\r'
EVIL_CRON=$'/usr/share/zoneinfo/\n* * * * * root /tmp/evil.sh\n'
EVIL_NAME=$'ev\e[2J\nil\r\xff'

# No raw control byte (but tab and newline), DEL or non-ASCII byte in FILE,
# and no line that is the planted cron line.
inert_text() {
	run -1 grep -naP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$1"
	! grep -qx '\* \* \* \* \* root /tmp/evil.sh' "$1"
}

# The same for a machine format: UTF-8 is allowed, C0/DEL/C1 never.
inert_machine() {
	run -1 grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"
	! grep -qx '\* \* \* \* \* root /tmp/evil.sh' "$1"
}

@test "hostile paths and comm: text report, findings and -i intervals stay inert" {
	cp "$TOOLS/hostile" "$TMP/$EVIL_NAME"
	"$CT" run -o "$TMP/r.txt" -- "$TMP/$EVIL_NAME" stat 40 \
		"$EVIL_SCREEN" "$EVIL_CRON" "$EVIL_CRON" 2>"$TMP/err"
	inert_text "$TMP/r.txt"
	# The tables and the FINDINGS message carry the escaped bytes.
	grep -qF 'stat                80         80  /usr/share/zoneinfo/\x0a* * * * * root /tmp/evil.sh\x0a' "$TMP/r.txt"
	grep -qF 'stat                40         40  /usr/share/zoneinfo/\x0a\x1b[2J\x1b[31mEVIL\x0d' "$TMP/r.txt"
	# Whatever its severity, which follows the measured cost.
	grep -A1 '^\s*\[[a-z]*\] tz-repeated-access' "$TMP/r.txt" |
		grep -qF 'accessed /usr/share/zoneinfo/\x0a* * * * * root /tmp/evil.sh\x0a 80 times'
	# Intervals name the process by its comm.  400,000 stats take ~0.5 s,
	# many intervals: 20,000 could end before the first one (CI did).
	"$CT" run -i 0.02 -o "$TMP/i.txt" -- "$TMP/$EVIL_NAME" stat 400000 \
		"$EVIL_SCREEN" 2>"$TMP/err"
	inert_text "$TMP/i.txt"
	grep -q '^interval' "$TMP/i.txt"
	grep -qE '^ +[0-9]+ ev\\x1b\[2J\\x0ail\\x0d\\xff +[0-9,]+ +0$' "$TMP/i.txt"
}

@test "hostile paths and comm: JSON keys and messages escaped, jq -r output inert" {
	cp "$TOOLS/hostile" "$TMP/$EVIL_NAME"
	"$CT" run --json -o "$TMP/r.json" -- "$TMP/$EVIL_NAME" stat 40 \
		"$EVIL_SCREEN" "$EVIL_CRON" "$EVIL_CRON" 2>"$TMP/err"
	jq -e . "$TMP/r.json" >/dev/null
	inert_machine "$TMP/r.json"
	jq -r '.. | strings, (objects | keys[])' "$TMP/r.json" >"$TMP/decoded"
	inert_machine "$TMP/decoded"
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths["/usr/share/zoneinfo/\\x0a* * * * * root /tmp/evil.sh\\x0a"].stat')" -eq 80 ]
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths["/usr/share/zoneinfo/\\x0a\\x1b[2J\\x1b[31mEVIL\\x0d"].stat')" -eq 40 ]
	jqr "$TMP/r.json" '.findings[0].message' |
		grep -qF '/usr/share/zoneinfo/\x0a* * * * * root /tmp/evil.sh\x0a 80 times'
}

@test "hostile paths and comm: OpenMetrics parses, one series per path, inert" {
	cp "$TOOLS/hostile" "$TMP/$EVIL_NAME"
	"$CT" run --format openmetrics -o "$TMP/r.om" -- "$TMP/$EVIL_NAME" \
		stat 40 "$EVIL_SCREEN" "$EVIL_CRON" "$EVIL_CRON" 2>"$TMP/err"
	inert_machine "$TMP/r.om"
	/usr/bin/python3 - "$TMP/r.om" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
got = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        if s.name == "clocktrace_tz_accesses_total":
            got[s.labels["path"]] = s.value
            assert s.labels["comm"] == "ev\\x1b[2J\\x0ail\\x0d\\xff", s.labels
assert got == {
    "/usr/share/zoneinfo/\\x0a\\x1b[2J\\x1b[31mEVIL\\x0d": 40,
    "/usr/share/zoneinfo/\\x0a* * * * * root /tmp/evil.sh\\x0a": 80,
}, got
PY
}

@test "--libc: a symbol and a file name made of escape bytes stay inert" {
	objcopy --redefine-sym caller="$EVIL_NAME" "$TOOLS/hostile" \
		"$TMP/$EVIL_NAME"
	chmod +x "$TMP/$EVIL_NAME"
	# Two processes: the per-process --libc tables name each by comm.
	env -u TZ "$CT" run --libc -o "$TMP/r.txt" -- sh -c \
		'"$0" localtime 50 && exec "$0" localtime 50' "$TMP/$EVIL_NAME" \
		2>"$TMP/err"
	inert_text "$TMP/r.txt"
	grep -qE '^  pid [0-9]+ ev\\x1b\[2J\\x0ail\\x0d\\xff:$' "$TMP/r.txt"
	# Top call sites and the finding name the site, escaped.
	grep -qF 'localtime      ev\x1b[2J\x0ail\x0d\xff+0x' "$TMP/r.txt"
	grep -qF '(ev\x1b[2J\x0ail\x0d\xff)' "$TMP/r.txt"
	grep -qF 'called at ev\x1b[2J\x0ail\x0d\xff+0x' "$TMP/r.txt"
	env -u TZ "$CT" run --libc --json -o "$TMP/r.json" -- \
		"$TMP/$EVIL_NAME" localtime 50 2>"$TMP/err"
	inert_machine "$TMP/r.json"
	[ "$(jqr "$TMP/r.json" '.processes[0].callers[0].module')" = 'ev\x1b[2J\x0ail\x0d\xff' ]
	jqr "$TMP/r.json" '.processes[0].callers[0].caller' |
		grep -q '^ev\\x1b\[2J\\x0ail\\x0d\\xff+0x'
}

@test "hostile comm and TZ: top (text and JSON) and doctor -p stay inert" {
	cp "$TOOLS/hostile" "$TMP/$EVIL_NAME"
	env TZ="$EVIL_CRON" "$TMP/$EVIL_NAME" stat 100000000 "$EVIL_SCREEN" \
		2>/dev/null &
	BG_PIDS=$!
	wait_exec "$BG_PIDS" "$EVIL_NAME"
	"$CT" top -i 0.3 -n 2 -o "$TMP/top.txt"
	inert_text "$TMP/top.txt"
	grep -qF "ev\\x1b[2J\\x0ail\\x0d\\xff" "$TMP/top.txt"
	"$CT" top --json -i 0.3 -n 1 -o "$TMP/top.json"
	inert_machine "$TMP/top.json"
	[ "$(jq -r --argjson p "$BG_PIDS" '.processes[] | select(.pid == $p) | .tz_env' "$TMP/top.json")" = \
		'/usr/share/zoneinfo/\x0a* * * * * root /tmp/evil.sh\x0a' ]
	"$CT" doctor -p "$BG_PIDS" >"$TMP/doc.txt" 2>&1 || true
	inert_text "$TMP/doc.txt"
	grep -qF 'process TZ: /usr/share/zoneinfo/\x0a* * * * * root /tmp/evil.sh\x0a' "$TMP/doc.txt"
	"$CT" doctor --json -p "$BG_PIDS" >"$TMP/doc.json" 2>/dev/null || true
	inert_machine "$TMP/doc.json"
	[ "$(jqr "$TMP/doc.json" .process.comm)" = 'ev\x1b[2J\x0ail\x0d\xff' ]
}

@test "invalid UTF-8 and the real character are two JSON keys and two series" {
	bad=$'/usr/share/zoneinfo/\xe9' good=$'/usr/share/zoneinfo/\xc3\xa9'
	"$CT" run --json -o "$TMP/r.json" -- "$TOOLS/hostile" stat 20 \
		"$bad" "$bad" "$bad" "$bad" "$bad" "$bad" "$bad" "$good" 2>"$TMP/err"
	jq -e . "$TMP/r.json" >/dev/null
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths | length')" -eq 2 ]
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths["/usr/share/zoneinfo/\\xe9"].stat')" -eq 140 ]
	[ "$(jqr "$TMP/r.json" ".processes[0].tz.paths[\"$good\"].stat")" -eq 20 ]
	"$CT" run --format openmetrics -o "$TMP/r.om" -- "$TOOLS/hostile" \
		stat 20 "$bad" "$bad" "$bad" "$bad" "$bad" "$bad" "$bad" "$good" 2>"$TMP/err"
	grep -qF 'path="/usr/share/zoneinfo/\\xe9"} 140' "$TMP/r.om"
	grep -qF "path=\"$good\"} 20" "$TMP/r.om"
}

@test "two 120-byte paths that differ in their last byte: two OpenMetrics series" {
	ctl=$(printf '\001%.0s' $(seq 99))
	a="/usr/share/zoneinfo/${ctl}a" b="/usr/share/zoneinfo/${ctl}b"
	[ "${#a}" -eq 120 ]
	"$CT" run --format openmetrics -o "$TMP/r.om" -- "$TOOLS/hostile" \
		stat 15 "$a" "$b" "$b" 2>"$TMP/err"
	inert_machine "$TMP/r.om"
	/usr/bin/python3 - "$TMP/r.om" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
ctl = "\\x01" * 99
got = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        if s.name == "clocktrace_tz_accesses_total":
            got[s.labels["path"]] = s.value
want = {"/usr/share/zoneinfo/" + ctl + "a": 15, "/usr/share/zoneinfo/" + ctl + "b": 30}
assert got == want, got
PY
}

@test "tz paths of 170 and 180 bytes are tz_paths_unwatched, never one cut key" {
	long=/usr/share/zoneinfo/$(printf 'x%.0s' $(seq 150))
	p170=${long:0:170} p180=${long:0:180}
	p126=${long:0:126} p127=${long:0:127}
	"$CT" run --json -o "$TMP/r.json" -- "$TOOLS/hostile" stat 25 \
		"$p170" "$p180" "$p127" "$p126" 2>"$TMP/err"
	# 126 bytes fit a key whole; 127 and more cannot be told from a cut one.
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths | keys | map(length) | join(",")')" = 126 ]
	[ "$(jqr "$TMP/r.json" ".processes[0].tz.paths[\"$p126\"].stat")" -eq 25 ]
	[ "$(jqr "$TMP/r.json" .losses.tz_paths_unwatched)" -eq 75 ]
	[ "$(jqr "$TMP/r.json" .lost_events)" -eq 75 ]
}

# --- item 9: a path rewritten while the kernel uses it -----------------------

@test "a tz path flipped by another thread during stat: counted as lost, none dropped" {
	n=200000 seen=0
	# A busy machine may run both threads on one CPU for a whole run: then
	# no flip lands inside a stat.  Every run must balance; one must race.
	for _ in 1 2 3 4 5; do
		"$CT" run --json -o "$TMP/r.json" -- "$TOOLS/hostile" flip $n \
			/usr/share/zoneinfo/UTC /usr/share/zoneinfo/UTc 2>"$TMP/err"
		[ "$(workload_sum "$TMP/err" tz_stat)" -eq $n ]
		changed=$(jqr "$TMP/r.json" .losses.tz_path_changed)
		# Every stat is under the name read at entry and exit alike, or lost.
		counted=$(jqr "$TMP/r.json" '[.processes[0].tz.paths[].stat] | add')
		unreadable=$(jqr "$TMP/r.json" .losses.path_unreadable)
		[ $((counted + changed + unreadable)) -eq $n ]
		[ "$(jqr "$TMP/r.json" .lost_events)" -eq $((changed + unreadable)) ]
		# Said of the process, whose split between names is suspect.
		[ "$(jqr "$TMP/r.json" .processes[0].tz.path_changed)" -eq "$changed" ]
		[ "$changed" -gt 0 ] && seen=1 && break
	done
	[ "$seen" -eq 1 ]
	# The text report names the process, once a run races as above.
	seen=0
	for _ in 1 2 3 4 5; do
		"$CT" run -o "$TMP/r.txt" -- "$TOOLS/hostile" flip $n \
			/usr/share/zoneinfo/UTC /usr/share/zoneinfo/UTc 2>"$TMP/err"
		grep -q ' rewrote ' "$TMP/r.txt" && seen=1 && break
	done
	[ "$seen" -eq 1 ]
	pid=$(grep -o 'pid=[0-9]*' "$TMP/err" | cut -d= -f2)
	grep -q "^  pid $pid rewrote the path of [0-9,]* accesses during the syscall" "$TMP/r.txt"
}

@test "the same bytes rewritten during stat are no change: exact, nothing lost" {
	n=100000
	"$CT" run --json -o "$TMP/r.json" -- "$TOOLS/hostile" flip $n \
		/usr/share/zoneinfo/UTC /usr/share/zoneinfo/UTC 2>"$TMP/err"
	[ "$(workload_sum "$TMP/err" ok)" -eq $n ]
	[ "$(jqr "$TMP/r.json" '.processes[0].tz.paths["/usr/share/zoneinfo/UTC"].stat')" -eq $n ]
	[ "$(jqr "$TMP/r.json" .processes[0].tz.errors)" -eq 0 ]
	[ "$(jqr "$TMP/r.json" .processes[0].tz.path_changed)" -eq 0 ]
	[ "$(jqr "$TMP/r.json" .lost_events)" -eq 0 ]
}
