//go:build windows

package verify_test

import (
	"time"

	"golang.org/x/sys/windows"
)

// processCPUTime is this process's user+system CPU time, all threads.
func processCPUTime() (time.Duration, error) {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0, err
	}
	// FILETIMEs count 100 ns intervals; these are durations, not dates.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100, nil
}
