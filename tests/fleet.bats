#!/usr/bin/env bats
# Production targeting and fleets: OpenMetrics series per comm, the
# --listen exporter, long attaches over recycled workers.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	[ -n "${PROM:-}" ] && kill "$PROM" 2>/dev/null && wait "$PROM"
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
	[ -n "${CTPID:-}" ] && kill "$CTPID" 2>/dev/null
	[ -n "${SILENT:-}" ] && exec {SILENT}>&-
	rm -rf "$T"
}

# misbehave waitsig -k 5 (in WL), put in cgroup DIR before it runs, ready.
waitsig_in() {
	sh -c "echo \$\$ > '$1/cgroup.procs' && exec '$TOOLS/misbehave' waitsig -k 5" >"$T/ready" 2>/dev/null &
	WL=$!
	for _ in $(seq 100); do grep -q ready "$T/ready" 2>/dev/null && break; sleep 0.05; done
}

# A TCP port nothing listens on now.
free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until clocktrace serves /metrics on port $1.
wait_listening() {
	for _ in $(seq 100); do
		curl -sf -o /dev/null "http://127.0.0.1:$1/metrics" && return 0
		sleep 0.05
	done
	return 1
}

@test "openmetrics: one series per comm, no pid label; --metrics-by pid has them" {
	"$CT" run --format openmetrics -o "$T/om.txt" -- \
		"$TOOLS/forktree" -D 1 -W 3 -k 7 2>"$T/wl"
	want=$(workload_sum "$T/wl" tz_stat)
	[ "$want" -eq 28 ]
	[ "$(om_sum "$T/om.txt" clocktrace_tz_accesses "{'comm': 'forktree'}")" -eq "$want" ]
	run -1 grep -q 'pid=' "$T/om.txt"
	[ "$(grep -c '^clocktrace_tz_accesses_total{' "$T/om.txt")" -eq 1 ]
	"$CT" run --format openmetrics --metrics-by pid -o "$T/pid.txt" -- \
		"$TOOLS/forktree" -D 1 -W 3 -k 7 2>"$T/wl"
	[ "$(grep -c '^clocktrace_tz_accesses_total{pid="[0-9]*",comm="forktree"' "$T/pid.txt")" -eq 4 ]
	[ "$(om_sum "$T/pid.txt" clocktrace_tz_accesses "{'comm': 'forktree'}")" -eq 28 ]
	run -125 "$CT" run --metrics-by cgroupx -- true
}

@test "--listen: GET /metrics while attached, both formats, counters only grow; 404, 405, 400" {
	port=$(free_port)
	"$TOOLS/misbehave" sleep 30 -k 40 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" attach -p "$WL" --listen "127.0.0.1:$port" -o "$T/report" &
	CTPID=$!
	wait_listening "$port"
	# Scraped until the first burst is counted (the attach may beat it).
	for _ in $(seq 100); do
		curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
			-D "$T/h1" -o "$T/m1" "http://127.0.0.1:$port/metrics"
		a=$(om_sum "$T/m1" clocktrace_tz_accesses "{'comm': 'misbehave'}")
		[ "$a" -ge 1 ] && break
		sleep 0.2
	done
	grep -qi '^content-type: application/openmetrics-text' "$T/h1"
	tail -1 "$T/m1" | grep -qx '# EOF'
	# misbehave stats in bursts of 40 a second: a later scrape counts at
	# least one burst more (waited for, however slow the machine).
	for _ in $(seq 100); do
		curl -sf -D "$T/h2" -o "$T/m2" "http://127.0.0.1:$port/metrics"
		b=$(om_sum "$T/m2" clocktrace_tz_accesses "{'comm': 'misbehave'}" text)
		[ "$b" -ge $((a + 40)) ] && break
		sleep 0.2
	done
	grep -qi '^content-type: text/plain; version=0.0.4' "$T/h2"
	[ "$a" -ge 1 ]
	[ "$b" -ge $((a + 40)) ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")" = 405 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X PUT "http://127.0.0.1:$port/metrics")" = 405 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics/x")" = 404 ]
	exec {C}<>"/dev/tcp/127.0.0.1/$port"
	printf 'NONSENSE\r\n\r\n' >&"$C"
	read -r status <&"$C"
	exec {C}>&-
	[[ "$status" == "HTTP/1.1 400 "* ]]
	# SIGTERM: the final report, status 0, the port closed.
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
	grep -q '^clocktrace attach' "$T/report"
	! curl -s -o /dev/null "http://127.0.0.1:$port/metrics"
}

