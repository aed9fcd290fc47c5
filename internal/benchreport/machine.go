package main

import (
	"os"
	"runtime"
	"strings"
)

// Machine is where the figures came from. The load averages say how much
// else the machine was doing: the benchmarks' baselines run in the same
// iterations, so ratios survive load better than absolute figures do.
type Machine struct {
	CPU       string `json:"cpu"`
	NProc     int    `json:"nproc"`
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	// LoadStart and LoadEnd are /proc/loadavg's 1, 5 and 15 minute
	// averages when the report started and ended.
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end"`
}

func thisMachine() Machine {
	return Machine{
		CPU:       cpuModel(),
		NProc:     runtime.NumCPU(),
		GoVersion: runtime.Version(),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		LoadStart: loadAverage(),
	}
}

// cpuModel is /proc/cpuinfo's first model name, or "unknown CPU".
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
