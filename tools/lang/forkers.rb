# A Ruby program forking workers that read the local time and CPU time,
# as in the first seed.  Each process makes exactly N of each call: the
# oracle --lang's counts are checked against.
#   ruby forkers.rb N WORKERS
# Setting ENV["TZ"] makes Ruby call tzset() again on the next localtime,
# which is what a per-request time-zone change does; GC is off because a
# collection reads the CPU-time clock too.
GC.disable
n = Integer(ARGV[0] || 100)
workers = Integer(ARGV[1] || 2)

def work(n)
  n.times { ENV["TZ"] = nil; Time.now.localtime.strftime("%H:%M") }
  n.times { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
end

pids = Array.new(workers) { fork { work(n) } }
work(n)
pids.each { |pid| Process.wait(pid) }
