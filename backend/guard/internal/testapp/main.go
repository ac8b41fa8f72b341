// Command testapp is a small Wails app used by the guard's tests. It serves a
// room page (wails://wails) that embeds mini-app frames from a local http
// server, and writes what happens (bound-method calls, events, file drops,
// quits, frame reports) as JSON lines to $GUARDLAB_OUT.
//
// Build: go build -tags desktop,production,webkit2_41 ./backend/guard/internal/testapp
//
// Environment:
//
//	GUARDLAB_OUT        output file (required)
//	GUARDLAB_SCENARIO   leak | watchdog | stopped | perm | nav | navblank | lookups
//	GUARDLAB_HANG_AFTER, GUARDLAB_HANG_CPU: guard.Options' HangAfter and HangCPU (durations)
//	GUARDLAB_CPU_WAIT_COUNTS=1  guard.Options' CPUWaitCounts
//	GUARDLAB_STOP       stopped: how long the web process is stopped (default 3s)
//	GUARDLAB_STARVE=1   stopped: starve the web process instead (procs.Starve)
//	GUARDLAB_STOP_ONLY=1  stopped: quit once the web process runs again
//	GUARDLAB_LABEL      lookups: the DNS label the frames use (VOICEBOX_RESOLVE_LOG records lookups)
//	GUARDLAB_DEADLINE   self-quit after this duration (default 25s)
//	VOICEBOX_UNSAFE_NO_GUARD=1, VOICEBOX_MOCK_CAPTURE=1: see package guard
package main

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/voicebox/voicebox/backend/guard"
	"github.com/voicebox/voicebox/backend/guard/internal/procs"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

//go:embed room
var roomFS embed.FS

//go:embed web
var webFS embed.FS

var (
	start   = time.Now()
	outMu   sync.Mutex
	out     *os.File
	ctxMu   sync.Mutex
	appCtx  context.Context
	harness atomic.Bool // the harness (not a leak) asked to quit
	seen    = map[string]int{}
	waiters = map[string][]chan struct{}{}
)

// record writes one event and wakes anyone waiting for it.
func record(ev, v string) {
	outMu.Lock()
	defer outMu.Unlock()
	b, _ := json.Marshal(map[string]any{"ms": time.Since(start).Milliseconds(), "ev": ev, "v": v})
	out.Write(append(b, '\n'))
	seen[ev]++
	for _, c := range waiters[ev] {
		close(c)
	}
	delete(waiters, ev)
	fmt.Fprintf(os.Stderr, "testapp: %s %s\n", ev, v)
}

// wait blocks until ev has been recorded n times or the timeout passes.
func wait(ev string, n int, d time.Duration) bool {
	deadline := time.After(d)
	for {
		outMu.Lock()
		if seen[ev] >= n {
			outMu.Unlock()
			return true
		}
		c := make(chan struct{})
		waiters[ev] = append(waiters[ev], c)
		outMu.Unlock()
		select {
		case <-c:
		case <-deadline:
			return false
		}
	}
}

func ctx() context.Context {
	ctxMu.Lock()
	defer ctxMu.Unlock()
	return appCtx
}

func quit(why string) {
	record("harness-quit", why)
	harness.Store(true)
	runtime.Quit(ctx())
}

// App is bound to the room.
type App struct {
	port     int
	scenario string
	hung     atomic.Bool
}

func (a *App) Config() map[string]any {
	return map[string]any{"port": a.port, "scenario": a.scenario, "label": os.Getenv("GUARDLAB_LABEL")}
}

func (a *App) Report(k, v string) { record("room:"+k, v) }

// Leak must only ever be called by a frame that escaped the guard.
func (a *App) Leak(who string) string {
	record("LEAK-call", who)
	return "leaked"
}

func (a *App) ShouldHang() bool { return !a.hung.Swap(true) }

