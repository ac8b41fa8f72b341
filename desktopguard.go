package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	neturl "net/url"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/guard"
	"github.com/voicebox/voicebox/backend/recovery"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
)

// desktopGuard is the window's side of backend/guard: it installs the guard before wails.Run, says in the
// room's configuration whether mini-apps may run, asks the person before a link leaves for the browser,
// and keeps the watchdog's memory (backend/recovery) so a room restarted after a hang reopens its apps.
type desktopGuard struct {
	unsafe      bool   // VOICEBOX_UNSAFE_NO_GUARD=1: tests only
	unsupported string // why there is no guard on this platform ("" where there is one)
	ctx         atomic.Pointer[context.Context]
	tracker     *recovery.Tracker
	gaveUp      atomic.Bool // the web process kept crashing and the guard stopped restarting it
	memory      memorySamples
}

// memorySamples keeps the web process's memory as sampled over the last two seconds: a process that
// crashed cannot be read after the fact, and the watchdog tells the person what it held just before
// (recovery.Plan.MemoryBytes), and judges a hang in a process that held recovery.HeavyMemory as memory's.
type memorySamples struct {
	mu   sync.Mutex
	ring [4]int64 // every memorySampleEvery
	next int
}

// memorySampleEvery is how often the web process's memory is read (/proc only: a few file reads).
const memorySampleEvery = 500 * time.Millisecond

func (m *memorySamples) add(bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ring[m.next] = bytes
	m.next = (m.next + 1) % len(m.ring)
}

// takePeak returns the most the web process held lately and forgets it: the next process starts afresh.
func (m *memorySamples) takePeak() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	peak := int64(0)
	for i, v := range m.ring {
		peak = max(peak, v)
		m.ring[i] = 0
	}
	return peak
}

// sampleWebMemory reads the web process's memory every memorySampleEvery until ctx ends.
func (g *desktopGuard) sampleWebMemory(ctx context.Context) {
	tick := time.NewTicker(memorySampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if bytes, ok := guard.WebMemory(); ok {
				g.memory.add(bytes)
			}
		}
	}
}

// installGuard installs the guard; it must run on the main goroutine before wails.Run. An error means
// the window must not open: Voicebox does not run mini-apps next to an IPC channel it could not confine.
func (a *App) installGuard() error {
	g := &a.guard
	g.tracker = recovery.New(log.Printf)
	// Go knows which tool calls it has in flight in a room (the registry's request channel): the watchdog
	// learns them there, with no report from the room on the way.
	var feed recovery.CallFeed = g.tracker
	a.host.Registry.ObserveCalls(func(e registry.CallEvent) {
		if e.InFlight {
			feed.CallStarted(e.Room, e.AppID, e.ID)
		} else {
			feed.CallDone(e.Room, e.AppID, e.ID)
		}
	})
	a.host.SandboxService.SetLaunchRule(a.mayLaunch)
	g.unsafe = os.Getenv(guard.UnsafeNoGuardEnv) == "1"
	err := guard.Install(guard.Options{
		RoomOrigin:      DesktopRoomOrigin,
		ConfirmExternal: a.confirmExternal,
		OpenerUnset:     a.glSet,
		OnRecovering:    a.recovering,
		OnRecovered: func() {
			log.Printf("watchdog: the room is back (guard active: %v)", guard.Active())
		},
		OnGaveUp:         a.engineFailed,
		OnFileDrop:       func(paths []string) { a.host.OpenFiles("", paths) },
		OnDownload:       a.navigationDownload,
		MaxDownloadBytes: sandbox.MaxDownloadBytes,
		Disabled:         g.unsafe,
	})
	switch {
	case err == nil:
	case errors.Is(err, guard.ErrUnsupported):
		g.unsupported = fmt.Sprintf("mini-apps are disabled on this platform (%s): Voicebox cannot yet keep them away from the window's IPC here", goruntime.GOOS)
		log.Printf("guard: %s", g.unsupported)
	default:
		return fmt.Errorf("the desktop guard could not be installed, so the window stays closed (mini-apps would reach Voicebox's IPC): %w", err)
	}
	if g.unsafe {
		log.Printf("WARNING: %s=1: the desktop guard is OFF. Every mini-app frame can call Voicebox's Go methods, "+
			"open URLs, fake file drops and quit the app. This is for tests only.", guard.UnsafeNoGuardEnv)
	}
	return nil
}

// guardConfig fills the room's Guard fields. It is asked at call time: guard.Active turns true only when
// Wails packs its web view, after OnStartup.
func (a *App) guardConfig(cfg *services.RoomConfig) {
	g := &a.guard
	switch {
	case g.unsafe:
		cfg.Guard, cfg.UnsafeNoGuard = true, true
		cfg.GuardMessage = "UNSAFE: the desktop guard is off (" + guard.UnsafeNoGuardEnv + "=1, for tests only): every mini-app can reach Voicebox's IPC"
	case g.unsupported != "":
		cfg.Guard, cfg.GuardMessage = false, g.unsupported
	case guard.Active():
		cfg.Guard, cfg.GuardMessage = true, ""
	default:
		cfg.Guard, cfg.GuardMessage = false, "the desktop guard is not active, so mini-apps could reach Voicebox's IPC"
	}
}

