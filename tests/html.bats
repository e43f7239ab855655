#!/usr/bin/env bats

bats_require_minimum_version 1.5.0
# --html: the page opened in headless Chromium (tests/browser/render.py),
# its rendered DOM held against the JSON report of the same run.

load helpers

ART="$ROOT/build/test-artifacts"

setup() {
	T=$(mktemp -d)
	mkdir -p "$ART"
}

teardown() {
	rm -rf "$T"
}

# render FILE.html NAME: facts.json in $T/NAME.json, screenshot kept.
render() {
	python3 "$ROOT/tests/browser/render.py" "$1" "$ART/$2.png" ${3:+"$3"} \
		>"$T/$2.json"
	[ -s "$ART/$2.png" ] && [ -s "$ART/$2-top.png" ]
}

# Nothing in the console, no exception, no refused request, no script.
clean_page() {
	[ "$(jqr "$1" '.problems | length')" -eq 0 ] || { jq .problems "$1"; return 1; }
	[ "$(jqr "$1" '.facts.scripts + .facts.external + .facts.injected')" -eq 0 ] ||
		return 1
	[ "$(jqr "$1" '.facts.figures_without_text')" -eq 0 ]
}

@test "html: the harness sees console errors and refused requests" {
	printf '%s' '<!DOCTYPE html><html><head><title>x</title></head><body>' \
		'<script>console.error("boom")</script>' \
		'<img src="http://127.0.0.1:9/x.png"></body></html>' >"$T/bad.html"
	render "$T/bad.html" harness-bad
	[ "$(jqr "$T/harness-bad.json" '[.problems[] | select(.console == "error")] | length')" -eq 1 ]
	[ "$(jqr "$T/harness-bad.json" '[.problems[] | select(.log == "error")] | length')" -ge 1 ]
	run clean_page "$T/harness-bad.json"
	[ "$status" -ne 0 ]
}

@test "html: run report rendered in Chromium equals the JSON of the same run" {
	env -u TZ "$CT" run --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/tzloop" -q -n 3000 -c 2 -s CLOCK_PROCESS_CPUTIME_ID:700 \
		>/dev/null 2>&1
	render "$T/r.html" html-run "$T/r.pdf"
	F="$T/html-run.json"
	clean_page "$F"
	[ "$(jqr "$F" .facts.facts.processes)" -eq "$(jqr "$T/r.json" '.processes | length')" ]
	[ "$(jqr "$F" .facts.facts.events)" -eq "$(jqr "$T/r.json" .events)" ]
	[ "$(jqr "$F" .facts.facts.lost)" -eq "$(jqr "$T/r.json" .lost_events)" ]
	[ "$(jqr "$F" .facts.facts.duration_ns)" -eq "$(jqr "$T/r.json" .duration_ns)" ]
	# Every process: the same tz accesses and clock syscalls as in the JSON.
	jq -S '[.processes[] | {pid, tz: .tz.accesses,
		clock: ([.clock[]?.count] | add // 0)}] | sort_by(.pid)' "$T/r.json" >"$T/want"
	jq -S '[.facts.procs[] | {pid, tz, clock}] | sort_by(.pid)' "$F" >"$T/got"
	diff "$T/want" "$T/got"
	[ "$(jqr "$T/want" '[.[].tz] | add')" -eq 18001 ]
	[ "$(jqr "$T/want" '[.[].clock] | add')" -eq 2100 ]
	# The findings, word for word, with their cost.
	jq -S '[.findings[] | {id, message, fix, cost_ns: .cost.kernel_ns}]' \
		"$T/r.json" >"$T/want"
	jq -S '[.facts.findings[]]' "$F" >"$T/got"
	diff "$T/want" "$T/got"
	[ "$(jqr "$F" '.facts.findings | length')" -ge 2 ]
	# A drawn histogram per syscall kind, its buckets the JSON's, summed.
	for kind in stat clock_gettime; do
		jq -S --arg k "$kind" '[.processes[] | (.clock[$k], .tz.latency[$k]) |
			select(.) | .hist[]] | group_by(.lo_ns) |
			map({lo_ns: .[0].lo_ns, count: (map(.count) | add)})' \
			"$T/r.json" >"$T/want"
		jq -S --arg k "hist-$kind" '.facts.histograms[] | select(.id == $k) |
			[.buckets[] | select(.count > 0) | {lo_ns, count}]' "$F" >"$T/got"
		diff "$T/want" "$T/got"
		[ "$(jqr "$F" ".facts.histograms[] | select(.id == \"hist-$kind\") |
			.visible and all(.buckets[] | select(.count > 0); .height > 0)")" = true ]
	done
	# Printable: Chromium's print gives a whole PDF.
	head -c 5 "$T/r.pdf" | grep -q '%PDF-'
	tail -c 8 "$T/r.pdf" | grep -aq '%%EOF'
	[ "$(stat -c %s "$T/r.pdf")" -gt 20000 ]
}

@test "html: run --compare shows the verdict and the JSON's figures" {
	# The demo's workload: docs/html-report.png is this test's screenshot.
	env -u TZ "$CT" run --compare --repeat 2 --json -o "$T/c.json" \
		--html "$T/c.html" -- "$TOOLS/tzloop" -q -n 20000 -c 2 2>/dev/null
	render "$T/c.html" html-compare
	F="$T/html-compare.json"
	clean_page "$F"
	[ "$(jqr "$F" .facts.verdict)" = "$(jqr "$T/c.json" .compare.verdict)" ]
	[[ "$(jqr "$F" .facts.verdict)" == "TZ=:/etc/localtime: "*"120,001 tz accesses → 1" ]]
	for role in all parent children; do
		for v in before after; do
			sel=".compare"
			[ "$role" = all ] || sel=".compare.roles[] | select(.role == \"$role\")"
			want=$(jqr "$T/c.json" "$sel | .$v | \"\(.wall_ns) \(.tz_accesses)\"")
			got=$(jqr "$F" ".facts.compare[] | select(.role == \"$role\" and
				.variant == \"$v\") | \"\(.wall_ns) \(.tz)\"")
			[ "$want" = "$got" ]
		done
	done
	run jq -e --slurpfile c "$T/c.json" '(.facts.compare[0].speedup -
		$c[0].compare.speedup | fabs) < 0.001' "$F"
	[ "$status" -eq 0 ]
	# The report under the compare section is the counted run before the fix.
	[ "$(jqr "$F" '[.facts.procs[].tz] | add')" -eq 120001 ]
}