# CapEff of pid $1, as /proc says it (16 hex digits).
cap_eff() {
	awk '$1 == "CapEff:" { print $2 }' "/proc/$1/status"
}

# The documented sets (README "Production and fleets", privs.h):
# cap_dac_read_search (2), cap_sys_ptrace (19), cap_bpf (39); with --libc
# or --lang also cap_sys_admin (21), cap_perfmon (38).
CAPS_ATTACH=0000008000080004
CAPS_ATTACH_PROBES=000000c000280004

# Serves --listen with ARGS on a free port (PORT), a forktree copy named
# $T/$1 started after the drop: its 28 stats counted from the metrics.
listen_then_fork() {
	local name=$1
	shift
	port=$(free_port)
	cp "$TOOLS/forktree" "$T/$name"
	"$CT" attach --comm "$name" "$@" --listen "127.0.0.1:$port" -o /dev/null &
	CTPID=$!
	wait_listening "$port"
	"$T/$name" -D 1 -W 3 -k 7 2>"$T/wl"
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 28 ]
	for _ in $(seq 100); do
		curl -sf -o "$T/m" "http://127.0.0.1:$port/metrics"
		[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'comm': '$name'}" text)" -ge 28 ] && break
		sleep 0.1
	done
	[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'comm': '$name'}" text)" -eq 28 ]
}

@test "--listen: the running exporter's CapEff is the documented set; processes seen after the drop still counted" {
	listen_then_fork capfork
	[ "$(cap_eff "$CTPID")" = "$CAPS_ATTACH" ]
	awk '$1 == "CapBnd:" { exit $2 != "'"$CAPS_ATTACH"'" }' "/proc/$CTPID/status"
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
	listen_then_fork capforklibc --libc
	[ "$(cap_eff "$CTPID")" = "$CAPS_ATTACH_PROBES" ]
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
}

# A PromQL instant query through Prometheus's HTTP API on port $1: the
# value of the first series, or nothing while there is none.
promql() {
	curl -sf --get --data-urlencode "query=$2" \
		"http://127.0.0.1:$1/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty'
}

@test "a real Prometheus scrapes --listen: rate(clocktrace_tz_accesses_total) is the workload's rate" {
	port=$(free_port)
	pport=$(free_port)
	# A name of its own, so that only this workload is in its series.
	cp "$TOOLS/misbehave" "$T/ratecheck"
	"$CT" attach --comm ratecheck --listen "127.0.0.1:$port" --json -o "$T/r.json" &
	CTPID=$!
	wait_listening "$port"
	cat >"$T/prom.yml" <<-YML
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: clocktrace
	    static_configs:
	      - targets: ['127.0.0.1:$port']
	YML
	prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address="127.0.0.1:$pport" 2>"$T/prom.log" &
	PROM=$!
	for _ in $(seq 200); do
		curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready" && break
		sleep 0.1
	done
	# 200 stats a second for 16 s, on absolute deadlines.
	"$T/ratecheck" rate 16 -k 200 2>"$T/wl" &
	WL=$!
	# From 5 s on, an 8 s window lies wholly inside the run.
	sleep 13
	rate=$(promql "$pport" 'rate(clocktrace_tz_accesses_total{comm="ratecheck"}[8s])')
	echo "# PromQL rate: $rate" >&3
	# The workload keeps its average on absolute deadlines; Prometheus's
	# extrapolation over late scrapes on a machine under load 20 moves
	# rate() by far less than half.  The exact check is the count below.
	awk -v r="$rate" 'BEGIN { exit !(r >= 100 && r <= 300) }'
	wait "$WL"
	WL=
	# Once scraped after the workload's end, Prometheus holds its count.
	for _ in $(seq 100); do
		last=$(promql "$pport" 'clocktrace_tz_accesses_total{comm="ratecheck"}')
		[ "${last:-0}" = 3200 ] && break
		sleep 0.2
	done
	[ "$last" = 3200 ]
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
	kill "$PROM"
	wait "$PROM" || true
	PROM=
	# The oracle: the workload's own count, every one of them counted.
	want=$(workload_sum "$T/wl" tz_stat)
	[ "$want" -eq 3200 ]
	[ "$(jqr "$T/r.json" '[.processes[], .exited_groups[] |
		select(.comm == "ratecheck") | .tz.accesses] | add')" -eq "$want" ]
}

