//go:build unix

package history

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far, in user and system
// mode. On a loaded machine it says more about a benchmark's cost than the
// elapsed time, which other processes stretch.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
