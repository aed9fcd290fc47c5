//go:build unix

package verify_test

import (
	"syscall"
	"time"
)

// processCPUTime is this process's user+system CPU time, all threads.
func processCPUTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