func main() {
	var err error
	out, err = os.OpenFile(os.Getenv("GUARDLAB_OUT"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testapp: GUARDLAB_OUT:", err)
		os.Exit(2)
	}
	scenario := os.Getenv("GUARDLAB_SCENARIO")
	deadline := 25 * time.Second
	if d, err := time.ParseDuration(os.Getenv("GUARDLAB_DEADLINE")); err == nil {
		deadline = d
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	app := &App{port: ln.Addr().(*net.TCPAddr).Port, scenario: scenario}
	go serveFrames(ln)

	envDur := func(name string) time.Duration { d, _ := time.ParseDuration(os.Getenv(name)); return d }
	gerr := guard.Install(guard.Options{
		HangAfter:     envDur("GUARDLAB_HANG_AFTER"),
		HangCPU:       envDur("GUARDLAB_HANG_CPU"),
		CPUWaitCounts: os.Getenv("GUARDLAB_CPU_WAIT_COUNTS") == "1",
		RoomOrigin:    "wails://wails",
		Disabled:      os.Getenv(guard.UnsafeNoGuardEnv) == "1",
		ConfirmExternal: func(url string) bool {
			record("confirm", url)
			return !strings.Contains(url, "deny")
		},
		OnRecovering: func(reason string) {
			record("recovering", reason)
		},
		OnRecovered: func() {
			record("recovered", fmt.Sprint(guard.Active()))
		},
		Logf: func(f string, args ...any) {
			msg := fmt.Sprintf(f, args...)
			logMu.Lock()
			guardLogs = append(guardLogs, msg)
			logMu.Unlock()
			record("guard-log", msg)
		},
	})
	record("install", fmt.Sprint(gerr))

	roomAssets, _ := fs.Sub(roomFS, "room")
	err = wails.Run(&options.App{
		Title:       "guardlab",
		Width:       800,
		Height:      600,
		AssetServer: &assetserver.Options{Assets: roomAssets},
		Bind:        []any{app},
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		OnStartup: func(c context.Context) {
			ctxMu.Lock()
			appCtx = c
			ctxMu.Unlock()
			runtime.OnFileDrop(c, func(x, y int, paths []string) {
				record("LEAK-drop", fmt.Sprintf("%d:%d:%s", x, y, strings.Join(paths, ",")))
			})
			runtime.EventsOn(c, "leak-event", func(data ...any) { record("LEAK-event", fmt.Sprint(data...)) })
			runtime.EventsOn(c, "room-event", func(data ...any) { record("room-event", fmt.Sprint(data...)) })
			go drive(scenario, deadline)
		},
		OnDomReady: func(c context.Context) { record("domready", fmt.Sprint(guard.Active())) },
		OnBeforeClose: func(c context.Context) bool {
			if harness.Load() {
				record("quit", "harness")
			} else {
				record("quit", "NOT-harness")
			}
			return false
		},
	})
	record("exit", fmt.Sprint(err))
}

// drive runs the scenario's steps that need the Go side, then quits.
func drive(scenario string, deadline time.Duration) {
	time.AfterFunc(deadline, func() { quit("deadline") })
	record("active-at-startup", fmt.Sprint(guard.Active()))
	switch scenario {
	case "leak":
		// Give a leaked "Q" (sent 1s after the inner frame's attacks) and
		// the other messages time to arrive.
		if wait("frame:inner:done", 1, deadline) {
			time.Sleep(1500 * time.Millisecond)
		}
		quit("leak-done")
	case "watchdog":
		if wait("recovered", 1, deadline) && wait("room:ready", 2, 5*time.Second) {
			record("active-after-recovery", fmt.Sprint(guard.Active()))
			time.Sleep(300 * time.Millisecond)
		}
		quit("watchdog-done")
	case "stopped":
		stopped()
	case "perm":
		wait("frame:bridge-allow:gum-audio", 1, deadline)
		wait("frame:bridge-allow-pp:gum-audio", 1, 3*time.Second)
		wait("frame:bridge:gum-audio", 1, 3*time.Second)
		wait("frame:inner:gum-audio", 1, 3*time.Second)
		quit("perm-done")
	case "nav":
		if !wait("frame:bridge:ready", 1, deadline) {
			quit("nav-no-bridge")
			return
		}
		time.Sleep(300 * time.Millisecond)
		click()
		wait("frame:bridge:click", 1, 3*time.Second)
		time.Sleep(700 * time.Millisecond)
		click()
		wait("frame:bridge2:loaded", 1, 5*time.Second)
		runtime.EventsEmit(ctx(), "room-nav", fmt.Sprintf("http://127.0.0.1:%d/evil.html?deny", portOf()))
		wait("room:still-here", 1, 5*time.Second)
		runtime.EventsEmit(ctx(), "room-nav", "https://example.com/room-nav-deny")
		wait("room:still-here", 2, 5*time.Second)
		time.Sleep(300 * time.Millisecond)
		quit("nav-done")
	case "navblank":
		if wait("frame:bridge:ready", 1, deadline) {
			time.Sleep(300 * time.Millisecond)
			click()
			wait("recovered", 1, 5*time.Second)
			wait("room:flag", 2, 3*time.Second)
			time.Sleep(300 * time.Millisecond)
		}
		quit("navblank-done")
	case "lookups":
		// The frames tried every way to a host; then the room looks one up on purpose. Once that control
		// is in the resolver's log, anything the frames started before it would be there too.
		if wait("frame:inner:vectors-done", 1, deadline) {
			if guard.Active() { // the guard refuses the frame's last navigation: wait for its word on it
				waitLog("refused navigation to http://location-", 5*time.Second)
			}
			runtime.EventsEmit(ctx(), "lookup-control")
			ctl := "ctl-" + os.Getenv("GUARDLAB_LABEL")
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if b, _ := os.ReadFile(os.Getenv("VOICEBOX_RESOLVE_LOG")); strings.Contains(string(b), ctl) {
					record("control-resolved", ctl)
					break
				}
			}
		}
		quit("lookups-done")
	default:
		time.Sleep(2 * time.Second)
		quit("no-scenario")
	}
}

// stopped stops the room's web process (SIGSTOP) for GUARDLAB_STOP: it misses pings and runs nothing
// meanwhile, nor waits for a CPU. With GUARDLAB_STARVE=1 it starves it instead, as a loaded machine does:
// runnable, it waits for a CPU. Then the room is asked to answer, and to open a frame that spins.
func stopped() {
	if !wait("room:ready", 1, 20*time.Second) {
		quit("stopped-no-room")
		return
	}
	pids := procs.Children(os.Getpid(), "WebKitWebProces")
	if len(pids) != 1 {
		record("stopped-web-processes", fmt.Sprint(pids))
		quit("stopped-no-web-process")
		return
	}
	d, err := time.ParseDuration(os.Getenv("GUARDLAB_STOP"))
	if err != nil {
		d = 3 * time.Second
	}
	if os.Getenv("GUARDLAB_STARVE") == "1" {
		if err := procs.Starve(pids[0], d, func() { record("stopped", d.String()) }); err != nil {
			record("starve-failed", err.Error())
			quit("stopped-starve-failed")
			return
		}
	} else {
		syscall.Kill(pids[0], syscall.SIGSTOP)
		record("stopped", d.String())
		time.Sleep(d)
		syscall.Kill(pids[0], syscall.SIGCONT)
	}
	record("continued", "")
	if os.Getenv("GUARDLAB_STOP_ONLY") == "1" {
		time.Sleep(300 * time.Millisecond)
		quit("stopped-done")
		return
	}
	runtime.EventsEmit(ctx(), "room-ping")
	wait("room:alive", 1, 10*time.Second)
	runtime.EventsEmit(ctx(), "hang-now")
	if wait("recovered", 1, 30*time.Second) {
		wait("room:ready", 2, 10*time.Second)
	}
	quit("stopped-done")
}

var (
	logMu     sync.Mutex
	guardLogs []string
)

// waitLog waits until the guard logged a line containing sub, or d passes.
func waitLog(sub string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		logMu.Lock()
		for _, l := range guardLogs {
			if strings.Contains(l, sub) {
				logMu.Unlock()
				return true
			}
		}
		logMu.Unlock()
	}
	return false
}

