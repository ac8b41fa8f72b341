//go:build linux

package procs

import (
	"errors"
	"fmt"
	"os/exec"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spinners is how many busy processes take CPU 0 from a starved process: the scheduler gives a
// SCHED_IDLE thread about 3/1024 of each one's share.
const spinners = 4

// Starve keeps pid from running for d, the way a loaded machine does whatever the machine's load (the
// guard's tests): every thread of pid moves to CPU 0 at SCHED_IDLE, where busy processes at the normal
// policy take the CPU, so a thread that has work stays runnable and waits for it. starved is called once
// they wait; then everything is put back.
func Starve(pid int, d time.Duration, starved func()) error {
	var cpu0, all unix.CPUSet
	cpu0.Set(0)
	if err := unix.SchedGetaffinity(pid, &all); err != nil {
		return err
	}
	var busy []*exec.Cmd
	defer func() {
		for _, c := range busy {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for range spinners {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			return err
		}
		busy = append(busy, c)
		if err := unix.SchedSetaffinity(c.Process.Pid, &cpu0); err != nil {
			return err
		}
	}
	const schedOther, schedIdle = 0, 5
	// A thread that ended meanwhile (ESRCH) needs nothing: threads come and go, and the watchdog may have
	// killed the whole process, which is what the control run expects.
	set := func(aff *unix.CPUSet, policy uint32) error {
		for _, tid := range Threads(pid) {
			attr := unix.SchedAttr{Size: uint32(unsafe.Sizeof(unix.SchedAttr{})), Policy: policy}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("thread %d: policy %d: %w", tid, policy, err)
			}
			if err := unix.SchedSetaffinity(tid, aff); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("thread %d: affinity: %w", tid, err)
			}
		}
		return nil
	}
	defer set(&all, schedOther)
	if err := set(&cpu0, schedIdle); err != nil {
		return err
	}
	starved()
	time.Sleep(d)
	// Threads started meanwhile inherited the policy; set covers them too.
	return set(&all, schedOther)
}