@test "--listen: a client that never sends holds neither tracing nor the end" {
	port=$(free_port)
	# A name of its own: other tests on this machine run forktree too.
	cp "$TOOLS/forktree" "$T/silentfork"
	"$CT" attach --comm silentfork -d 2 --listen "$port" --json -o "$T/r.json" &
	CTPID=$!
	wait_listening "$port"
	# Connected and silent: the only client served until its deadline.
	exec {SILENT}<>"/dev/tcp/127.0.0.1/$port"
	"$T/silentfork" -D 1 -W 2 -k 9 2>"$T/wl"
	wait "$CTPID"
	CTPID=
	# Ended at -d 2: a client held until its deadline (5 s after it
	# connected, inside the window) would have made it 5 s or more.
	[ "$(jqr "$T/r.json" .duration_ns)" -lt 5000000000 ]
	want=$(workload_sum "$T/wl" tz_stat)
	# Exited and evicted by now: counted in their comm's group.
	[ "$(jqr "$T/r.json" '[.processes[], .exited_groups[] | .tz.accesses] | add')" -eq "$want" ]
}

@test "--listen: a bad address is one line and 125; loopback by default" {
	run -125 "$CT" attach --comm x --listen 999999
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" attach --comm x --listen myhost:80
	[ "${#lines[@]}" -eq 1 ]
	port=$(free_port)
	"$CT" top --listen "$port" -d 2 -o /dev/null &
	CTPID=$!
	wait_listening "$port"
	ss -ltnH "sport = :$port" | grep -q "127.0.0.1:$port"
	wait "$CTPID"
	CTPID=
}

@test "top --listen: series per comm of every process on the machine" {
	port=$(free_port)
	"$TOOLS/misbehave" sleep 30 -k 30 2>/dev/null &
	WL=$!
	wait_exec "$WL" misbehave
	"$CT" top --listen "$port" -o /dev/null &
	CTPID=$!
	wait_listening "$port"
	# One burst of misbehave's 30 stats (a second apart) counted: waited
	# for, however slow the machine.
	for _ in $(seq 100); do
		curl -sf -H 'Accept: application/openmetrics-text' -o "$T/m" \
			"http://127.0.0.1:$port/metrics"
		[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'comm': 'misbehave'}")" -ge 30 ] && break
		sleep 0.2
	done
	[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'comm': 'misbehave'}")" -ge 30 ]
	run -1 grep -q 'comm=""' "$T/m"
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
}

# A server recycling N workers (forktree, 3 stats each) once $T/go exists.
start_recycler() {
	"$TOOLS/recycler.sh" "$T/go" "$1" "$T/wl" "$TOOLS" &
	WL=$!
	wait_exec "$WL" recycler.sh
}