var framePort atomic.Int64

func portOf() int64 { return framePort.Load() }

// click clicks into the middle of the window with xdotool (a real X event,
// so it counts as a user gesture in WebKit).
func click() {
	id, err := exec.Command("xdotool", "search", "--sync", "--name", "^guardlab$").Output()
	if err != nil {
		record("xdotool", "search: "+err.Error())
		return
	}
	w := strings.Fields(string(id))
	if len(w) == 0 {
		record("xdotool", "no window")
		return
	}
	o, err := exec.Command("xdotool", "mousemove", "--window", w[0], "400", "300", "click", "1").CombinedOutput()
	record("xdotool", fmt.Sprintf("click %s %v %s", w[0], err, o))
}

func serveFrames(ln net.Listener) {
	framePort.Store(int64(ln.Addr().(*net.TCPAddr).Port))
	web, _ := fs.Sub(webFS, "web")
	files := http.FileServer(http.FS(web))
	mux := http.NewServeMux()
	mux.HandleFunc("/r", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		record("frame:"+q.Get("who")+":"+q.Get("k"), q.Get("v"))
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Query().Get("pp") == "1" {
			w.Header().Set("Permissions-Policy", "microphone=(), camera=(), geolocation=(), display-capture=()")
		}
		files.ServeHTTP(w, r)
	}))
	http.Serve(ln, mux)
}