@test "html: a hostile comm, image path, argument and tz path stay text" {
	name=$(printf '<script>"x\033')
	cp "$TOOLS/tzloop" "$T/$name"
	zone="$T/<b>zone\"'</b>"
	TZ=":$zone" "$CT" run --json -o "$T/r.json" --html "$T/r.html" -- \
		sh -c 'exec "$0" -q -n 20 -c 1' "$T/$name" \
		'<img src=x onerror=alert(1)>' >/dev/null 2>&1
	render "$T/r.html" html-hostile
	F="$T/html-hostile.json"
	clean_page "$F"
	[ "$(jqr "$F" '.facts.procs[0].comm')" = '<script>"x\x1b' ]
	[ "$(jqr "$F" '.facts.procs[0].exe')" = "$T/<script>\"x\\x1b" ]
	[[ "$(jqr "$F" .facts.facts.command)" == *'<img src=x onerror=alert(1)>'* ]]
	[[ "$(jqr "$F" .facts.title)" == *'<script>"x\x1b'* ]]
	jqr "$F" '.facts.tz_paths[]' | grep -qxF "$zone"
	[ "$(jqr "$T/r.json" '[.processes[].tz.paths | keys[]] | unique[]')" = "$zone" ]
	# The raw bytes never reach the file: no tag of theirs, no escape byte.
	run -1 grep -q '<script\|<b>\|<img' "$T/r.html"
	! grep -q "$(printf '\033')" "$T/r.html"
}

