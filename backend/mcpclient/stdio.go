package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/display"
)

// inheritedEnv are the variables of Voicebox's own environment a stdio server gets, beside its entry's env:
// what a program needs to find itself and its files (the MCP TypeScript SDK's default list, plus the
// locale and the temporary folder). Nothing else of Voicebox's environment reaches a server: not the
// voice providers' keys, not VOICEBOX_* settings.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}

// serverEnv is the environment of a stdio server: inheritedEnv from getenv, then the entry's own.
func serverEnv(getenv func(string) string, own map[string]string) []string {
	var env []string
	for _, k := range inheritedEnv {
		if _, set := own[k]; set {
			continue
		}
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range own {
		env = append(env, k+"="+v)
	}
	return env
}

// stdioTransport runs one stdio server: its command in a process group of its own (so that stopping it
// stops whatever it started, npx's node too), stdin and stdout for MCP, stderr into the server's ring.
type stdioTransport struct {
	cfg    Server
	stderr *ring
	grace  time.Duration
	getenv func(string) string

	mu   sync.Mutex
	proc *proc
}

// proc is one started server process.
type proc struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	grace   time.Duration
	exited  chan struct{} // closed when the process has exited
	exitErr error         // its exit status, once exited is closed
	drained chan struct{} // closed when its stderr reached end of file (all of it is in the ring)
	closeRd sync.Once
}

// Connect starts the command. The process outlives ctx: it ends when the session closes it.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.cfg.Command, t.cfg.Args...)
	cmd.Env = serverEnv(t.getenv, t.cfg.Env)
	cmd.Dir = t.cfg.Cwd
	if cmd.Dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cmd.Dir = home
		} else {
			cmd.Dir = "/"
		}
	}
	ownProcessGroup(cmd)
	// Pipes of our own, not cmd.StdoutPipe: Wait must not close the reader under the SDK, and must not wait
	// for a grandchild that still holds stderr.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW) // the child holds its ends now
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, grace: t.grace, exited: make(chan struct{}), drained: make(chan struct{})}
	go func() {
		_, _ = io.Copy(t.stderr, errR)
		errR.Close()
		close(p.drained)
	}()
	go p.wait()
	t.mu.Lock()
	t.proc = p
	t.mu.Unlock()
	return (&mcp.IOTransport{Reader: p.stdout, Writer: p, MaxLineLength: MaxMessageBytes}).Connect(context.Background())
}

// wait records the exit, then ends whatever the server left running in its group, so its stdout reaches
// end of file and the session ends; a reader still open after grace is closed (a grandchild that left the
// group).
func (p *proc) wait() {
	p.exitErr = p.cmd.Wait()
	close(p.exited)
	signalGroup(p.cmd, killSignal)
	go func() {
		time.Sleep(p.grace)
		p.closeReader()
	}()
}

func (p *proc) closeReader() { p.closeRd.Do(func() { p.stdout.Close() }) }

// Write sends to the server's stdin.
func (p *proc) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close stops the server the way the MCP spec asks of a stdio client: close its stdin, wait, SIGTERM,
// wait, SIGKILL; each to the whole process group.
func (p *proc) Close() error {
	p.stdin.Close()
	defer p.closeReader()
	waitExit := func() bool {
		select {
		case <-p.exited:
			return true
		case <-time.After(p.grace):
			return false
		}
	}
	if waitExit() {
		return nil
	}
	signalGroup(p.cmd, termSignal)
	if waitExit() {
		return nil
	}
	signalGroup(p.cmd, killSignal)
	if waitExit() {
		return nil
	}
	return errors.New("the server's process did not exit")
}

// exitReason describes how the last process ended ("" while it runs or when none started). It waits up
// to grace for the exit and the end of its stderr, so a reason and the stderr tail read after a failure
// are complete (a session can see end of file a moment before the process is reaped).
func (t *stdioTransport) exitReason() string {
	t.mu.Lock()
	p := t.proc
	t.mu.Unlock()
	if p == nil {
		return ""
	}
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	for _, ch := range []chan struct{}{p.exited, p.drained} {
		select {
		case <-ch:
		case <-timer.C:
			return ""
		}
	}
	var ee *exec.ExitError
	switch {
	case p.exitErr == nil:
		return "it exited"
	case errors.As(p.exitErr, &ee) && ee.ExitCode() >= 0:
		return fmt.Sprintf("it exited with status %d", ee.ExitCode())
	}
	return "it ended: " + p.exitErr.Error()
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// ring keeps the newest MaxStderrBytes bytes written to it.
type ring struct {
	mu  sync.Mutex
	buf []byte
}

func (r *ring) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, b...)
	if over := len(r.buf) - MaxStderrBytes; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(b), nil
}

// mark writes a line of Voicebox's own into the ring (a start), so the person can tell runs apart.
func (r *ring) mark(format string, a ...any) {
	r.mu.Lock()
	nl := len(r.buf) > 0 && r.buf[len(r.buf)-1] != '\n'
	r.mu.Unlock()
	s := fmt.Sprintf("[voicebox] "+format+"\n", a...)
	if nl {
		s = "\n" + s
	}
	_, _ = r.Write([]byte(s))
}

// tail is the last n lines, each made safe to show (display.Clean) and bounded.
func (r *ring) tail(n int) string {
	r.mu.Lock()
	s := string(r.buf)
	r.mu.Unlock()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = display.Cut(display.Clean(l), 1024)
	}
	return strings.Join(lines, "\n")
}