@test "attach --max-procs bounds live processes: 600 recycled workers through 32 places, exact" {
	start_recycler 600
	"$CT" attach -p "$WL" --max-procs 32 --json -o "$T/r.json" &
	CTPID=$!
	sleep 0.5
	touch "$T/go"
	wait "$CTPID"
	CTPID=
	WL=
	want=$(workload_sum "$T/wl" tz_stat)
	[ "$want" -eq 1800 ]
	jq -e '.lost_events == 0 and .evicted_processes > 500' "$T/r.json"
	[ "$(jqr "$T/r.json" '[(.processes[] | select(.comm == "forktree")),
		(.exited_groups[] | select(.comm == "forktree")) | .tz.accesses] | add')" -eq "$want" ]
	[ "$(jqr "$T/r.json" '([.exited_groups[] | select(.comm == "forktree") | .processes] | add) +
		([.processes[] | select(.comm == "forktree")] | length)')" -eq 600 ]
}

@test "attach --max-procs 32 with OpenMetrics: the forktree series counts every recycled worker" {
	start_recycler 400
	"$CT" attach -p "$WL" --max-procs 32 --format openmetrics -o "$T/om" &
	CTPID=$!
	sleep 0.5
	touch "$T/go"
	wait "$CTPID"
	CTPID=
	WL=
	want=$(workload_sum "$T/wl" tz_stat)
	[ "$want" -eq 1200 ]
	got=$(om_sum "$T/om" clocktrace_tz_accesses "{'comm': 'forktree'}")
	echo "want $want got $got"
	[ "$got" -eq "$want" ]
	[ "$(om_sum "$T/om" clocktrace_lost_events "{}")" -eq 0 ]
}

@test "JSON: each process's cgroup, container id and pid in its own namespace" {
	v2=$(cgroup2_mount)
	[ -n "$v2" ]
	id=$(printf '%064x' "$$")
	cg="docker-$id.scope"
	mkdir "$v2/$cg"
	"$CT" run --json -o "$T/r.json" -- sh -c \
		"echo \$\$ > '$v2/$cg/cgroup.procs' && exec unshare --pid --fork --mount-proc '$TOOLS/forktree' -D 1 -W 1 -k 2" \
		2>"$T/wl"
	rmdir "$v2/$cg"
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 4 ]
	jq -e --arg cg "/$cg" --arg id "$id" '
		[.processes[] | select(.comm == "forktree")] as $f |
		($f | length) == 2 and
		all($f[]; .cgroup == $cg and .container == $id) and
		([$f[].nspid] | sort) == [1, 2]' "$T/r.json"
	# Outside any container: the root cgroup path, no id, no nspid.
	"$CT" run --json -o "$T/plain.json" -- "$TOOLS/forktree" -D 0 -k 1 2>/dev/null
	jq -e '.processes[0] | .container == null and (has("nspid") | not) and
		(.cgroup | startswith("/"))' "$T/plain.json"
}

# systemd is not PID 1 on the reference machine (no systemd-run): the
# service is a cgroup made here and named as systemd names a service's.
@test "fixes: a process in a systemd service's cgroup is told systemctl edit; outside one, the shell profile" {
	v2=$(cgroup2_mount)
	[ -n "$v2" ]
	unit="ct-fixtest-$$.service"
	mkdir -p "$v2/system.slice/$unit"
	for format in --json --format=text; do
		env -u TZ "$CT" run "$format" -o "$T/r$format" -- sh -c \
			"echo \$\$ > '$v2/system.slice/$unit/cgroup.procs' && exec '$TOOLS/forktree' -D 1 -W 1 -k 20" \
			2>"$T/wl"
		[ "$(workload_sum "$T/wl" tz_stat)" -eq 40 ]
	done
	rmdir "$v2/system.slice/$unit"
	rmdir "$v2/system.slice" 2>/dev/null || true
	jq -e --arg u "$unit" '.findings[] | select(.id == "tz-repeated-access") |
		(.pids | length) == 2 and (.fixes | length) == 1 and
		.fixes[0].where == "systemd unit" and
		(.fixes[0].how | contains("systemctl edit " + $u) and
			contains("Environment=TZ=:/etc/localtime"))' "$T/r--json"
	# The text report prints the first place.
	grep -q "^    fix in the systemd unit: systemctl edit $unit, " "$T/r--format=text"
	env -u TZ "$CT" run -o "$T/plain.txt" -- "$TOOLS/forktree" -D 0 -k 20 2>/dev/null
	grep -q '^    fix in the shell profile: export TZ=:/etc/localtime' "$T/plain.txt"
}

@test "--metrics-by container|pod: a series per container and per pod from the cgroup path, exact" {
	v2=$(cgroup2_mount)
	[ -n "$v2" ]
	id=$(printf '%064x' "$$")
	uid="6f1c9a2e-3b4d-4e5f-8a9b-$(printf '%012x' "$$")"
	# The kubelet's cgroupfs driver: the container's bare id below its pod.
	cg="kubepods-ct$$/burstable/pod$uid/$id"
	mkdir -p "$v2/$cg"
	for by in container pod; do
		"$CT" run --format openmetrics --metrics-by "$by" -o "$T/$by.om" -- sh -c \
			"echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/forktree' -D 1 -W 2 -k 5" \
			2>"$T/wl"
		[ "$(workload_sum "$T/wl" tz_stat)" -eq 15 ]
	done
	rmdir "$v2/$cg" "$v2/kubepods-ct$$/burstable/pod$uid" "$v2/kubepods-ct$$/burstable" "$v2/kubepods-ct$$"
	[ "$(om_sum "$T/container.om" clocktrace_tz_accesses "{'container_id': '${id:0:12}', 'pod_uid': '$uid', 'container': '', 'pod': '', 'namespace': ''}")" -eq 15 ]
	[ "$(grep -c '^clocktrace_tz_accesses_total{' "$T/container.om")" -eq 1 ]
	[ "$(om_sum "$T/pod.om" clocktrace_tz_accesses "{'pod_uid': '$uid', 'pod': ''}")" -eq 15 ]
	run -125 "$CT" run --metrics-by namespace -- true
}

