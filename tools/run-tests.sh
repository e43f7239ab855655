#!/bin/bash
# Runs the unit test binaries, the bats files and make steps (fuzz smoke,
# lint, the sanitizer pass), echoing their TAP output, then how long each
# file and step took, and ends with the one line CI reads: "N passed, N
# failed".
#   run-tests.sh all UNIT_BIN... -- BATS_FILE... [-- MAKE_TARGET...]
#   run-tests.sh unit UNIT_BIN...      run-tests.sh bats BATS_FILE...
set -u
mode=$1
shift
units=()
bats_files=()
steps=()
case $mode in
unit) units=("$@") ;;
bats) bats_files=("$@") ;;
all)
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do units+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do bats_files+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	steps=("$@")
	;;
*) echo "usage: $0 all|unit|bats ..." >&2; exit 2 ;;
esac

log=$(mktemp)
times=$(mktemp)
trap 'rm -f "$log" "$times"' EXIT
status=0

# timed NAME: seconds since the last mark, logged for the summary.
mark=$SECONDS
timed() {
	local s=$((SECONDS - mark))

	printf '# time: %s %d s\n' "$1" "$s"
	printf '%6d s  %s\n' "$s" "$1" >>"$times"
	mark=$SECONDS
}

# Each status is the command's (PIPESTATUS), not tee's.
for t in "${units[@]}"; do
	echo "# unit: $t"
	CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1 | tee -a "$log"
	# A binary that dies without a "not ok" line still fails.
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "not ok unit $t" | tee -a "$log"; status=1; }
	timed "unit $t"
done
# One bats run per file, so that each file's time is its own.
for f in "${bats_files[@]}"; do
	echo "# integration: $f"
	bats --tap "$f" 2>&1 | tee -a "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
	timed "bats $f"
done

# A step reports its own "ok"/"not ok" lines; a failure it did not name
# still counts as one.
for target in "${steps[@]}"; do
	echo "# step: make $target"
	make --no-print-directory "$target" 2>&1 | tee "$log.step"
	if [ "${PIPESTATUS[0]}" -ne 0 ]; then
		grep -qE '^not ok ' "$log.step" || echo "not ok make $target" | tee -a "$log.step"
		status=1
	fi
	cat "$log.step" >> "$log"
	timed "make $target"
done
rm -f "$log.step"

echo "# time per file and step, longest first:"
sort -rn "$times" | sed 's/^/# /'

passed=$(grep -cE '^ok ' "$log")
failed=$(grep -cE '^not ok ' "$log")
skipped=$(grep -cE '^ok .*# skip' "$log")
# In CI a skipped BPF test is a failure: nothing may pass by not running.
if [ "${CI:-}" = "true" ] && [ "$skipped" -gt 0 ]; then
	echo "# $skipped test(s) skipped in CI: counted as failed"
	failed=$((failed + skipped))
	passed=$((passed - skipped))
fi
[ "$failed" -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
