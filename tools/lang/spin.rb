# Ruby C-method calls that never enter the kernel, timed by the workload
# itself: what --lang must not slow down (tests/perf/lang_ruby.bats).
#   ruby spin.rb N    N calls of Process.clock_gettime(CLOCK_MONOTONIC): a
#                     C method, served by the vDSO, no syscall
# Prints the loop's own CPU time per iteration, so a tracer's start-up is
# not in it.
n = Integer(ARGV[0] || 1_000_000)
cpu = Process::CLOCK_PROCESS_CPUTIME_ID
mono = Process::CLOCK_MONOTONIC
start = Process.clock_gettime(cpu, :nanosecond)
n.times { Process.clock_gettime(mono) }
used = Process.clock_gettime(cpu, :nanosecond) - start
warn format("WORKLOAD n=%d cpu_ns=%d cpu_ns_per=%.1f", n, used, used.to_f / n)
