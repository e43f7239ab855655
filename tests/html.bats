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

# Nothing wider than the 1,280 px viewport, no cell's text under its
# neighbour, no scroll bar: render.py lays the page out 1,280 px wide.
fits_width() {
	[ "$(jqr "$1" .facts.viewport_width)" -eq 1280 ]
	[ "$(jqr "$1" .facts.page_width)" -le 1280 ] &&
		[ "$(jqr "$1" '.facts.overflowing | length')" -eq 0 ] ||
		{ jq '.facts.page_width, .facts.overflowing[:10]' "$1"; return 1; }
}

# A directory whose path is 200 bytes long, for a workload's copy.
long_dir() {
	d="$T/$(printf 'longpathname%.0s' $(seq 20))"
	d=${d:0:200}
	mkdir -p "$d"
	echo "$d"
}

# today_rb FILE: a Ruby parent and 2 forked workers, each N Date.today
# calls (one tz access each, through date_core.so's tzset).
today_rb() {
	printf '%s\n' "require 'date'" 'n = Integer(ARGV[0])' \
		'pids = Array.new(2) { fork { n.times { Date.today } } }' \
		'n.times { Date.today }' 'pids.each { |p| Process.wait(p) }' >"$1"
}

# The JSON's call sites merged as the text report merges them: one site
# per file offset in the same file (by build id, else by name), whatever
# the process; a site with no offset is its address's.
JQ_SITES='[.processes[].callers[]] | group_by(if .offset != null then
	[.function, .offset, (.build_id // ("name:" + .module))] else
	[.function, .address, .module, .caller] end) | map({fn: .[0].function,
	calls: (map(.count) | add), procs: length, module: .[0].module,
	offset: .[0].offset, source: (.[0].source // "")})'

# The page's call sites are the merged JSON's, one row each, most calls
# first: the top row is the busiest site.
sites_merged() {
	jq -S "$JQ_SITES | sort_by(.fn, .offset, .module)" "$2" >"$T/want"
	jq -S '.facts.libc_sites | map(del(.caller, .site)) |
		sort_by(.fn, .offset, .module)' "$1" >"$T/got"
	diff "$T/want" "$T/got"
	# Named as the text report names them: module+offset.
	[ "$(jqr "$1" 'all(.facts.libc_sites[]; .site | test("^[^ ]+\\+0x[0-9a-f]+$"))')" = true ]
	[ "$(jqr "$1" '.facts.libc_sites | group_by([.fn, .site]) |
		all(length == 1)')" = true ]
	[ "$(jqr "$1" '[.facts.libc_sites[].calls] | . == (sort | reverse)')" = true ]
	[ "$(jqr "$1" '.facts.libc_sites[0].calls')" -eq \
		"$(jqr "$2" "$JQ_SITES | map(.calls) | max")" ]
}

# The JSON's script lines merged as the text report merges them; a Ruby
# class method written as Ruby writes it (Date.today), others Cls#method.
JQ_LINES='def ruby_class_method: IN("Date.today", "DateTime.now",
	"Time.now", "Time.at", "Time.local", "Time.mktime",
	"Process.clock_gettime");
	def method_name: if .class == null then .function
	elif "\(.class).\(.function)" | ruby_class_method
	then "\(.class).\(.function)" else "\(.class)#\(.function)" end;
	[.processes[].lang_sites[]] | group_by([.lang, .file, .line,
	.function, .class, .libc_function]) | map({lang: .[0].lang,
	file: .[0].file, line: .[0].line, in: (.[0] | method_name),
	libc_fn: (.[0].libc_function // ""),
	tz: (map(.tz_accesses) | add), clock: (map(.clock_syscalls) | add),
	procs: length})'

# Merged, one row per line, most kernel events first.
lines_merged() {
	jq -S "$JQ_LINES | sort_by(.file, .line, .in, .libc_fn)" "$2" >"$T/want"
	jq -S '.facts.lang_sites | sort_by(.file, .line, .in, .libc_fn)' \
		"$1" >"$T/got"
	diff "$T/want" "$T/got"
	[ "$(jqr "$1" '.facts.lang_sites | group_by([.file, .line, .in,
		.libc_fn]) | all(length == 1)')" = true ]
	[ "$(jqr "$1" '[.facts.lang_sites[] | .tz + .clock] |
		. == (sort | reverse)')" = true ]
	[ "$(jqr "$1" '.facts.lang_sites[0] | .tz + .clock')" -eq \
		"$(jqr "$2" "$JQ_LINES | map(.tz + .clock) | max")" ]
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
	fits_width "$F"
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
	# The pause makes the run span several intervals however fast the
	# machine: the counts, not the loop's speed, decide what is compared.
	env -u TZ "$CT" run -i 0.2 --json -o "$T/r.json" --html "$T/r.html" -- \
		sh -c '"$1" -q -n 20000 -c 1 -s CLOCK_PROCESS_CPUTIME_ID:20000 &&
		sleep 0.7' sh "$TOOLS/tzloop" >/dev/null 2>&1
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
	fits_width "$F"
	jq -S '[.processes[].libc | to_entries[] | select(.value.count > 0) |
		{fn: .key, calls: .value.count, tz: .value.kernel.tz_accesses}] |
		group_by(.fn) | map({fn: .[0].fn, calls: (map(.calls) | add),
		tz: (map(.tz) | add)})' "$T/r.json" >"$T/want"
	jq -S '.facts.libc_fns | sort_by(.fn)' "$F" >"$T/got"
	diff "$T/want" "$T/got"
	[ "$(jqr "$F" '[.facts.libc_fns[].calls] | . == (sort | reverse)')" = true ]
	# tzloop's own loop: tzset and localtime, 300 times in each process.
	[ "$(jqr "$F" '.facts.libc_fns[] | select(.fn == "localtime") | .calls')" -eq 600 ]
	sites_merged "$F" "$T/r.json"
	# The loop's two sites, each run by both processes, with libdw's line.
	[ "$(jqr "$F" '[.facts.libc_sites[] | select(.procs == 2 and
		.calls == 600 and (.source | test("tzloop\\.c:[0-9]+")))] | length')" -eq 2 ]
}

# --libc alone: with --lang too, Ruby 3.1 crashed at start-up in 2 of 8
# runs here (a [BUG] segfault in monitor.rb), reported to the lead.
@test "html: --libc sites of forked Ruby workers under a 200-byte path: merged, module+offset" {
	d=$(long_dir)
	today_rb "$d/today.rb"
	env -u TZ "$CT" run --libc --json -o "$T/r.json" --html "$T/r.html" -- \
		ruby "$d/today.rb" 300 >/dev/null 2>"$T/err" ||
		{ grep -v '^[0-9a-f]*-[0-9a-f]* ' "$T/err" | head -20; false; }
	render "$T/r.html" html-libc-ruby
	F="$T/html-libc-ruby.json"
	clean_page "$F"
	fits_width "$F"
	sites_merged "$F" "$T/r.json"
	# date_core.so has no symbols: the page names its sites as the text
	# report does, never by this run's addresses.
	[ "$(jqr "$F" '.facts.libc_sites[0] | "\(.calls) \(.procs) \(.module)"')" = \
		"900 3 date_core.so" ]
	[[ "$(jqr "$F" '.facts.libc_sites[0].site')" =~ ^date_core\.so\+0x[0-9a-f]+$ ]]
}

@test "html: --lang lines of forked Ruby workers under a 200-byte path, merged" {
	d=$(long_dir)
	today_rb "$d/today.rb"
	env -u TZ "$CT" run --lang --json -o "$T/r.json" --html "$T/r.html" -- \
		ruby --disable-gems "$d/today.rb" 300 >/dev/null 2>&1
	render "$T/r.html" html-lang-ruby
	F="$T/html-lang-ruby.json"
	clean_page "$F"
	fits_width "$F"
	lines_merged "$F" "$T/r.json"
	# The workers' Date.today line first: 300 tz accesses in each of 2.
	[ "$(jqr "$F" '.facts.lang_sites[0] | "\(.line) \(.tz) \(.procs)"')" = \
		"3 600 2" ]
	# As much of the path as --lang reads (LANG_STR_LEN), whole on the page.
	file=$(jqr "$F" '.facts.lang_sites[0].file')
	[ "${#file}" -ge 120 ] && [[ "$d/today.rb" == "$file"* ]]
}

@test "html: --lang script lines of forked Ruby workers, merged as in the text" {
	env -u TZ "$CT" run --lang --json -o "$T/r.json" --html "$T/r.html" -- \
		ruby --disable-gems "$TOOLS/lang/forkers.rb" 40 2 >/dev/null 2>&1
	render "$T/r.html" html-lang
	F="$T/html-lang.json"
	clean_page "$F"
	fits_width "$F"
	lines_merged "$F" "$T/r.json"
	# forkers.rb: each of 3 processes 40 localtime calls, one tz access each.
	[ "$(jqr "$F" '[.facts.lang_sites[] | select(.tz > 0)] |
		map("\(.line) \(.in) \(.tz) \(.procs)") | join(",")')" = \
		"13 block in work 120 3" ]
	# Its clock_gettime line ties with it: 120 kernel events each.
	[ "$(jqr "$F" '.facts.lang_sites[0] | .tz + .clock')" -eq 120 ]
}

@test "html: --lang lines of a Python pool under a 200-byte path, merged" {
	d=$(long_dir)
	cp "$TOOLS/lang/pool.py" "$d/pool.py"
	env -u TZ "$CT" run --lang --json -o "$T/r.json" --html "$T/r.html" -- \
		python3 "$d/pool.py" 200 3 >/dev/null 2>"$T/err"
	render "$T/r.html" html-lang-py
	F="$T/html-lang-py.json"
	clean_page "$F"
	fits_width "$F"
	lines_merged "$F" "$T/r.json"
	# The workload's own count: 3 tasks of 200 mktime calls.
	[ "$(grep role=parent "$T/err" | grep -o 'mktime_calls=[0-9]*')" = mktime_calls=600 ]
	workers=$(grep -o 'role=worker pid=[0-9]*' "$T/err" | sort -u | wc -l)
	line=$(grep -n '^ *time\.mktime(' "$d/pool.py" | cut -d: -f1)
	[ "$(jqr "$F" '.facts.lang_sites[0] | "\(.line) \(.tz) \(.procs)"')" = \
		"$line 600 $workers" ]
	# As much of the path as --lang reads (LANG_STR_LEN), whole on the page.
	file=$(jqr "$F" '.facts.lang_sites[0].file')
	[ "${#file}" -ge 120 ] && [[ "$d/pool.py" == "$file"* ]]
}

@test "html: run --compare fits 1,280 px, one unit per column and figure" {
	d=$(long_dir)
	cp "$TOOLS/tzloop" "$d/tzloop"
	env -u TZ "$CT" run --compare --repeat 2 --json -o "$T/c.json" \
		--html "$T/c.html" -- "$d/tzloop" -q -n 2000 -c 2 2>/dev/null
	render "$T/c.html" html-compare-wide
	F="$T/html-compare-wide.json"
	clean_page "$F"
	fits_width "$F"
	# The table's header states the unit; its cells and the bars are
	# numbers in it, never another unit.
	unit=$(jqr "$F" '.facts.headers[0][3]' | sed -n 's/^Wall (\(.*\))$/\1/p')
	[[ "$unit" =~ ^(ns|us|ms|s)$ ]]
	[ "$(jqr "$F" '.facts.headers[0][4:7] | join("|")')" = \
		"min – max ($unit)|CPU ($unit)|min – max ($unit)" ]
	[ "$(jqr "$F" '[.facts.compare_cells[][] | test("^[0-9.]+( – [0-9.]+)?$")] | all')" = true ]
	[ "$(jqr "$F" '.facts.compare_bars | length')" -eq 6 ]
	[ "$(jq --arg u "$unit" '[.facts.compare_bars[] |
		test("^[0-9.]+ " + $u + "$")] | all' "$F")" = true ]
	# Every bar's number is the table's median of the same row.
	[ "$(jqr "$F" '[.facts.compare_bars[] | split(" ")[0]] | join(",")')" = \
		"$(jqr "$F" '[.facts.compare_cells[][0]] | join(",")')" ]
}

@test "html: two programs, the later the busier: its paths lead the table" {
	d=$(long_dir)
	cp "$TOOLS/tzloop" "$d/tzloop"
	env -u TZ "$CT" run --json -o "$T/r.json" --html "$T/r.html" -- sh -c \
		'"$0" -q -n 5 -c 0 && "$1" -q -n 50 -c 0' "$TOOLS/tzloop" \
		"$d/tzloop" >/dev/null 2>&1
	render "$T/r.html" html-paths
	F="$T/html-paths.json"
	clean_page "$F"
	fits_width "$F"
	# tzloop -c 0: tzset and localtime stat per loop, one open at start;
	# in pid order the quiet one comes first.
	[ "$(jqr "$T/r.json" '[.processes[] | .tz.accesses] | map(select(. > 0)) |
		join(",")')" = 11,101 ]
	[ "$(jqr "$F" '.facts.tz_path_counts | join(",")')" = 100,10,1,1 ]
	# The long image path: shortened on the page, whole in its title.
	[ "$(jq --arg d "$d/tzloop" '[.facts.procs[].exe] |
		map(select(. == $d)) | length' "$F")" -eq 1 ]
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
	fits_width "$F"
	# The time-zone paths table: the most accessed first, as in the JSON.
	[ "$(jqr "$F" '.facts.tz_path_counts | . == (sort | reverse)')" = true ]
	[ "$(jqr "$F" '.facts.tz_path_counts[0]')" -eq \
		"$(jqr "$T/r.json" '[.processes[].tz.paths[]? | .[] | numbers] | max')" ]
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

# flame FILE.html: the page's flame graphs (tests/browser/flame_facts.py).
flame() {
	python3 "$ROOT/tests/browser/flame_facts.py" "$1" >"$T/flame.json"
}

# check_flame ID FIELD: the flame graph ID against the JSON's stacks of
# the same run, FIELD their weight (tz_accesses or clock_syscalls).
check_flame() {
	local g=".graphs[\"$1\"]" total fn want got
	total=$(jqr "$T/r.json" "[.stacks[].$2] | add")
	[ "$(jqr "$T/flame.json" "$g.total")" -eq "$total" ]
	# main: the whole width, the whole weight.
	[ "$(jqr "$T/flame.json" "[$g.frames[] | select(.function == \"main\")] |
		length")" -eq 1 ]
	[ "$(jqr "$T/flame.json" "$g.frames[] | select(.function == \"main\") |
		\"\(.count) \(.x) \(.w)\"")" = "$total 0 1000" ]
	# Every width is its count's share of the 1,000 px (%.3f).
	[ "$(jqr "$T/flame.json" "[$g.frames[] | (.w - .count * 1000 / $total) |
		fabs] | max < 0.001")" = true ]
	# The program's frames: as heavy as the stacks that hold them.
	for fn in do_work run_loop run_simple run_clock_specs spawn_child; do
		want=$(jqr "$T/r.json" "[.stacks[] | select(any(.frames[];
			.function == \"$fn\")) | .$2] | add // 0")
		got=$(jqr "$T/flame.json" "[$g.frames[] |
			select(.function == \"$fn\") | .count] | add // 0")
		echo "$1 $fn: JSON $want, page $got" >&2
		[ "$want" -eq "$got" ]
	done
	# What is not drawn is said: the stacks without do_work here.
	[ "$(jqr "$T/flame.json" "$g.left_out.events")" -eq \
		"$(jqr "$T/r.json" "[.stacks[] | select(all(.frames[];
			.function != \"do_work\")) | .$2] | add // 0")" ]
}

@test "html: --stacks draws a flame graph per kind, widths the JSON's weights" {
	env -u TZ "$CT" run --stacks --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/tzloop" -m localtime -n 2000 -c 2 \
		-s CLOCK_PROCESS_CPUTIME_ID:50 >/dev/null 2>"$T/err"
	flame "$T/r.html"
	[ "$(jqr "$T/flame.json" .scripts)" -eq 0 ]
	run -1 grep -qi '<script' "$T/r.html"
	[ "$(jqr "$T/flame.json" '.graphs | keys | join(" ")')" = \
		"fig-flame-clock fig-flame-tz" ]
	# The workload's own counts: 3 x 2000 localtime, one tzset; 3 x 50.
	[ "$(jqr "$T/flame.json" '.graphs["fig-flame-tz"].total')" -eq 6001 ]
	[ "$(jqr "$T/flame.json" '.graphs["fig-flame-clock"].total')" -eq \
		"$(workload_sum "$T/err" clock_syscalls)" ]
	check_flame fig-flame-tz tz_accesses
	check_flame fig-flame-clock clock_syscalls
	# Inlined calls are frames of their own, and say so.
	[ "$(jqr "$T/flame.json" '[.graphs[].frames[] |
		select(.function == "run_loop") | .inlined] | unique | join(" ")')" = true ]
	[ "$(jqr "$T/flame.json" '[.graphs[].frames[] |
		select(.function == "do_work") | .inlined] | unique | join(" ")')" = false ]
	jqr "$T/flame.json" '.graphs["fig-flame-tz"].frames[] |
		select(.function == "do_work") | .title' | grep -q '^tzloop+0x[0-9a-f]*$'
}

@test "html: a flame graph's hostile module name stays text; no --stacks, no graph" {
	name=$(printf '<img src=x>"&\033')
	cp "$TOOLS/tzloop" "$T/$name"
	env -u TZ "$CT" run --stacks --json -o "$T/r.json" --html "$T/r.html" -- \
		"$T/$name" -m localtime -n 3000 -c 0 >/dev/null 2>"$T/err"
	flame "$T/r.html"
	[ "$(jqr "$T/flame.json" .scripts)" -eq 0 ]
	# Unescaped by the parser, the title names the module as the JSON does.
	[ "$(jqr "$T/r.json" '.stacks[0].frames[-1].module')" = '<img src=x>"&\x1b' ]
	off=$(jqr "$T/r.json" '.stacks[0].frames[] |
		select(.function == "do_work") | .offset')
	jqr "$T/flame.json" '.graphs["fig-flame-tz"].frames[] |
		select(.function == "do_work") | .title' |
		grep -qxF "<img src=x>\"&\\x1b+0x$(printf '%x' "$off")"
	run -1 grep -q '<img' "$T/r.html"
	run -1 grep -q "$(printf '\033')" "$T/r.html"
	env -u TZ "$CT" run --json -o "$T/r.json" --html "$T/r.html" -- \
		"$TOOLS/tzloop" -m localtime -n 100 -c 0 >/dev/null 2>&1
	flame "$T/r.html"
	[ "$(jqr "$T/flame.json" '.graphs | length')" -eq 0 ]
	[ "$(jqr "$T/flame.json" '.sections | index("stacks")')" = null ]
}