@test "html: run -i timeline equals the interval JSON reports of the same run" {
	env -u TZ "$CT" run -i 0.2 --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/tzloop" -q -n 60000 -c 1 -s CLOCK_PROCESS_CPUTIME_ID:20000 \
		>/dev/null 2>&1
	render "$T/r.html" html-timeline
	F="$T/html-timeline.json"
	clean_page "$F"
	# Every document but the last is one interval.
	jq -s -S '.[:-1] | map([.processes[] | {(.pid | tostring):
		(.tz.accesses + ([.clock[]?.count] | add // 0))}] | add // {})' \
		"$T/r.json" >"$T/want"
	[ "$(jqr "$T/want" 'length')" -ge 2 ]
	# The page shows the busiest processes: compare those, zeros included.
	jq -S '.facts.timeline.table' "$F" >"$T/got"
	run jq -e --slurpfile w "$T/want" '. as $g | ($g | length) ==
		($w[0] | length) and ([range(0; $g | length) as $k |
		$g[$k] | to_entries[] | .value == ($w[0][$k][.key] // 0)] | all)' \
		"$T/got"
	[ "$status" -eq 0 ] || { paste "$T/want" "$T/got"; false; }
	[ "$(jq '[.[] | .[]] | add' "$T/got")" -gt 0 ]
	[ "$(jqr "$F" '.facts.timeline.lines')" -eq 2 ]
}

@test "html: attach -i draws a timeline with one row per interval" {
	"$TOOLS/misbehave" sleep 30 -k 20 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" attach -p "$WL" -d 2.3 -i 1 -o "$T/out" --html "$T/a.html"
	kill "$WL" || true
	render "$T/a.html" html-attach
	F="$T/html-attach.json"
	clean_page "$F"
	[ "$(grep -c '^ *interval' "$T/out")" -eq 2 ]
	[ "$(jqr "$F" .facts.timeline.rows)" -eq 2 ]
	[ "$(jqr "$F" .facts.timeline.lines)" -ge 1 ]
	[ "$(jqr "$F" '.facts.procs[0].pid')" -eq "$WL" ]
}

@test "html: --libc calls per function and call sites, as in the JSON" {
	env -u TZ "$CT" run --libc --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/tzloop" -q -n 300 -c 1 >/dev/null 2>&1
	render "$T/r.html" html-libc
	F="$T/html-libc.json"
	clean_page "$F"
	jq -S '[.processes[].libc | to_entries[] | select(.value.count > 0) |
		{fn: .key, calls: .value.count, tz: .value.kernel.tz_accesses}] |
		group_by(.fn) | map({fn: .[0].fn, calls: (map(.calls) | add),
		tz: (map(.tz) | add)})' "$T/r.json" >"$T/want"
	jq -S '.facts.libc_fns | sort_by(.fn)' "$F" >"$T/got"
	diff "$T/want" "$T/got"
	# tzloop's own loop: tzset and localtime, 300 times in each process.
	[ "$(jqr "$F" '.facts.libc_fns[] | select(.fn == "localtime") | .calls')" -eq 600 ]
	[ "$(jqr "$F" '.facts.libc_sites')" -ge 2 ]
	# Call sites' source lines, as the JSON names them (libdw).
	jq -S '[.processes[].callers[] | .source // ""] | sort' "$T/r.json" >"$T/want"
	jq -S '.facts.libc_sources | sort' "$F" >"$T/got"
	diff "$T/want" "$T/got"
}

@test "html: --lang script lines of forked Ruby workers, as in the JSON" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" --html "$T/r.html" -- \
		ruby "$TOOLS/lang/forkers.rb" 40 2 >/dev/null 2>&1
	render "$T/r.html" html-lang
	F="$T/html-lang.json"
	clean_page "$F"
	jq -S '[.processes[] | .pid as $p | .lang_sites[] | {pid: $p, lang,
		line, in: ((if .class then .class + "#" else "" end) + .function),
		tz: .tz_accesses, clock: .clock_syscalls}] | sort_by(.pid, .line)' \
		"$T/r.json" >"$T/want"
	jq -S '.facts.lang_sites | sort_by(.pid, .line)' "$F" >"$T/got"
	diff "$T/want" "$T/got"
	[ "$(jqr "$T/want" '[.[] | select(.in == "Time#localtime") | .tz] | add')" -eq 120 ]
}

@test "html: 931 processes: the tree is cut at 500 rows and says so" {
	"$CT" run --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/forktree" -D 2 -W 30 -k 1 2>/dev/null
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 931 ]
	render "$T/r.html" html-many
	F="$T/html-many.json"
	clean_page "$F"
	[ "$(jqr "$F" '.facts.procs | length')" -eq 500 ]
	[ "$(jqr "$F" .facts.procs_not_shown)" = "431 more processes not shown." ]
	[ "$(jqr "$F" .facts.facts.processes)" -eq 931 ]
	# Depth first: each row's parent is the row above it or an earlier one.
	run jq -e '.facts.procs | . as $r | [range(1; length) as $i |
		$r[$i].depth <= $r[$i - 1].depth + 1] | all' "$F"
	[ "$status" -eq 0 ]
}

@test "html: --html never follows a symbolic link" {
	ln -s "$T/target" "$T/link.html"
	run "$CT" run --html "$T/link.html" -- true
	[ "$status" -eq 125 ]
	[ ! -e "$T/target" ]
}
