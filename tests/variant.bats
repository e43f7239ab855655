#!/usr/bin/env bats

bats_require_minimum_version 1.5.0
# The fallback variants older kernels load (Linux 5.10: no task storage for
# tracing programs, no bpf_loop, no compare-and-swap), forced here with the
# CLOCKTRACE_NO_* knobs so that this kernel runs them too: exact counts.

load helpers

FALLBACKS="TASK_STORAGE BPF_LOOP CMPXCHG RUNTIME_ALLOC"

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# The knob's feature name in the JSON report.
feature_of() {
	echo "$1" | tr 'A-Z' 'a-z'
}

@test "variant: each fallback alone counts forktree exactly and the report names it" {
	for knob in $FALLBACKS; do
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/r.json" -- \
			"$TOOLS/forktree" -D 2 -W 3 -k 7 -o 2 \
			-s CLOCK_PROCESS_CPUTIME_ID:11 2>"$T/err"
		forktree_exact
		[ "$(jqr "$T/r.json" ".kernel.features.$(feature_of "$knob")")" = false ]
		[ "$(jqr "$T/r.json" '.kernel.release')" = "$(uname -r)" ]
	done
}

@test "variant: all fallbacks at once (what Linux 5.10 loads) count exactly" {
	CLOCKTRACE_NO_TASK_STORAGE=1 CLOCKTRACE_NO_BPF_LOOP=1 CLOCKTRACE_NO_CMPXCHG=1 \
		CLOCKTRACE_NO_RUNTIME_ALLOC=1 		"$CT" run --json -o "$T/r.json" -- "$TOOLS/forktree" -D 2 -W 3 -k 7 \
		-o 2 -s CLOCK_PROCESS_CPUTIME_ID:11 2>"$T/err"
	forktree_exact
	jq -e '.kernel.features | .task_storage == false and .bpf_loop == false and
		.cmpxchg == false and .runtime_alloc == false' "$T/r.json"
	CLOCKTRACE_NO_TASK_STORAGE=1 CLOCKTRACE_NO_BPF_LOOP=1 CLOCKTRACE_NO_CMPXCHG=1 \
		CLOCKTRACE_NO_RUNTIME_ALLOC=1 		"$CT" run -- "$TOOLS/forktree" -D 0 -k 1 2>"$T/text"
	grep -q "threads in a hash map, bounded environment loop, plain min/max, preallocated maps" "$T/text"
}

@test "variant: per-thread state in a hash map times every thread's syscalls" {
	CLOCKTRACE_NO_TASK_STORAGE=1 "$CT" run --json -o "$T/r.json" -- \
		"$TOOLS/clockthreads" -t 8 -n 4000 -g -r 2>/dev/null
	[ "$(jqr "$T/r.json" '.processes | length')" -eq 1 ]
	for k in gettimeofday clock_getres; do
		[ "$(jqr "$T/r.json" ".processes[0].clock.$k.count")" -eq 32000 ]
	done
	[ "$(jqr "$T/r.json" '.losses.thread_state // 0')" -eq 0 ]
}