@test "attach --cgroup: processes in it and below it, now and later, not the others; --unit" {
	v2=$(cgroup2_mount)
	cg="clocktrace-test-$$"
	mkdir -p "$v2/$cg/sub"
	# One already inside (below the target), asleep until signalled.
	waitsig_in "$v2/$cg/sub"
	# --listen: its port opens once the programs are attached.
	port=$(free_port)
	"$CT" attach --cgroup "/$cg" -d 4 --listen "$port" --json -o "$T/r.json" &
	CTPID=$!
	wait_listening "$port"
	sleep 0.3
	# Joins later and forks: all of it; the same program outside: none.
	sh -c "echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/forktree' -D 1 -W 2 -k 4" 2>"$T/in"
	"$TOOLS/forktree" -D 1 -W 2 -k 4 2>"$T/out"
	kill -USR1 "$WL"
	wait "$WL" || true
	WL=
	wait "$CTPID"
	CTPID=
	rmdir "$v2/$cg/sub" "$v2/$cg"
	# misbehave waitsig -k 5: 4 threads stat 5 times, then its child 5.
	want=$(( $(workload_sum "$T/in" tz_stat) + 4 * 5 + 5 ))
	[ "$want" -eq 37 ]
	[ "$(jqr "$T/r.json" '[.processes[].tz.accesses] | add')" -eq "$want" ]
	jq -e --arg cg "/$cg" '[.processes[] | select(.comm == "forktree")] |
		length == 3 and all(.[]; .cgroup == $cg)' "$T/r.json"
	run -125 "$CT" attach --cgroup /no/such/cgroup-x
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" attach --unit no-such-unit-x.service
	[ "${#lines[@]}" -eq 1 ]
}

# A stand-in for systemd, started before clocktrace and outside PROG's
# tree: once $T/go exists it starts "service" $1 twice (the cgroup made,
# a process moved in that execs forktree, the cgroup removed: a restart),
# and also runs forktree outside it; then $T/done.
fake_systemd() {
	local cg=$1
	(
		for _ in $(seq 200); do [ -e "$T/go" ] && break; sleep 0.05; done
		for _ in 1 2; do
			mkdir "$cg"
			sh -c "echo \$\$ > '$cg/cgroup.procs' && exec '$TOOLS/forktree' -D 1 -W 2 -k 3" 2>>"$T/svc"
			rmdir "$cg"
		done
		"$TOOLS/forktree" -D 1 -W 2 -k 3 2>"$T/out"
		touch "$T/done"
	) &
	WL=$!
}

# PROG of run: starts the "service" and waits until it has run.
WAIT_PROG='touch "$1/go"; while [ ! -e "$1/done" ]; do sleep 0.05; done'

@test "run --unit: the service from its first exec, across a restart that re-creates its cgroup" {
	v2=$(cgroup2_mount)
	made=
	[ -d "$v2/system.slice" ] || { mkdir "$v2/system.slice"; made=1; }
	unit="clocktrace-test-$$.service"
	fake_systemd "$v2/system.slice/$unit"
	"$CT" run --unit "$unit" --json -o "$T/r.json" -- sh -c "$WAIT_PROG" sh "$T"
	wait "$WL"
	WL=
	[ -n "$made" ] && rmdir "$v2/system.slice"
	want=$(workload_sum "$T/svc" tz_stat)
	[ "$want" -eq 18 ]
	[ "$(workload_sum "$T/out" tz_stat)" -eq 9 ]
	jq -e --arg want "$want" '[.processes[] | select(.comm == "forktree")] |
		length == 6 and ([.[].tz.accesses] | add) == ($want | tonumber)' "$T/r.json"
	# Named by its path, it is the same.
	mkdir -p "$v2/clocktrace-test-$$"
	rm -f "$T/go" "$T/done" "$T/svc"
	fake_systemd "$v2/clocktrace-test-$$/svc"
	"$CT" run --cgroup "/clocktrace-test-$$/svc" --json -o "$T/p.json" -- \
		sh -c "$WAIT_PROG" sh "$T"
	wait "$WL"
	WL=
	rmdir "$v2/clocktrace-test-$$"
	[ "$(jqr "$T/p.json" '[.processes[] | select(.comm == "forktree") | .tz.accesses] | add')" -eq 18 ]
}

