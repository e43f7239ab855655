# Forked Ruby workers that reach the local time and the CPU-time clock
# through known chains of methods, N times each, and say so: the oracle
# tests/lang_ruby.bats checks --lang-depth's stacks against.
#   ruby --disable-gems chain.rb N WORKERS
# Setting ENV["TZ"] makes Ruby call tzset() again at the next localtime
# (one stat of /etc/localtime); a CPU-time read is one clock_gettime
# syscall.  GC is off because a collection reads the CPU-time clock too.
GC.disable
n = Integer(ARGV[0] || 100)
workers = Integer(ARGV[1] || 2)

class Order
  def due_at
    ENV["TZ"] = nil
    Time.now.localtime
  end

  def cpu_spent
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  end
end

class OrdersController
  def index(n)
    order = Order.new
    n.times { order.due_at }
  end

  def show(n)
    order = Order.new
    n.times { order.cpu_spent }
  end
end

def serve(n)
  c = OrdersController.new
  c.index(n)
  c.show(n)
  warn "WORKLOAD role=worker pid=#{Process.pid} due_at_calls=#{n} cpu_reads=#{n}"
end

pids = Array.new(workers) { fork { serve(n) } }
pids.each { |pid| Process.wait(pid) }
