#!/usr/bin/env bats
# Shipping clocktrace (issue 8): a binary that needs only the C library,
# the man page, bash completion, make install/uninstall and the Debian
# package.  The chroot portability check is `make chroot-test`, not here:
# it downloads a base system.

load helpers

# What make install and make deb ship (CLOCKTRACE_BIN may be a sanitizer
# build, which links libasan: not the one to check for dependencies).
SHIPPED="$ROOT/clocktrace"
MAN="$ROOT/docs/clocktrace.8"
COMPLETION="$ROOT/completion/clocktrace.bash"
COMMANDS="run attach top bench doctor"

# make in the source tree; CLOCKTRACE_MAKEFILE tries another Makefile.
mk() {
	make -C "$ROOT" --no-print-directory \
		${CLOCKTRACE_MAKEFILE:+-f "$CLOCKTRACE_MAKEFILE"} "$@"
}

# The package of ARCH (default: this machine's) that `make deb` just said it
# built ("built PATH (...)").
built_deb() {
	local rel arch=${1:-$(dpkg --print-architecture)}
	rel=$(echo "$output" | sed -n "s/^built \(.*_$arch\.deb\) .*/\1/p")
	[ -n "$rel" ] && [ -f "$ROOT/$rel" ] && echo "$ROOT/$rel"
}

# The long options `clocktrace CMD --help` lists, one per line, sorted.
help_long_opts() {
	"$CT" "$1" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u
}

# Completion candidates for a command line whose last word is being
# completed, one per line, sorted.
complete_words() {
	# shellcheck disable=SC1090
	source "$COMPLETION"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_clocktrace
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}

setup() {
	TMP=$(mktemp -d)
}

teardown() {
	[ -n "${COMM_PID:-}" ] && kill "$COMM_PID" 2>/dev/null
	if [ -n "${CG:-}" ]; then
		rmdir "$mnt/system.slice/$CG.service" "$mnt/$CG/inner" "$mnt/$CG"
		[ -z "${MADE_SLICE:-}" ] || rmdir "$mnt/system.slice"
	fi
	rm -rf "$TMP"
}

@test "package: the binary needs no libbpf, libelf or libz, only the C library" {
	run ldd "$SHIPPED"
	[ "$status" -eq 0 ]
	if echo "$output" | grep -Ei 'libbpf|libelf|libz\.|libzstd|libdw'; then
		false
	fi
	# Whatever is left is glibc itself.
	extra=$(echo "$output" | grep -Ev 'linux-vdso|libc\.so|libm\.so|ld-linux' || true)
	[ -z "$extra" ] || { echo "also needs: $extra"; false; }
}

@test "package: the man page renders with no warnings" {
	MANWIDTH=80 man --warnings -l "$MAN" >"$TMP/page" 2>"$TMP/warnings"
	cat "$TMP/warnings"
	[ ! -s "$TMP/warnings" ]
	grep -q '^NAME' "$TMP/page"
	grep -q '^EXIT STATUS' "$TMP/page"
}

@test "package: the man page names every command, option and finding" {
	missing=""
	for cmd in $COMMANDS; do
		grep -q "^\.B $cmd\$" "$MAN" || missing+=" command:$cmd"
		for opt in $(help_long_opts "$cmd"); do
			# roff spells - as \-.
			grep -qF -- "${opt//-/\\-}" "$MAN" || missing+=" $cmd:$opt"
		done
	done
	for id in $(grep -oE 'add\(out, "[a-z-]+"' "$ROOT/user/core/findings.c" |
		    cut -d'"' -f2); do
		grep -qF -- "${id//-/\\-}" "$MAN" || missing+=" finding:$id"
	done
	for field in version mode command duration_ns exit lost_events processes \
		     pid ppid depth comm exe clock count errors total_ns min_ns \
		     max_ns hist lo_ns hi_ns clock_ids tz accesses paths findings \
		     id severity pids message fix; do
		grep -qF "\\fB$field\\fP" "$MAN" || grep -qx "\.B $field" "$MAN" ||
			missing+=" json:$field"
	done
	[ -z "$missing" ] || { echo "not in the man page:$missing"; false; }
}