@test "run --cgroup: processes already in it are traced with PROG, until PROG ends" {
	v2=$(cgroup2_mount)
	cg="clocktrace-test-$$"
	mkdir -p "$v2/$cg/sub"
	waitsig_in "$v2/$cg/sub"
	# PROG wakes it, waits for it, then stats on its own.
	"$CT" run --cgroup "$v2/$cg" --json -o "$T/r.json" -- sh -c \
		"kill -USR1 $WL; while kill -0 $WL 2>/dev/null; do sleep 0.05; done; exec '$TOOLS/forktree' -D 0 -k 2" 2>"$T/prog"
	wait "$WL" || true
	WL=
	rmdir "$v2/$cg/sub" "$v2/$cg"
	# misbehave waitsig -k 5: 4 threads stat 5 times, then its child 5.
	[ "$(jqr "$T/r.json" '[.processes[] | select(.comm == "misbehave") | .tz.accesses] | add')" -eq 25 ]
	[ "$(jqr "$T/r.json" '[.processes[].tz.accesses] | add')" -eq $((25 + $(workload_sum "$T/prog" tz_stat))) ]
	run -125 "$CT" run --cgroup /no/such/cgroup-x -- true
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" run --cgroup /a --unit b -- true
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" run --cgroup "/$cg/../x" -- true
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" top --cgroup "/no/such/x" -d 1
	[ "${#lines[@]}" -eq 1 ]
	run -125 "$CT" run --compare --cgroup "/$cg" -- true
	[ "${#lines[@]}" -eq 1 ]
}

@test "top --cgroup: only the processes in it, decided in the kernel" {
	v2=$(cgroup2_mount)
	cg="clocktrace-test-$$"
	mkdir "$v2/$cg"
	sh -c "echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/misbehave' rate 30 -k 40" 2>/dev/null &
	WL=$!
	"$TOOLS/misbehave" rate 30 -k 40 2>/dev/null &
	OUT=$!
	wait_exec "$WL" misbehave
	wait_exec "$OUT" misbehave
	"$CT" top --cgroup "/$cg" --json -i 0.5 -d 2.6 -o "$T/top.jsonl"
	in=$WL
	kill "$OUT" "$WL"
	wait "$WL" "$OUT" || true
	WL=
	rmdir "$v2/$cg"
	# The one inside, counted (40 a second for 2.6 s: at least one
	# second's worth, whatever the load); the same program outside, never.
	jq -s -e --argjson in "$in" '
		([.[].processes[].pid] | unique) == [$in] and
		([.[] | .interval_s as $s | .processes[].tz_per_s * $s] | add |
		 round) >= 40' "$T/top.jsonl"
}

@test "top --by container: the ranked processes summed per container id; --by cgroup" {
	v2=$(cgroup2_mount)
	a=$(printf '%064x' $(( $$ * 3 )))
	b=$(printf '%064x' $(( $$ * 5 )))
	mkdir "$v2/docker-$a.scope" "$v2/libpod-$b.scope"
	pids=
	for cg in "docker-$a.scope" "docker-$a.scope" "libpod-$b.scope"; do
		sh -c "echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/misbehave' rate 30 -k 40" 2>/dev/null &
		pids="$pids $!"
	done
	for p in $pids; do wait_exec "$p" misbehave; done
	"$CT" top --by container --json -i 1 -n 2 -o "$T/c.jsonl"
	"$CT" top --by cgroup -i 1 -n 1 -o "$T/g.txt"
	kill $pids
	wait $pids || true
	rmdir "$v2/docker-$a.scope" "$v2/libpod-$b.scope"
	tail -1 "$T/c.jsonl" | jq -e --arg a "$a" --arg b "$b" '.by == "container" and
		([.groups[] | select(.container == $a) | .processes] == [2]) and
		([.groups[] | select(.container == $b) | .processes] == [1]) and
		# Two processes of 40 a second in a 1 s interval: at least one
		# second of one of them counted, however late the interval.
		(.interval_s as $s | [.groups[] | select(.container == $a) |
		 .tz_per_s * $s][0] | round >= 40) and
		all(.groups[]; .container == null or .container == $a or .container == $b)'
	grep -q "^/docker-$a.scope  *2 " "$T/g.txt"
	grep -q "^/libpod-$b.scope  *1 " "$T/g.txt"
	run -125 "$CT" top --by pod
	[ "${#lines[@]}" -eq 1 ]
}