# Linux < 6.1 WARNs when a tracing program's hash map allocates at run
# time: there every hash map is created at its full size.
@test "variant: without the BPF memory allocator the hash maps are preallocated, counts exact" {
	CLOCKTRACE_NO_RUNTIME_ALLOC=1 "$CT" run --json -o "$T/r.json" -- \
		"$TOOLS/misbehave" waitsig -k 50 > "$T/ready" 2> "$T/wl" &
	ct=$!
	for _ in $(seq 200); do
		grep -q ready "$T/ready" 2>/dev/null && break
		sleep 0.05
	done
	# The maps clocktrace holds: every hash map has no BPF_F_NO_PREALLOC.
	awk '$1 == "map_id:" {print $2}' /proc/"$ct"/fdinfo/* 2>/dev/null |
		sort -u > "$T/ids"
	[ -s "$T/ids" ]
	hashes=0
	while read -r id; do
		bpftool map show id "$id" -j > "$T/map"
		[ "$(jq -r .type "$T/map")" = hash ] || continue
		hashes=$((hashes + 1))
		[ "$(jq .flags "$T/map")" -eq 0 ]
	done < "$T/ids"
	[ "$hashes" -ge 5 ]
	kill -USR1 "$(pgrep -P "$ct" misbehave)"
	wait "$ct"
	[ "$(jqr "$T/r.json" '.kernel.features.runtime_alloc')" = false ]
	[ "$(jqr "$T/r.json" '[.processes[].tz.paths["/etc/localtime"].stat] | add')" -eq \
		"$(workload_sum "$T/wl" tz_stat)" ]
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 250 ]
}

@test "variant: without compare-and-swap, histograms still sum to the count and min <= max" {
	CLOCKTRACE_NO_CMPXCHG=1 "$CT" run --json -o "$T/r.json" -- \
		"$TOOLS/clockthreads" -t 4 -n 3000 2>/dev/null
	jq -e '.processes[0].clock.clock_gettime as $c |
		($c.hist | map(.count) | add) == $c.count and $c.count == 12000 and
		$c.min_ns > 0 and $c.min_ns <= $c.max_ns and
		$c.total_ns >= $c.min_ns * $c.count' "$T/r.json"
}

@test "variant: the bounded environment loop reads TZ=:file and TZDIR as bpf_loop does" {
	mkdir -p "$T/zones"
	cp /usr/share/zoneinfo/UTC "$T/zones/My_Zone"
	# NONE: no such knob, the variant this kernel picks.
	for knob in NONE BPF_LOOP; do
		env "CLOCKTRACE_NO_$knob=1" TZ=":$T/zones/My_Zone" "$CT" run --json \
			-o "$T/r.json" -- "$TOOLS/forktree" -D 0 -k 3 -P "$T/zones/My_Zone" 2>/dev/null
		[ "$(jqr "$T/r.json" ".processes[0].tz.paths[\"$T/zones/My_Zone\"].stat")" -eq 3 ]
		env "CLOCKTRACE_NO_$knob=1" TZDIR="$T/zones" "$CT" run --json \
			-o "$T/d.json" -- "$TOOLS/forktree" -D 0 -k 2 -P "$T/zones/My_Zone" 2>/dev/null
		[ "$(jqr "$T/d.json" ".processes[0].tz.paths[\"$T/zones/My_Zone\"].stat")" -eq 2 ]
	done
}

@test "variant: both loops read 1,024 environment entries; a TZ beyond them is a stated loss" {
	cp /usr/share/zoneinfo/UTC "$T/zone"
	# NONE: no such knob, the variant this kernel picks.
	for knob in NONE BPF_LOOP; do
		# TZ is entry 1,024: read.  Then entry 1,025: not read, counted.
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/in.json" -- \
			env -i $(printf 'V%d=x ' $(seq 1023)) TZ=":$T/zone" \
			"$TOOLS/forktree" -D 0 -k 4 -P "$T/zone" 2>/dev/null
		[ "$(jq "[.processes[].tz.paths[\"$T/zone\"].stat // 0] | add" "$T/in.json")" -eq 4 ]
		[ "$(jqr "$T/in.json" '.losses.tz_paths_unwatched // 0')" -eq 0 ]
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/out.json" -- \
			env -i $(printf 'V%d=x ' $(seq 1024)) TZ=":$T/zone" \
			"$TOOLS/forktree" -D 0 -k 4 -P "$T/zone" 2>/dev/null
		[ "$(jq "[.processes[].tz.paths[\"$T/zone\"].stat // 0] | add" "$T/out.json")" -eq 0 ]
		[ "$(jqr "$T/out.json" '.losses.tz_paths_unwatched')" -ge 1 ]
	done
}

# NAME=xxx...: an environment entry of $2 bytes, its NUL included.
env_entry() {
	printf '%s=%s' "$1" "$(head -c $(($2 - ${#1} - 2)) /dev/zero | tr '\0' x)"
}

# $T/zone and $T/zones/My_Zone, each stat'ed 3 times under the environment
# "$@" (and only that): the TZ=:file or TZDIR in it must be found, no loss.
tz_found_in_env() {
	env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/e.json" -- \
		env -i "$@" "$TOOLS/forktree" -D 0 -k 3 -P "$T/zone" 2>/dev/null
	env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/d.json" -- \
		env -i "${@/#TZ=:$T\/zone/TZDIR=$T/zones}" "$TOOLS/forktree" \
		-D 0 -k 3 -P "$T/zones/My_Zone" 2>/dev/null
	[ "$(jq "[.processes[].tz.paths[\"$T/zone\"].stat // 0] | add" "$T/e.json")" -eq 3 ]
	[ "$(jq "[.processes[].tz.paths[\"$T/zones/My_Zone\"].stat // 0] | add" "$T/d.json")" -eq 3 ]
	[ "$(jqr "$T/e.json" '.processes[] | select(.comm == "forktree") | .tz_env')" = ":$T/zone" ]
	[ "$(jqr "$T/e.json" '.losses.tz_paths_unwatched')" -eq 0 ]
	[ "$(jqr "$T/d.json" '.losses.tz_paths_unwatched')" -eq 0 ]
}

# The environment is looked at in one copy of ENV_BLOCK_LEN (20 KiB) bytes;
# the walk, one entry per read, takes over where the copy cannot say.
@test "variant: TZ=:file and TZDIR first, last, past the 20 KiB copy, across its end, after a 5 KB entry" {
	cp /usr/share/zoneinfo/UTC "$T/zone"
	mkdir -p "$T/zones"
	cp /usr/share/zoneinfo/UTC "$T/zones/My_Zone"
	big=()
	for i in $(seq 30); do big+=("$(env_entry B$i 1000)"); done
	# 5 x 4,000 + 475 bytes: the next entry starts 5 bytes before the end.
	edge=()
	for i in $(seq 5); do edge+=("$(env_entry P$i 4000)"); done
	edge+=("$(env_entry Q 475)")
	for knob in NONE BPF_LOOP; do
		tz_found_in_env "TZ=:$T/zone" A=1 B=2
		tz_found_in_env A=1 B=2 "TZ=:$T/zone"
		tz_found_in_env "TZ=:$T/zone"
		tz_found_in_env "${big[@]}" "TZ=:$T/zone" Z=1
		tz_found_in_env "${edge[@]}" "TZ=:$T/zone"
		tz_found_in_env A=1 "$(env_entry L 5000)" "TZ=:$T/zone"
	done
}

@test "variant: the copy and the walk share the 1,024 entries: TZ as entry 1,024 is read, 1,025 a stated loss" {
	cp /usr/share/zoneinfo/UTC "$T/zone"
	# 1,023 entries of 32 bytes: 32 KiB, more than the copy holds.
	long=()
	for i in $(seq 1024); do long+=("$(env_entry V$i 32)"); done
	for knob in NONE BPF_LOOP; do
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/in.json" -- \
			env -i "${long[@]:0:1023}" TZ=":$T/zone" \
			"$TOOLS/forktree" -D 0 -k 4 -P "$T/zone" 2>/dev/null
		[ "$(jq "[.processes[].tz.paths[\"$T/zone\"].stat // 0] | add" "$T/in.json")" -eq 4 ]
		[ "$(jqr "$T/in.json" '.losses.tz_paths_unwatched // 0')" -eq 0 ]
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --json -o "$T/out.json" -- \
			env -i "${long[@]}" TZ=":$T/zone" \
			"$TOOLS/forktree" -D 0 -k 4 -P "$T/zone" 2>/dev/null
		[ "$(jq "[.processes[].tz.paths[\"$T/zone\"].stat // 0] | add" "$T/out.json")" -eq 0 ]
		[ "$(jqr "$T/out.json" '.losses.tz_paths_unwatched')" -ge 1 ]
	done
}

@test "variant: doctor names each forced fallback, loads it, and run agrees" {
	for knob in $FALLBACKS; do
		f=$(feature_of "$knob")
		run env "CLOCKTRACE_NO_$knob=1" "$CT" doctor --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e --arg c "variant $f" --arg k "CLOCKTRACE_NO_$knob" \
			'.can_trace and (.checks[] | select(.check == $c) |
			.status == "ok" and (.detail | startswith("no (turned off by " + $k + ")")))'
		echo "$output" | jq -e '.checks[] | select(.check == "bpf object") | .status == "ok"'
	done
}

@test "variant: without attach cookies (one entry program per function), --libc counts exactly" {
	for knob in NONE LIBC_HELPERS; do
		env "CLOCKTRACE_NO_$knob=1" "$CT" run --libc --json -o "$T/r.json" -- \
			"$TOOLS/tzloop" -n 300 -c 2 >/dev/null 2>"$T/err"
		sed -n 's/^WORKLOAD pid=\([0-9]*\) .* tzset_calls=\([0-9]*\) .* localtime_calls=\([0-9]*\) .*/\1 \2 \3/p' \
			"$T/err" > "$T/want"
		[ "$(wc -l < "$T/want")" -eq 3 ]
		while read -r pid tzset localtime; do
			got=$(jq -r --argjson p "$pid" '.processes[] | select(.pid == $p) |
				"\(.libc.tzset.count) \(.libc.localtime.count)"' "$T/r.json")
			[ "$got" = "$tzset $localtime" ]
		done < "$T/want"
		[ "$(jqr "$T/r.json" '[.processes[].libc.tzset.count] | add')" -eq 901 ]
	done
	[ "$(jqr "$T/r.json" '.kernel.features.libc_helpers')" = false ]
	run env CLOCKTRACE_NO_LIBC_HELPERS=1 "$CT" doctor
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok    variant libc_helpers: no (turned off by CLOCKTRACE_NO_LIBC_HELPERS): --libc has one entry program per function"* ]]
	[ "$(our_progs)" -eq 0 ]
}

@test "variant: what run reports it loaded is what doctor says this kernel runs" {
	"$CT" doctor --json > "$T/doctor.json"
	"$CT" run --json -o "$T/r.json" -- true
	for f in task_storage bpf_loop cmpxchg libc_helpers runtime_alloc; do
		want=$(jq -r --arg c "variant $f" '.checks[] | select(.check == $c) |
			.detail | startswith("yes")' "$T/doctor.json")
		[ "$(jqr "$T/r.json" ".kernel.features.$f")" = "$want" ]
	done
}

@test "variant: no BPF program of ours is left after fallback runs" {
	CLOCKTRACE_NO_TASK_STORAGE=1 CLOCKTRACE_NO_BPF_LOOP=1 CLOCKTRACE_NO_CMPXCHG=1 \
		CLOCKTRACE_NO_RUNTIME_ALLOC=1 		"$CT" run -o /dev/null -- true
	[ "$(our_progs)" -eq 0 ]
}
