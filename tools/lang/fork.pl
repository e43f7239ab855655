# Forked workers converting local times with perl's localtime builtin,
# which calls tzset() before localtime_r() (Debian's perl is built with
# LOCALTIME_R_NEEDS_TZSET): one time-zone access per call.
#
#     perl fork.pl N WORKERS [LINGER]
#
# Each worker makes exactly N localtime calls and says so; the parent
# then stays LINGER seconds (select(): no clock or tz call), its maps
# readable by a tracer that reads them late.
use strict;
use warnings;

sub work {
	my ($n) = @_;
	my $t = 0;
	for (1 .. $n) {
		my @tm = localtime($t++);
	}
	syswrite(STDERR, "WORKLOAD role=worker pid=$$ localtime_calls=$n\n");
}

my ($n, $workers, $linger) = @ARGV;
my @kids;
for (1 .. $workers) {
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		work($n);
		exit(0);
	}
	push @kids, $pid;
}
waitpid($_, 0) for @kids;
select(undef, undef, undef, $linger) if $linger;
