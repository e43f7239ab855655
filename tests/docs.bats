#!/usr/bin/env bats
# The docs agree with the code (issue 18): where a fact is written in the
# code and again in the docs, these tests hold the second to the first.
# No BPF here: they read the tree and `clocktrace COMMAND --help`.

load helpers

MAN="$ROOT/docs/clocktrace.8"
COMPLETION="$ROOT/completion/clocktrace.bash"
COMMANDS="run attach top bench doctor"

# The Makefile's kernel matrix, one ARCH:SUITE:PACKAGE:SUBSET a line.
vmtest_kernels() {
	make -C "$ROOT" -s --no-print-directory \
		--eval '_docs-kernels: ; @echo $(VMTEST_KERNELS)' _docs-kernels |
		tr ' ' '\n' | sed '/^$/d'
}

# The oldest kernel version of the matrix, MAJOR.MINOR.
oldest_kernel() {
	vmtest_kernels | sed -E 's/.*:linux-image-([0-9]+\.[0-9]+)[.-].*/\1/' |
		sort -V | head -1
}

# The options of COMMAND as cli.c's table prints them in --help: "-x" and
# "--name", one per line.  Continuation lines of a help text are indented
# past the option column, so they never match.
table_opts() {
	"$CT" "$1" --help |
		sed -nE 's/^  (-[a-zA-Z]), (--[a-z][a-z-]*).*/\1\n\2/p;
			 s/^      (--[a-z][a-z-]*).*/\1/p'
}

# The part of the man page that documents COMMAND's options.
man_section() {
	case $1 in
	run | attach | top) sed -n '/^\.SS Options of run, attach and top/,/^\.SS /p' "$MAN" ;;
	*) sed -n "/^\.SS Options of $1\$/,/^\.S[SH] /p" "$MAN" ;;
	esac
}

# The words of the completion's option list for COMMAND.
completion_opts() {
	# shellcheck disable=SC1090
	source "$COMPLETION"
	local v=_clocktrace_opts_$1
	printf '%s\n' ${!v}
}

@test "docs: README's minimum kernel is the oldest kernel of the Makefile's VMTEST_KERNELS" {
	oldest=$(oldest_kernel)
	echo "oldest in VMTEST_KERNELS: $oldest"
	[[ $oldest =~ ^[0-9]+\.[0-9]+$ ]]
	minimum=$(sed -nE 's/^Minimum kernel: \*\*Linux ([0-9.]+)\*\*.*/\1/p' "$ROOT/README.md")
	needs=$(grep -oE 'Needs Linux [0-9.]+ or later' "$ROOT/README.md" |
		grep -oE '[0-9]+\.[0-9]+')
	echo "README: minimum $minimum, needs $needs"
	[ "$minimum" = "$oldest" ]
	[ "$needs" = "$oldest" ]
	# The man page's KERNELS section says the same.
	grep -qE "Linux $oldest( |$)" <(sed -n '/^\.SH KERNELS/,/^\.SH /p' "$MAN")
}

@test "docs: doctor's oldest tested kernel is the matrix's oldest" {
	oldest=$(oldest_kernel)
	major=$(sed -nE 's/^#define OLDEST_TESTED_MAJOR\s+([0-9]+)$/\1/p' "$ROOT/user/cmd/doctor.c")
	minor=$(sed -nE 's/^#define OLDEST_TESTED_MINOR\s+([0-9]+)$/\1/p' "$ROOT/user/cmd/doctor.c")
	echo "doctor: $major.$minor, matrix: $oldest"
	[ "$major.$minor" = "$oldest" ]
}

@test "docs: every option of cli.c's table is in the man page, in its command's section" {
	missing=""
	for cmd in $COMMANDS; do
		opts=$(table_opts "$cmd")
		[ -n "$opts" ] || { echo "no options parsed for $cmd"; false; }
		section=$(man_section "$cmd")
		for opt in $opts; do
			# roff spells - as \-; an option is set in bold at the
			# start of a .TP paragraph (.B, .BR or .BI).
			roff=${opt//-/\\-}
			grep -E '^\.B[RI]? ' <<<"$section" | grep -qF -- "$roff" ||
				missing+=" $cmd:$opt"
		done
	done
	[ -z "$missing" ] || { echo "not in the man page:$missing"; false; }
}

@test "docs: every option of cli.c's table is in the completion of its command, and no other" {
	for cmd in $COMMANDS; do
		table_opts "$cmd" | sort -u >"$BATS_TEST_TMPDIR/table"
		completion_opts "$cmd" | sort -u >"$BATS_TEST_TMPDIR/completion"
		diff "$BATS_TEST_TMPDIR/table" "$BATS_TEST_TMPDIR/completion" ||
			{ echo "in $cmd (< table, > completion)"; false; }
	done
}

# A newcomer finds every file of bpf/ and user/ in the map of the code: a
# module (NAME.c with its NAME.h) is named as either file.
@test "docs: docs/architecture.md names every file of bpf/ and user/" {
	missing=""
	for f in "$ROOT"/bpf/* "$ROOT"/user/*/*.[ch]; do
		name=$(basename "$f")
		stem=${name%.[ch]}
		grep -qE "(^|[^a-z_])$stem\.[ch]([^a-z_]|$)" \
			"$ROOT/docs/architecture.md" || missing+=" ${f#"$ROOT"/}"
	done
	[ -z "$missing" ] || { echo "not in docs/architecture.md:$missing"; false; }
}