@test "package: make install and make uninstall (DESTDIR, PREFIX=/usr/local)" {
	run mk install DESTDIR="$TMP/root" PREFIX=/usr/local
	echo "$output"
	[ "$status" -eq 0 ]
	(cd "$TMP/root" && find . -type f | sort) >"$TMP/files"
	cat >"$TMP/want" <<-EOF
	./etc/default/clocktrace-exporter
	./usr/local/lib/systemd/system/clocktrace-exporter.service
	./usr/local/sbin/clocktrace
	./usr/local/share/bash-completion/completions/clocktrace
	./usr/local/share/man/man8/clocktrace.8
	EOF
	diff "$TMP/want" "$TMP/files"
	[ -x "$TMP/root/usr/local/sbin/clocktrace" ]
	"$TMP/root/usr/local/sbin/clocktrace" --help | grep -q '^Usage: clocktrace'
	grep -qx 'ExecStart=/usr/local/sbin/clocktrace $CLOCKTRACE_ARGS --listen ${CLOCKTRACE_LISTEN} -o /dev/null' \
		"$TMP/root/usr/local/lib/systemd/system/clocktrace-exporter.service"
	# An admin's config survives make install and make uninstall.
	echo 'CLOCKTRACE_LISTEN=127.0.0.1:1' >>"$TMP/root/etc/default/clocktrace-exporter"
	cp "$TMP/root/etc/default/clocktrace-exporter" "$TMP/edited"
	mk install DESTDIR="$TMP/root" PREFIX=/usr/local
	cmp "$TMP/edited" "$TMP/root/etc/default/clocktrace-exporter"
	mk uninstall DESTDIR="$TMP/root" PREFIX=/usr/local
	[ "$(find "$TMP/root" ! -type d)" = "$TMP/root/etc/default/clocktrace-exporter" ]
	rm "$TMP/root/etc/default/clocktrace-exporter"
	mk install DESTDIR="$TMP/root" PREFIX=/usr/local
	MANWIDTH=80 man -l "$TMP/root/usr/local/share/man/man8/clocktrace.8" |
		grep -q CLOCKTRACE

	run mk uninstall DESTDIR="$TMP/root" PREFIX=/usr/local
	echo "$output"
	[ "$status" -eq 0 ]
	left=$(find "$TMP/root" ! -type d)
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "package: make deb lists the files and depends only on libc6" {
	run mk deb
	echo "$output"
	[ "$status" -eq 0 ]
	deb=$(built_deb)
	dpkg-deb --contents "$deb" | awk '{print $NF}' >"$TMP/contents"
	for f in ./usr/sbin/clocktrace ./usr/share/man/man8/clocktrace.8.gz \
		 ./usr/share/bash-completion/completions/clocktrace \
		 ./usr/share/doc/clocktrace/copyright \
		 ./usr/lib/systemd/system/clocktrace-exporter.service \
		 ./etc/default/clocktrace-exporter; do
		grep -qxF "$f" "$TMP/contents" || { echo "no $f"; false; }
	done
	dpkg-deb --info "$deb" conffiles | grep -qx /etc/default/clocktrace-exporter
	depends=$(dpkg-deb -f "$deb" Depends)
	echo "Depends: $depends"
	[[ $depends =~ ^libc6(\ \(\>=\ [0-9.]+\))?$ ]]
	[ "$(dpkg-deb -f "$deb" Package)" = clocktrace ]
	dpkg-deb -f "$deb" Version | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+'
}

@test "package: make deb also builds the arm64 package: an aarch64 binary that needs only libc6" {
	run mk deb
	echo "$output"
	[ "$status" -eq 0 ]
	deb=$(built_deb arm64)
	[ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ]
	[[ $(dpkg-deb -f "$deb" Depends) =~ ^libc6(\ \(\>=\ [0-9.]+\))?$ ]]
	dpkg-deb -x "$deb" "$TMP/arm64"
	LC_ALL=C readelf -h "$TMP/arm64/usr/sbin/clocktrace" | grep -q 'Machine: *AArch64'
	needed=$(LC_ALL=C readelf -d "$TMP/arm64/usr/sbin/clocktrace" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
	[ "$needed" = "ld-linux-aarch64.so.1 libc.so.6 libm.so.6 " ]
}

@test "package: the deb installs its files and its removal takes them away" {
	run mk deb
	[ "$status" -eq 0 ]
	deb=$(built_deb)
	# A scratch dpkg database: the machine's own is left alone.  It has
	# no libc6 entry, hence --force-depends.
	mkdir -p "$TMP/r/var/lib/dpkg/info" "$TMP/r/var/lib/dpkg/updates"
	touch "$TMP/r/var/lib/dpkg/status"
	run dpkg --root="$TMP/r" --log=/dev/null --force-depends -i "$deb"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$TMP/r/usr/sbin/clocktrace" ]
	[ -f "$TMP/r/usr/share/man/man8/clocktrace.8.gz" ]
	[ -f "$TMP/r/usr/share/bash-completion/completions/clocktrace" ]
	[ -f "$TMP/r/usr/lib/systemd/system/clocktrace-exporter.service" ]
	[ -f "$TMP/r/etc/default/clocktrace-exporter" ]
	run dpkg --root="$TMP/r" --log=/dev/null --purge clocktrace
	echo "$output"
	[ "$status" -eq 0 ]
	left=$(find "$TMP/r" ! -type d ! -path "$TMP/r/var/lib/dpkg/*")
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "completion: registered for clocktrace" {
	# shellcheck disable=SC1090
	source "$COMPLETION"
	run complete -p clocktrace
	[ "$status" -eq 0 ]
	[[ $output == *"-F _clocktrace"*" clocktrace" ]]
}

@test "completion: subcommands" {
	[ "$(complete_words clocktrace ru)" = run ]
	[ "$(complete_words clocktrace d)" = doctor ]
	for cmd in $COMMANDS --version --help; do
		complete_words clocktrace "" | grep -qxF -- "$cmd"
	done
}

@test "completion: each subcommand's options are those of its --help" {
	for cmd in $COMMANDS; do
		complete_words clocktrace "$cmd" -- | grep -v '^--$' >"$TMP/got"
		help_long_opts "$cmd" >"$TMP/want"
		diff "$TMP/want" "$TMP/got" || { echo "in $cmd"; false; }
	done
	[ "$(complete_words clocktrace attach --co)" = --comm ]
	[ "$(complete_words clocktrace top --co)" = --count ]
	[ "$(complete_words clocktrace run --fo)" = "$(printf -- '--follow\n--format')" ]
	# run's options stop at PROG: what follows is PROG's.
	if complete_words clocktrace run ls --js | grep -q -- --json; then
		false
	fi
}

@test "completion: option values (pids, comm names, files, formats)" {
	complete_words clocktrace attach -p "" | grep -qx "$$"
	complete_words clocktrace attach --pid=1 | grep -qx -- "--pid=1"
	complete_words clocktrace attach -p "1,$$" | grep -qx "1,$$"
	complete_words clocktrace doctor -p "" | grep -qx "$$"

	cp "$(command -v sleep)" "$TMP/ctcomplete"
	"$TMP/ctcomplete" 30 &
	COMM_PID=$!
	for _ in $(seq 50); do
		[ "$(cat /proc/$COMM_PID/comm 2>/dev/null)" = ctcomplete ] && break
		sleep 0.1
	done
	[ "$(complete_words clocktrace attach --comm ctcompl)" = ctcomplete ]

	touch "$TMP/report.json"
	[ "$(complete_words clocktrace run -o "$TMP/rep")" = "$TMP/report.json" ]
	# "--output" "=" "value", as COMP_WORDBREAKS splits it.
	[ "$(complete_words clocktrace run --output = "$TMP/rep")" = "$TMP/report.json" ]
	[ "$(complete_words clocktrace top --format open)" = openmetrics ]
	[ "$(complete_words clocktrace bench --clock realtime,mono_)" = "" ]
	complete_words clocktrace bench --clock realtime,mono |
		grep -qx realtime,monotonic_coarse
}

# The cgroup v2 mount, as the completion and cgroup.c find it.
cgroup2_mount() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo /sys/fs/cgroup
	else
		echo /sys/fs/cgroup/unified
	fi
}

@test "completion: --cgroup and --unit complete the cgroups that exist" {
	mnt=$(cgroup2_mount)
	CG="ctcomplete-$$"
	mkdir "$mnt/$CG" "$mnt/$CG/inner"
	[ -d "$mnt/system.slice" ] || { mkdir "$mnt/system.slice"; MADE_SLICE=1; }
	mkdir "$mnt/system.slice/$CG.service"
	[ "$(complete_words clocktrace attach --cgroup ctcomplete-)" = "$CG/" ]
	[ "$(complete_words clocktrace run --cgroup "$CG/")" = "$CG/inner/" ]
	[ "$(complete_words clocktrace top --cgroup "$mnt/$CG/in")" = "$mnt/$CG/inner" ]
	[ "$(complete_words clocktrace attach --unit ctcomplete-)" = "$CG.service" ]
}

# Hardening that must stay: the capabilities and the file system view.
UNIT_MUST="CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH
AmbientCapabilities=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
EnvironmentFile=-/etc/default/clocktrace-exporter"

@test "package: the exporter's unit in the deb passes systemd-analyze verify, hardened" {
	command -v systemd-analyze
	run mk deb
	[ "$status" -eq 0 ]
	deb=$(built_deb)
	dpkg-deb -x "$deb" "$TMP/x"
	unit="$TMP/x/usr/lib/systemd/system/clocktrace-exporter.service"
	while IFS= read -r line; do
		grep -qxF "$line" "$unit" || { echo "not in the unit: $line"; false; }
	done <<<"$UNIT_MUST"
	grep -q '^ExecStart=/usr/sbin/clocktrace ' "$unit"
	# verify checks that ExecStart is executable: the extracted one, here.
	sed "s|^ExecStart=/usr/sbin/|ExecStart=$TMP/x/usr/sbin/|" "$unit" \
		>"$TMP/clocktrace-exporter.service"
	run systemd-analyze verify --man=no "$TMP/clocktrace-exporter.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# The shipped config is what the unit defaults to: top, on loopback.
	( . "$TMP/x/etc/default/clocktrace-exporter"
	  [ "$CLOCKTRACE_LISTEN" = 127.0.0.1:9464 ] && [ "$CLOCKTRACE_ARGS" = "top -i 10" ] )
	# Its command line runs (for a second, on a port of its own).
	port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# shellcheck disable=SC2086
	"$TMP/x/usr/sbin/clocktrace" top -i 10 -d 1 --listen "127.0.0.1:$port" -o /dev/null
}
