//go:build linux

package procs

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A child that spins gains CPU time on its main thread; one that sleeps does not; both are found by name
// among this process's children, and nothing else is.
func TestChildrenAndTheirCPU(t *testing.T) {
	spin := exec.Command("sh", "-c", "while :; do :; done")
	sleep := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{spin, sleep} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	if got := Children(os.Getpid(), "sleep"); len(got) != 1 || got[0] != sleep.Process.Pid {
		t.Fatalf("Children(sleep) = %v, want [%d]", got, sleep.Process.Pid)
	}
	if got := Children(os.Getpid(), "sh"); len(got) != 1 || got[0] != spin.Process.Pid {
		t.Fatalf("Children(sh) = %v, want [%d]", got, spin.Process.Pid)
	}
	if got := Children(os.Getpid(), "no-such-name"); len(got) != 0 {
		t.Fatalf("Children(no-such-name) = %v", got)
	}
	first, ok := MainThreadCPU(spin.Process.Pid)
	if !ok {
		t.Fatal("no CPU time for the spinning child")
	}
	// The spinner's CPU time grows (however slowly a loaded machine schedules it).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		now, _ := MainThreadCPU(spin.Process.Pid)
		if now-first >= 100*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spinning child ran %v in a minute", now-first)
		}
	}
	if slept, ok := MainThreadCPU(sleep.Process.Pid); !ok || slept > 50*time.Millisecond {
		t.Fatalf("the sleeping child ran %v (ok %v), want next to nothing", slept, ok)
	}
}

// A process that a busy CPU does not run waits (TestWatchdogSparesAStarvedRoom starves the web process
// the same way); one that is stopped or sleeps does not, though none of them runs.
func TestWaitWatch(t *testing.T) {
	look := func(pid int) bool {
		var w WaitWatch
		w.Waiting([]int{pid})
		time.Sleep(200 * time.Millisecond)
		return w.Waiting([]int{pid})
	}
	start := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(name, args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	sleeper := start("sleep", "30")
	stopped := start("sleep", "30")
	stopped.Process.Signal(syscall.SIGSTOP)
	spin := start("sh", "-c", "while :; do :; done")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, _ := threadState(stopped.Process.Pid, stopped.Process.Pid)
		if st == 'T' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped child is in state %q", st)
		}
	}
	if look(sleeper.Process.Pid) {
		t.Error("a sleeping child waits for the machine")
	}
	if look(stopped.Process.Pid) {
		t.Error("a stopped child waits for the machine")
	}
	var starved bool
	err := Starve(spin.Process.Pid, 0, func() { starved = look(spin.Process.Pid) })
	if err != nil {
		t.Fatal(err)
	}
	if !starved {
		t.Error("a starved spinning child does not wait for the machine")
	}
}

// A child that fills 64 MiB of its memory holds that much more in RAM than one that does not (the watchdog
// tells the person how much the web process held before it failed: backend/recovery).
func TestResident(t *testing.T) {
	small := exec.Command("sleep", "30")
	// The shell keeps 64 MiB in a variable, then says so.
	big := exec.Command("sh", "-c", `x=$(head -c 67108864 /dev/zero | tr '\0' 'x'); echo ready; sleep 30`)
	out, err := big.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{small, big} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	if _, err := out.Read(make([]byte, 6)); err != nil {
		t.Fatal(err)
	}
	s, ok1 := Resident(small.Process.Pid)
	b, ok2 := Resident(big.Process.Pid)
	if !ok1 || !ok2 || s <= 0 || b < s+60<<20 {
		t.Fatalf("resident: sleep %d (%v), the shell holding 64 MiB %d (%v)", s, ok1, b, ok2)
	}
	if _, ok := Resident(1 << 30); ok {
		t.Error("a process that does not exist has a resident set")
	}
}