# A master and two workers, all of one name, alive until $1 exists; the
# pids in $1.pids.
start_master() {
	cat >"$T/gunimock" <<-'SH'
	#!/bin/bash
	for _ in 1 2; do
		( echo "$BASHPID" >>"$1.pids"
		  while [ ! -e "$1" ]; do read -r -t 0.1 _ <>"$1.fifo" || true; done ) &
	done
	wait
	SH
	chmod +x "$T/gunimock"
	mkfifo "$T/stop.fifo"
	"$T/gunimock" "$T/stop" &
	WL=$!
	for _ in $(seq 100); do
		[ "$(wc -l <"$T/stop.pids" 2>/dev/null)" = 2 ] && break
		sleep 0.05
	done
}

@test "attach: existing targets keep their tree (workers under their master); -p MASTER hints at its children" {
	start_master
	wait_exec "$WL" gunimock
	WL_MASTER=$WL
	"$CT" attach --comm gunimock -d 0.5 --json -o "$T/c.json"
	"$CT" attach --comm gunimock -d 0.5 -o "$T/c.txt"
	"$CT" attach -p "$WL" -d 0.5 -o /dev/null 2>"$T/hint"
	"$CT" attach -p "$WL" --tree -d 0.5 -o /dev/null 2>"$T/nohint"
	touch "$T/stop"
	wait "$WL"
	WL=
	# One target at depth 0, the workers its children at depth 1.
	jq -e --argjson m "$WL_MASTER" '[.processes[] | select(.comm == "gunimock")] |
		length == 3 and
		([.[] | select(.depth == 0) | .pid] == [$m]) and
		([.[] | select(.depth == 1) | .ppid] == [$m, $m])' "$T/c.json"
	grep -q '^  parent  *1 ' "$T/c.txt"
	grep -q '^  children  *2 ' "$T/c.txt"
	cat "$T/hint"
	[ "$(wc -l <"$T/hint")" -eq 1 ]
	grep -qx "clocktrace: attach: note: pid $WL_MASTER has 2 live child processes, not traced (--tree traces them too)" "$T/hint"
	[ ! -s "$T/nohint" ]
}

@test "--metrics-by cgroup: a series per cgroup v2 path, exact" {
	v2=$(cgroup2_mount)
	cg="clocktrace-test-$$"
	mkdir -p "$v2/$cg/a" "$v2/$cg/b"
	cat >"$T/two.sh" <<-SH
	sh -c 'echo \$\$ > "$v2/$cg/a/cgroup.procs" && exec "$TOOLS/forktree" -D 1 -W 2 -k 2' 2>"$T/a"
	sh -c 'echo \$\$ > "$v2/$cg/b/cgroup.procs" && exec "$TOOLS/forktree" -D 0 -k 5' 2>"$T/b"
	SH
	"$CT" run --format openmetrics --metrics-by cgroup -o "$T/om" -- sh "$T/two.sh"
	rmdir "$v2/$cg/a" "$v2/$cg/b" "$v2/$cg"
	[ "$(workload_sum "$T/a" tz_stat)" -eq 6 ]
	[ "$(workload_sum "$T/b" tz_stat)" -eq 5 ]
	[ "$(om_sum "$T/om" clocktrace_tz_accesses "{'cgroup': '/$cg/a'}")" -eq 6 ]
	[ "$(om_sum "$T/om" clocktrace_tz_accesses "{'cgroup': '/$cg/b'}")" -eq 5 ]
	[ "$(grep -c "^clocktrace_tz_accesses_total{cgroup=\"/$cg/a\"" "$T/om")" -eq 1 ]
	! grep -q 'comm=' "$T/om"
}
