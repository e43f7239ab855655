#!/bin/bash
# Writes the README's table of tested kernels from the last make vmtest
# (build/vmtest/results): per kernel and architecture, what passed, the
# kernel features that make clocktrace behave differently there (from
# doctor --json run inside that guest), and the oldest kernel that passes.
#   table.sh README.md      replaces the block between the markers
set -eu

readme=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
results=${VMTEST_DIR:-$top/build/vmtest}/results
begin='<!-- vmtest table: written by make vmtest-readme from the last make vmtest -->'
end='<!-- vmtest table end -->'

ls "$results"/*.row > /dev/null 2>&1 || {
	echo "table.sh: no results in $results: run make vmtest first" >&2
	exit 1
}

debian_release()
{
	case $1 in
	bullseye) echo "11 (bullseye)" ;;
	bookworm) echo "12 (bookworm)" ;;
	trixie) echo "13 (trixie)" ;;
	*) echo "$1" ;;
	esac
}

# The doctor report the guest printed, or {} when there was none.
doctor_json()
{
	local j
	j=$(sed -n 's/^doctor //p' "$1.info" 2>/dev/null | head -n 1)
	echo "${j:-{\}}"
}

# "yes"/"no" per feature that changes what clocktrace loads or costs,
# doctor's "variant" checks among them (which fallback the binary runs).
features()
{
	jq -r '[.checks[]? | select(.check | IN("task storage", "uprobe_multi",
		"fentry") or startswith("variant ")) |
		"\(.check | ltrimstr("variant ")) \(.detail | split(" ")[0] | rtrimstr(":"))"]
		| join(", ")' <<< "$1"
}

# doctor's warnings and failures, and each fallback variant chosen, as
# "check: detail".
differences()
{
	jq -r '[.checks[]? | select(.status != "ok" or
		(.check | startswith("variant ")) and (.detail | startswith("no"))) |
		"\(if .status == "ok" then "" else .status + " " end)\(.check |
		ltrimstr("variant ")): \(.detail)"] | join("; ")' <<< "$1" |
		sed 's/|/\\|/g'
}

# 6.1 of 6.1.0-50-cloud-amd64.
short_release()
{
	sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<< "$1"
}

outcome()
{
	local total passed failed
	total=$(grep -c . "$1.names" || true)
	passed=$(grep -c '^ok ' "$1.names" || true)
	if [ "$total" -gt 0 ] && [ "$passed" -eq "$total" ]; then
		echo "all $total pass"
	else
		failed=$(sed -n 's/^not ok //p' "$1.names" | paste -sd, - | sed 's/,/, /g')
		echo "$passed of $total pass; failed: $failed"
	fi
}

table()
{
	local row id arch suite glob subset release doc passing=
	echo "$begin"
	echo
	echo "| kernel | Debian | arch | tests (subset) | clocksource | features | what differs (doctor: warnings, failures, fallbacks) |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for row in "$results"/*.row; do
		id=${row%.row}
		read -r arch suite glob subset < "$row"
		release=$(cat "$id.release" 2>/dev/null || echo "$glob")
		doc=$(doctor_json "$id")
		echo "| $(short_release "$release") ($release) | $(debian_release "$suite") | $arch | $(outcome "$id") ($subset)" \
			"| $(sed -n 's/^clocksource //p' "$id.info" 2>/dev/null) | $(features "$doc")" \
			"| $(differences "$doc") |"
		grep -q '^not ok' "$id.names" 2>/dev/null ||
			passing="$passing$(short_release "$release") $arch"$'\n'
	done
	echo
	read -r day seconds jobs < "$results/summary"
	echo "Run on $day: \`make vmtest\` took $seconds s ($jobs guest(s) at once, qemu TCG)."
	echo "The guests' clocksource is whatever their kernel picked under TCG (hpet"
	echo "or tsc); the tests expect the vDSO fallback's syscalls only on hpet."
	if [ -n "$passing" ]; then
		oldest=$(echo "$passing" | sed '/^$/d' | sort -V | head -n 1 | cut -d' ' -f1)
		arches=$(echo "$passing" | awk -v v="$oldest" '$1 == v { print $2 }' |
			paste -sd, - | sed 's/,/, /g')
		echo "Minimum kernel: **Linux $oldest** ($arches), the oldest here that" \
			"passes every test of its subset."
	else
		echo "Minimum kernel: none of these kernels passes every test."
	fi
	echo
	echo "$end"
}

# Replaces the block between the markers, or adds it before Limitations.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
table > "$tmp.table"
if grep -qF "$begin" "$readme"; then
	awk -v b="$begin" -v e="$end" -v t="$tmp.table" '
		$0 == b { while ((getline l < t) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$readme" > "$tmp"
else
	awk -v t="$tmp.table" '
		/^## Limitations/ {
			print "## Tested kernels\n"
			print "`make test` boots each of these kernels under qemu and runs an"
			print "integration subset inside (`make vmtest`, `tests/vm/guest-tests.sh`):"
			print "exact counts against the workloads, `--libc`, `attach -p`, `doctor`,"
			print "no BPF object left.  Each result counts in the closing line of `make test`."
			print "Add a kernel with one line of `VMTEST_KERNELS` in the Makefile.\n"
			while ((getline l < t) > 0) print l
			print ""
		}
		{ print }' "$readme" > "$tmp"
fi
rm -f "$tmp.table"
cat "$tmp" > "$readme"
