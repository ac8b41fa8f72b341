//go:build linux

// Package procs reads, from /proc, the child processes of a process, how much CPU time a process's main
// thread has had and whether its threads wait for a CPU: the guard's watchdog tells a web process that
// spins or is stuck from one that a loaded machine does not run (backend/guard, docs/performance.md,
// "Watchdog").
package procs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Children are the processes whose parent is pid and whose name (as /proc/<pid>/comm has it: at most 15
// bytes) is comm.
func Children(pid int, comm string) []int {
	var out []int
	for _, c := range childPIDs(pid) {
		if name, ok := commOf(c); ok && name == comm {
			out = append(out, c)
		}
	}
	return out
}

// childPIDs reads /proc/<pid>/task/*/children (each thread's children), or scans /proc where the kernel
// has no such file.
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	if len(tasks) > 0 {
		var out []int
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, s := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(s); err == nil {
					out = append(out, c)
				}
			}
		}
		return out
	}
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		c, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(c); ok && pp == pid {
			out = append(out, c)
		}
	}
	return out
}

// stat returns the fields of /proc/<pid>/stat after the command name, and the name.
func stat(pid int) ([]string, string, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, "", false
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return nil, "", false
	}
	return strings.Fields(s[close+1:]), s[open+1 : close], true
}

func commOf(pid int) (string, bool) {
	_, name, ok := stat(pid)
	return name, ok
}

func parentOf(pid int) (int, bool) {
	f, _, ok := stat(pid)
	if !ok || len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// threadRan reads how long a thread has run on a CPU from /proc/<pid>/task/<tid>/schedstat (ns). (Its
// second figure, the time spent waiting for a CPU, is only added once the thread gets one: a thread that
// waits right now does not show there. Waiting looks at the thread's state instead.)
func threadRan(pid, tid int) (time.Duration, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "schedstat"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 0, false
	}
	r, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(r), err == nil
}

// threadState is a thread's state letter in /proc/<pid>/task/<tid>/stat: R running or runnable, S
// sleeping, D waiting for the disk, T stopped…
func threadState(pid, tid int) (byte, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	close := strings.LastIndexByte(s, ')')
	if close < 0 || close+2 >= len(s) {
		return 0, false
	}
	return s[close+2], true
}

// WaitWatch tells, from one look to the next, whether processes wait for the machine: one of their
// threads is runnable but ran less than half the time since the last look (it waits for a CPU), or waits
// for the disk. A thread that spins runs; one that is stopped, or sleeps waiting for an answer that does
// not come, does not wait for the machine. The zero value is ready.
type WaitWatch struct {
	at  time.Time
	ran map[int]time.Duration // by thread id, at the last look
}

// Waiting looks at every thread of pids now.
func (w *WaitWatch) Waiting(pids []int) bool {
	now := time.Now()
	half := now.Sub(w.at) / 2
	ran := map[int]time.Duration{}
	waiting := false
	for _, pid := range pids {
		for _, tid := range Threads(pid) {
			st, ok := threadState(pid, tid)
			if !ok {
				continue
			}
			r, _ := threadRan(pid, tid)
			ran[tid] = r
			before, seen := w.ran[tid]
			switch {
			case st == 'D':
				waiting = true
			case st == 'R' && (!seen || r-before < half):
				waiting = true
			}
		}
	}
	w.at, w.ran = now, ran
	return waiting
}

// Threads are the ids of pid's threads (its main thread's is pid).
func Threads(pid int) []int {
	dirs, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	var out []int
	for _, d := range dirs {
		if tid, err := strconv.Atoi(d.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// MainThreadCPU is how long pid's main thread has run on a CPU: /proc/<pid>/task/<pid>/schedstat (ns),
// else its stat's user and system time (clock ticks, assumed 100 per second).
func MainThreadCPU(pid int) (time.Duration, bool) {
	if ran, ok := threadRan(pid, pid); ok {
		return ran, true
	}
	task := filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(task, "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	close := strings.LastIndexByte(s, ')')
	if close < 0 {
		return 0, false
	}
	f := strings.Fields(s[close+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * 10 * time.Millisecond, true
}

// Resident is how much of pid's memory is in RAM now (its resident set, bytes): /proc/<pid>/statm's second
// field, in pages.
func Resident(pid int) (int64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