func (a *App) setLiveContext(ctx context.Context) { a.guard.ctx.Store(&ctx) }

func (a *App) liveContext() context.Context {
	if p := a.guard.ctx.Load(); p != nil {
		return *p
	}
	return nil
}

// engineFailedMessage is what the person reads when the web engine cannot start (engineFailed).
const engineFailedMessage = "The web engine (WebKitGTK) crashed each time it started, before it could show Voicebox's window, " +
	"so Voicebox stops here. This is usually the graphics stack (EGL); WebKit's own messages are in the terminal's output."

// engineFailed runs when the guard stopped restarting a web process that crashed again and again before
// the room could load (guard.Options.OnGaveUp): the window would stay empty, so Voicebox says why, closes,
// and exits with a failure status (runDesktop).
func (a *App) engineFailed() {
	a.guard.gaveUp.Store(true)
	log.Printf("Voicebox cannot show its window: %s", engineFailedMessage)
	ctx := a.liveContext()
	if ctx == nil {
		return
	}
	if _, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type: runtime.ErrorDialog, Title: "Voicebox cannot show its window", Message: dialogText(engineFailedMessage),
	}); err != nil {
		log.Printf("guard: the engine's failure dialog: %v", err)
	}
	runtime.Quit(ctx)
}

// confirmExternal asks the person before the guard hands a web address to the system browser. It runs on
// its own goroutine; the address is already known to be an absolute http(s) URL.
func (a *App) confirmExternal(url string) bool {
	ctx := a.liveContext()
	if ctx == nil {
		return false
	}
	answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:          runtime.QuestionDialog,
		Title:         "Open in your browser?",
		Message:       dialogText(externalQuestion(url)),
		Buttons:       []string{"Yes", "No"},
		DefaultButton: "No",
		CancelButton:  "No",
	})
	if err != nil {
		log.Printf("guard: asking about %s: %v", url, err)
		return false
	}
	yes := answer == "Yes"
	log.Printf("guard: the person said %q to opening %s", answer, url)
	return yes
}

// externalQuestion is what the person is asked before a web address opens: the site first (a long address
// cannot push it out of sight), then the address, shortened for display only.
func externalQuestion(raw string) string {
	site := raw
	if u, err := neturl.Parse(raw); err == nil && u.Host != "" {
		site = u.Host
	}
	shown := raw
	if r := []rune(shown); len(r) > 400 {
		shown = string(r[:400]) + "…"
	}
	return "A page in Voicebox wants to open a web page on " + site + " in your browser:\n\n" + shown + "\n\nOpen it?"
}

// dialogText makes text safe for runtime.MessageDialog. On Linux, Wails hands the message to
// gtk_message_dialog_new as a printf format string, so a "%" from a page's URL ("%25n", "%s") would be read
// as a conversion: it must be doubled.
func dialogText(s string) string {
	if goruntime.GOOS == "linux" {
		return strings.ReplaceAll(s, "%", "%%")
	}
	return s
}

// recovering runs on the GTK thread when the guard starts restarting the room (it must not block): the
// tracker decides what to close and reopen, and whatever waited on the dead room is refused.
func (a *App) recovering(reason string) {
	dead := a.guard.tracker.Hang(reason, a.guard.memory.takePeak())
	go func() {
		for _, room := range dead {
			if n := a.host.Registry.FailRoom(room, registry.CodeRoomReloaded,
				"the room stopped responding and was restarted before the app answered"); n > 0 {
				log.Printf("watchdog: refused %d request(s) that were waiting on the old room", n)
			}
			_ = a.host.RegistryService.Goodbye(room) // its apps' tools and launch tokens go
		}
	}()
}

// Track is how the room tells the watchdog what it runs (launches, readiness, focus, tool calls, closes).
func (r *RoomService) Track(ev recovery.Event) error { return r.app.guard.tracker.Track(ev) }

// mayLaunch is the desktop's launch rule (services.SandboxService.SetLaunchRule): for an app the person
// did not ask for (by: "model" or "boot"), why it must stay closed, or "" (backend/recovery). The person's
// launches and the watchdog's own plan are never refused.
func (a *App) mayLaunch(appID, by string) string {
	if by != recovery.ByModel && by != recovery.ByBoot {
		return ""
	}
	return a.guard.tracker.MayLaunch(appID, by)
}

// Recovery is what the room asks at boot: after a restart, the apps to open again, the one that was
// closed and the notices to show (Recovered is false otherwise). Only the first room to ask gets the plan.
func (r *RoomService) Recovery(room string) (recovery.Plan, error) {
	return r.app.guard.tracker.Take(room)
}
