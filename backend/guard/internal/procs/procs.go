//go:build linux

// Package procs reads, from /proc, the child processes of a process and how much CPU time a process's
// main thread has had: the guard's watchdog tells a web process that spins from one that waits for a CPU
// (backend/guard, docs/performance.md).
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

// MainThreadCPU is how long pid's main thread has run on a CPU: /proc/<pid>/task/<pid>/schedstat (ns),
// else its stat's user and system time (clock ticks, assumed 100 per second).
func MainThreadCPU(pid int) (time.Duration, bool) {
	task := filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(pid))
	if b, err := os.ReadFile(filepath.Join(task, "schedstat")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return time.Duration(ns), true
			}
		}
	}
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
