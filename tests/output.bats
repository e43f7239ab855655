#!/usr/bin/env bats
# Where reports go (issue 13, items 3 and 6): every write is checked, a
# report is renamed into place whole, a failed run keeps the old file, and
# -o never follows a symbolic link another user planted on its path.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	TMP=$(mktemp -d)
	MNT=
}

teardown() {
	[ -n "$MNT" ] && umount "$MNT"
	rm -rf "$TMP"
}

# Nothing but NAMES... in DIR: no temporary file left behind.
only_files() {
	local dir=$1
	shift
	[ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]
}

one_line_125() {
	echo "status $status: $output"
	[ "$status" -eq 125 ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
	[[ "$output" == clocktrace:* ]]
}

@test "-o /dev/full: 125 and one line, for run, attach, top and bench" {
	run "$CT" run --json -o /dev/full -- true
	one_line_125
	[[ "$output" == *"/dev/full: No space left on device"* ]]
	# A target without children (the shell's would add attach's hint line).
	sleep 5 &
	run "$CT" attach -p $! -d 0.3 -o /dev/full
	kill $!
	one_line_125
	run "$CT" top -n 1 -i 0.2 -o /dev/full
	one_line_125
	run "$CT" bench -c monotonic -d 0.01 -o /dev/full
	one_line_125
	# PROG's own failure does not hide the lost report either.
	run "$CT" run -o /dev/full -- sh -c 'exit 3'
	one_line_125
}

@test "report on stderr, stderr is /dev/full: 125, not PROG's 0" {
	st=0
	"$CT" run --json -- true 2>/dev/full || st=$?
	[ "$st" -eq 125 ]
	st=0
	"$CT" top -n 1 -i 0.2 >/dev/full || st=$?
	[ "$st" -eq 125 ]
	# The same run with a working stderr succeeds (the check can fail).
	"$CT" run --json -- true 2>"$TMP/err"
	jq -e .version "$TMP/err"
}

@test "a full file system (64 KiB tmpfs): 125, one line, old report kept, no temporary file" {
	MNT="$TMP/small"
	mkdir "$MNT"
	mount -t tmpfs -o size=64k tmpfs "$MNT"
	echo previous >"$MNT/r.json"
	dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null || true
	run "$CT" run --json -o "$MNT/r.json" -- true
	one_line_125
	[[ "$output" == *"No space left on device"* ]]
	[ "$(cat "$MNT/r.json")" = previous ]
	only_files "$MNT" fill r.json
	# With room again the same command writes a whole, valid report.
	rm "$MNT/fill"
	run "$CT" run --json -o "$MNT/r.json" -- true
	[ "$status" -eq 0 ]
	jq -e '.processes | length == 1' "$MNT/r.json"
	only_files "$MNT" r.json
}

@test "a run that fails keeps the existing file: PROG not found, a second ^C" {
	echo previous >"$TMP/prev.txt"
	run -127 "$CT" run -o "$TMP/prev.txt" -- /nonexistent
	[ "$(cat "$TMP/prev.txt")" = previous ]
	only_files "$TMP" prev.txt
	# Stopped by a second ^C: no report, so nothing replaces the file.
	env --default-signal=INT "$CT" run -o "$TMP/prev.txt" -- \
		sh -c 'trap "" INT; sleep 3' 3>&- &
	ct=$!
	sleep 0.8
	kill -INT "$ct"
	sleep 0.2
	kill -INT "$ct"
	st=0
	wait "$ct" || st=$?
	[ "$st" -eq 130 ]
	[ "$(cat "$TMP/prev.txt")" = previous ]
	only_files "$TMP" prev.txt
}

@test "a reader never sees half a report: without -i the file appears whole, at the end" {
	echo previous >"$TMP/r.txt"
	"$CT" run -o "$TMP/r.txt" -- sleep 1.5 &
	ct=$!
	sleep 0.8
	# Mid-run: the old file, untouched, and one hidden temporary file.
	[ "$(cat "$TMP/r.txt")" = previous ]
	[ "$(ls -A "$TMP" | grep -c '^\.r\.txt\..*\.tmp$')" -eq 1 ]
	wait "$ct"
	grep -q '^PROCESSES' "$TMP/r.txt"
	only_files "$TMP" r.txt
}

@test "clocktrace SIGKILLed mid-run: the old report stays, the temporary file goes" {
	echo previous >"$TMP/r.txt"
	"$CT" run -o "$TMP/r.txt" -- sleep 2 &
	ct=$!
	sleep 0.8
	kill -9 "$ct"
	wait "$ct" || true
	for _ in $(seq 50); do
		only_files "$TMP" r.txt && break
		sleep 0.1
	done
	only_files "$TMP" r.txt
	[ "$(cat "$TMP/r.txt")" = previous ]
}

@test "OpenMetrics -i: each exposition replaces the file whole (a reader sees no partial one)" {
	"$CT" attach -p $$ -i 0.02 --format openmetrics -o "$TMP/m.prom" &
	ct=$!
	reads=0 bad=0
	# 200 reads, however long a busy machine takes, then SIGTERM (which
	# writes the last exposition): a count, not a window of seconds.
	while [ "$reads" -lt 200 ] && kill -0 "$ct" 2>/dev/null; do
		if [ -e "$TMP/m.prom" ]; then
			content=$(<"$TMP/m.prom")
			reads=$((reads + 1))
			if [[ "$content" != "# TYPE"* || "$content" != *"# EOF" ]]; then
				bad=$((bad + 1))
			fi
		fi
	done
	kill -TERM "$ct"
	wait "$ct"
	echo "reads $reads, partial $bad"
	[ "$reads" -eq 200 ]
	[ "$bad" -eq 0 ]
	only_files "$TMP" m.prom
}

@test "-i in JSON is a log: the file appears with the first report, then grows report by report" {
	echo previous >"$TMP/log.json"
	sleep 10 &
	target=$!
	"$CT" attach -p "$target" -d 3 -i 1 --json -o "$TMP/log.json" &
	ct=$!
	sleep 0.3
	# Before any report: the old file, as it was.
	[ "$(cat "$TMP/log.json")" = previous ]
	for _ in $(seq 100); do
		[ "$(head -c 8 "$TMP/log.json")" != previous ] && break
		sleep 0.05
	done
	# The first interval report, whole, while attach still runs.
	kill -0 "$ct"
	first=$(jq -s 'length' "$TMP/log.json")
	[ "$first" -ge 1 ]
	wait "$ct"
	# More intervals (as many as a busy machine ran), then the totals;
	# nothing else in the directory.
	[ "$(jq -s 'length' "$TMP/log.json")" -gt "$first" ]
	jq -s -e ".[-1].processes[0].pid == $target" "$TMP/log.json"
	kill "$target"
	only_files "$TMP" log.json
}

@test "-o - and -o /dev/stdout write to standard output; no file named -" {
	cd "$TMP"
	run --separate-stderr "$CT" run --json -o - -- true
	[ "$status" -eq 0 ]
	echo "$output" | jq -e .version
	[ ! -e "$TMP/-" ]
	run --separate-stderr "$CT" run --json -o /dev/stdout -- true
	[ "$status" -eq 0 ]
	echo "$output" | jq -e .version
	"$CT" run --json -o /dev/stderr -- true 2>"$TMP/err"
	jq -e .version "$TMP/err"
	"$CT" run --json -o /dev/fd/5 -- true 5>"$TMP/fd5"
	jq -e .version "$TMP/fd5"
}

@test "ownership: a new report is the sudo user's, a replaced one keeps owner and mode" {
	# A directory only its owner may write: after clocktrace drops its
	# capabilities, uid 0 could not rename there itself.
	mkdir "$TMP/home"
	chown nobody:nogroup "$TMP/home"
	chmod 0755 "$TMP/home"
	SUDO_UID=65534 SUDO_GID=65534 "$CT" run -o "$TMP/home/new.txt" -- true
	[ "$(stat -c '%U %a' "$TMP/home/new.txt")" = "nobody 644" ]
	echo old >"$TMP/home/kept.txt"
	chown 1234:1234 "$TMP/home/kept.txt"
	chmod 0600 "$TMP/home/kept.txt"
	SUDO_UID=65534 SUDO_GID=65534 "$CT" attach -p $$ -d 0.6 -i 0.2 \
		--format openmetrics -o "$TMP/home/kept.txt"
	[ "$(stat -c '%u:%g %a' "$TMP/home/kept.txt")" = "1234:1234 600" ]
	grep -q '^# EOF' "$TMP/home/kept.txt"
	only_files "$TMP/home" new.txt kept.txt
}

@test "-o through a directory symlink another user planted in a sticky world-writable dir: 125" {
	mkdir -m 1777 "$TMP/shared"
	mkdir -m 0700 "$TMP/rootonly"
	echo secret >"$TMP/rootonly/victim.conf"
	ln -s "$TMP/rootonly" "$TMP/shared/reports"
	chown -h nobody:nogroup "$TMP/shared/reports"
	run "$CT" run -o "$TMP/shared/reports/victim.conf" -- true
	one_line_125
	[[ "$output" == *"symbolic link"*"uid 65534"* ]]
	[ "$(cat "$TMP/rootonly/victim.conf")" = secret ]
	only_files "$TMP/rootonly" victim.conf
	# Deeper on the path, and through "..", it is refused as well.
	mkdir "$TMP/rootonly/sub"
	run "$CT" run -o "$TMP/shared/reports/sub/../victim.conf" -- true
	one_line_125
	[ "$(cat "$TMP/rootonly/victim.conf")" = secret ]
}

@test "-o through symlinks protected_symlinks would follow: ours, the dir owner's, outside sticky dirs" {
	mkdir -m 1777 "$TMP/shared"
	mkdir "$TMP/dest"
	# Our own link in the sticky directory.
	ln -s "$TMP/dest" "$TMP/shared/mine"
	"$CT" run -o "$TMP/shared/mine/a.txt" -- true
	grep -q '^PROCESSES' "$TMP/dest/a.txt"
	# Another user's link in a directory that is not world-writable sticky.
	mkdir "$TMP/plain"
	ln -s ../dest "$TMP/plain/theirs"
	chown -h nobody:nogroup "$TMP/plain/theirs"
	"$CT" run -o "$TMP/plain/theirs/b.txt" -- true
	grep -q '^PROCESSES' "$TMP/dest/b.txt"
	# A link owned by the sticky directory's owner.
	mkdir -m 1777 "$TMP/theirdir"
	chown nobody "$TMP/theirdir"
	ln -s "$TMP/dest" "$TMP/theirdir/owners"
	chown -h nobody "$TMP/theirdir/owners"
	"$CT" run -o "$TMP/theirdir/owners/c.txt" -- true
	grep -q '^PROCESSES' "$TMP/dest/c.txt"
}

@test "-o to a file or FIFO another user planted in a sticky world-writable dir: 125, left alone" {
	mkdir -m 1777 "$TMP/shared"
	echo theirs >"$TMP/shared/r.txt"
	chown nobody "$TMP/shared/r.txt"
	run "$CT" run -o "$TMP/shared/r.txt" -- true
	one_line_125
	[[ "$output" == *"belongs to uid 65534"* ]]
	[ "$(cat "$TMP/shared/r.txt")" = theirs ]
	# A FIFO would block the root tracer until someone reads it.
	mkfifo "$TMP/shared/fifo"
	chown nobody "$TMP/shared/fifo"
	run timeout 10 "$CT" run -o "$TMP/shared/fifo" -- true
	one_line_125
	# The sudo user's own file there is theirs to replace.
	SUDO_UID=65534 SUDO_GID=65534 "$CT" run -o "$TMP/shared/r.txt" -- true
	grep -q '^PROCESSES' "$TMP/shared/r.txt"
	[ "$(stat -c %U "$TMP/shared/r.txt")" = nobody ]
	only_files "$TMP/shared" r.txt fifo
}
