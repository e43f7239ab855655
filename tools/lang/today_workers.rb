# Forked Ruby workers that call Date.today (one stat of /etc/localtime per
# call, Ruby 3.1 and 3.3) and read their CPU time (one clock_gettime
# syscall per read), N times each, and say so: the oracle
# tests/lang_ruby.bats (3.1) and tests/lang_trixie.bats (3.3) check
# --lang's counts per line against.
#   ruby today_workers.rb N WORKERS [wait]
# With "wait", every process says it is waiting and works only after a
# SIGUSR1: a tracer attached meanwhile sees all of the work.  GC is off
# because a collection reads the CPU-time clock too.
require "date"
GC.disable
n = Integer(ARGV[0] || 100)
workers = Integer(ARGV[1] || 2)
go = ARGV[2] != "wait"

def work(n, role)
  n.times { Date.today }
  n.times { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
  warn "WORKLOAD role=#{role} pid=#{Process.pid} today_calls=#{n} cputime_reads=#{n}"
end

def start(go, role)
  return if go

  ready = false
  trap("USR1") { ready = true }
  warn "WORKLOAD role=#{role} pid=#{Process.pid} waiting"
  sleep 0.01 until ready
end

pids = Array.new(workers) { fork { start(go, "worker"); work(n, "worker") } }
start(go, "parent")
work(n, "parent")
pids.each { |pid| Process.wait(pid) }
