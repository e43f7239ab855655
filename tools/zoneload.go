// Zone files loaded by name, and clock syscalls, from a program with no C
// library: Go opens and reads /usr/share/zoneinfo/NAME itself at every
// time.LoadLocation (no cache), and syscall.Syscall enters the kernel with
// no libc to probe.  Only the standard library: it builds with no network.
//
//	zoneload [-n LOADS] [-s CPUTIME_SYSCALLS] [-z ZONE]
//
// Prints its own counts on one WORKLOAD line (tools/README.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

const clockProcessCputimeID = 2

func loadZones(zone string, n int) int {
	for i := 0; i < n; i++ {
		if _, err := time.LoadLocation(zone); err != nil {
			fmt.Fprintln(os.Stderr, "zoneload:", err)
			os.Exit(1)
		}
	}
	return n
}

func readCPUClock(n int) int {
	var ts syscall.Timespec

	for i := 0; i < n; i++ {
		_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME,
			clockProcessCputimeID, uintptr(unsafe.Pointer(&ts)), 0)
		if e != 0 {
			fmt.Fprintln(os.Stderr, "zoneload: clock_gettime:", e)
			os.Exit(1)
		}
	}
	return n
}

func main() {
	n := flag.Int("n", 1000, "time.LoadLocation calls")
	s := flag.Int("s", 1000, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) syscalls")
	zone := flag.String("z", "Europe/Paris", "zone to load")
	flag.Parse()
	if flag.NArg() != 0 || *n < 0 || *s < 0 {
		flag.Usage()
		os.Exit(2)
	}
	loads := loadZones(*zone, *n)
	clocks := readCPUClock(*s)
	// One write: lines of concurrent processes never mix.
	os.Stderr.WriteString(fmt.Sprintf("WORKLOAD pid=%d ppid=%d role=parent tz_stat=0 tz_open=%d clock_syscalls=%d libc_calls=0 load_location_calls=%d\n",
		os.Getpid(), os.Getppid(), loads, clocks, loads))
}
