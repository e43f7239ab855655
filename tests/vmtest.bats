#!/usr/bin/env bats
# The kernel matrix's harness (tools/vmtest/run.sh) itself: a guest that
# cannot boot or does not finish makes every one of its tests fail, and each
# test the guest script lists exists.  The matrix runs in make vmtest.

bats_require_minimum_version 1.5.0
load helpers

VM="$ROOT/tools/vmtest/run.sh"
GUEST="$ROOT/tests/vm/guest-tests.sh"
K612='x86_64:trixie:linux-image-6.12.*-cloud-amd64-unsigned'

setup() {
	export VMTEST_RESULTS="$BATS_TEST_TMPDIR/results"
}

@test "vmtest: every test the guest lists is defined, in every subset" {
	for subset in full small boot; do
		names=$(sh "$GUEST" list "$subset" | cut -d' ' -f1)
		[ -n "$names" ]
		for name in $names; do
			grep -q "^t_$name()" "$GUEST"
		done
	done
	# boot is in every subset: it is what proves a guest came up.
	[ "$(sh "$GUEST" list small | head -n 1 | cut -d' ' -f1)" = boot_kernel ]
}

@test "vmtest: a kernel the archive does not have fails each of its tests" {
	run "$VM" 'x86_64:bookworm:linux-image-0.0.0-*-none-unsigned:small'
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(grep -c '^not ok ' <<< "$output")" -eq "$(sh "$GUEST" list small | wc -l)" ]
	[ "$(grep -c '^ok ' <<< "$output")" -eq 0 ]
	grep -q '^# no kernel' <<< "$output"
}

@test "vmtest: a guest stopped by the timeout fails each test it did not report" {
	VMTEST_TIMEOUT=2 run "$VM" "$K612:full"
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(grep -c '^not ok ' <<< "$output")" -eq "$(sh "$GUEST" list full | wc -l)" ]
	grep -q 'stopped after 2s' <<< "$output"
}
