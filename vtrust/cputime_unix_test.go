//go:build unix

package vtrust

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, all threads (the garbage
// collector's included). Benchmarks report it beside wall time because on
// a shared machine the wall time of a CPU-bound loop says more about the
// neighbours than about the code.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
