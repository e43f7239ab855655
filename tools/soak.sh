#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak (and the end of make bench): weeks of a server that recycles
# its workers, compressed into minutes of process churn through one
# `attach --max-procs 256 --listen`, scraped every few seconds.  Prints,
# and writes to build/bench/soak.json: processes churned, tz accesses done
# (the workers' own counts) and counted, lost events, processes evicted,
# clocktrace's RSS and the entries of its kernel maps after the warm-up
# and at the end.  Exits 1 when a count differs, an event was lost, or
# RSS grew by more than 10% (or 1 MiB) between the two.
#
#   tools/soak.sh                 SOAK_SECONDS=180
#   SOAK_SECONDS=3600 tools/soak.sh
#
# Knobs: SOAK_SECONDS, SOAK_LOOPS (parallel worker loops, default 2),
# SOAK_MAX_PROCS (default 256), WARMUP_SECONDS (default 15).
set -u
cd "$(dirname "$0")/.." || exit 1
SOAK_SECONDS=${SOAK_SECONDS:-180}
SOAK_LOOPS=${SOAK_LOOPS:-2}
SOAK_MAX_PROCS=${SOAK_MAX_PROCS:-256}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
CT=./clocktrace
OUT=build/bench
mkdir -p "$OUT"
T=$(mktemp -d)
churner= ct=

cleanup() {
	touch "$T/stop"
	[ -n "$churner" ] && kill "$churner" 2>/dev/null
	[ -n "$ct" ] && kill "$ct" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

rss_kb() {
	awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status"
}

# Entries in each of clocktrace's kernel maps that grow with processes:
# "procs=N stats=N ..." (the maps it holds open, by their fds).
map_entries() {
	local id name out=""
	for id in $(awk '$1 == "map_id:" {print $2}' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un); do
		name=$(bpftool map show id "$id" -j 2>/dev/null | jq -r .name)
		case $name in
		procs | stats | clockids | tz_paths | proc_tz)
			out+="$name=$(bpftool map dump id "$id" -j 2>/dev/null | jq length) " ;;
		esac
	done
	echo "${out% }"
}

# SOAK_LOOPS loops, each running forktree (one process, 3 stats) until
# $T/stop exists: a server recycling its workers as fast as it can.
cat >"$T/churn.sh" <<'SH'
#!/bin/bash
t=$1 loops=$2
while [ ! -e "$t/go" ]; do sleep 0.02; done
for ((l = 0; l < loops; l++)); do
	( while [ ! -e "$t/stop" ]; do ./tools/forktree -D 0 -k 3 2>>"$t/wl.$l"; done ) &
done
wait
SH
bash "$T/churn.sh" "$T" "$SOAK_LOOPS" &
churner=$!
port=$(free_port)
"$CT" attach -p "$churner" --max-procs "$SOAK_MAX_PROCS" --listen "127.0.0.1:$port" \
	--json -o "$T/r.json" &
ct=$!
for _ in $(seq 100); do
	curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break
	sleep 0.1
done
touch "$T/go"
start=$(date +%s)
scrapes=0
sample() {
	curl -sf -o "$T/m" "http://127.0.0.1:$port/metrics" && scrapes=$((scrapes + 1))
}
while [ $(($(date +%s) - start)) -lt "$WARMUP_SECONDS" ]; do sample; sleep 2; done
rss0=$(rss_kb "$ct") maps0=$(map_entries "$ct") t0=$(date +%s)
while [ $(($(date +%s) - start)) -lt "$SOAK_SECONDS" ]; do sample; sleep 2; done
rss1=$(rss_kb "$ct") maps1=$(map_entries "$ct") t1=$(date +%s)
touch "$T/stop"
wait "$churner"
churner=
# The churner gone, attach -p ends by itself with its report.
wait "$ct"
status=$?
ct=
[ "$status" -eq 0 ] || { echo "soak: clocktrace exited $status" >&2; exit 1; }

done_tz=$(cat "$T"/wl.* | grep -o ' tz_stat=[0-9]*' | cut -d= -f2 | awk '{s += $1} END {print s + 0}')
procs=$(cat "$T"/wl.* | grep -c '^WORKLOAD ')
counted=$(jq '[.processes[], .exited_groups[] | select(.comm == "forktree") | .tz.accesses] | add // 0' "$T/r.json")
lost=$(jq .lost_events "$T/r.json")
evicted=$(jq .evicted_processes "$T/r.json")
grew=$((rss1 - rss0))

printf 'SOAK (%s s, %s worker loops, --max-procs %s, /metrics scraped %s times)\n' \
	"$SOAK_SECONDS" "$SOAK_LOOPS" "$SOAK_MAX_PROCS" "$scrapes"
printf '  processes churned   %12s  (%s a second)\n' "$procs" $((procs / SOAK_SECONDS))
printf '  tz accesses done    %12s\n' "$done_tz"
printf '  tz accesses counted %12s\n' "$counted"
printf '  lost events         %12s\n' "$lost"
printf '  processes evicted   %12s\n' "$evicted"
printf '  RSS at %4s s       %9s kB   map entries: %s\n' $((t0 - start)) "$rss0" "$maps0"
printf '  RSS at %4s s       %9s kB   map entries: %s\n' $((t1 - start)) "$rss1" "$maps1"
jq -n --argjson s "$SOAK_SECONDS" --argjson procs "$procs" --argjson done "$done_tz" \
	--argjson counted "$counted" --argjson lost "$lost" --argjson evicted "$evicted" \
	--argjson rss0 "$rss0" --argjson rss1 "$rss1" --arg maps0 "$maps0" --arg maps1 "$maps1" \
	'{seconds: $s, processes: $procs, tz_done: $done, tz_counted: $counted,
	  lost_events: $lost, evicted_processes: $evicted,
	  rss_kb: {warm: $rss0, end: $rss1}, map_entries: {warm: $maps0, end: $maps1}}' \
	>"$OUT/soak.json"

fail=0
[ "$counted" -eq "$done_tz" ] || { echo "soak: counted $counted of $done_tz" >&2; fail=1; }
[ "$lost" -eq 0 ] || { echo "soak: $lost events lost" >&2; fail=1; }
if [ "$grew" -gt 1024 ] && [ "$grew" -gt $((rss0 / 10)) ]; then
	echo "soak: RSS grew by $grew kB" >&2
	fail=1
fi
exit $fail
