// Package guard confines the Wails IPC channel to the room.
//
// Wails v2 registers its script message handler ("external") in the page's
// default script world, so every frame of the window — the mini-apps'
// bridge frame and their sandboxed inner frame included — can post raw Wails
// IPC (call bound Go methods, forge file drops, open URLs, quit the app).
//
// On Linux, Install hooks the moment Wails packs its WebKitWebView (just
// before it loads the index) and:
//
//   - moves the "external" handler into an isolated script world;
//   - drops Wails' browser messages ("BO:<url>", runtime.BrowserOpenURL) even
//     from the room: a web address reaches the system browser only through
//     Options.ConfirmExternal;
//   - adds two top-frame-only document-start user scripts (forwarder.js and
//     page.js, applied to their arguments in scripts.go): in the isolated
//     world a forwarder that relays string messages from a DOM CustomEvent to
//     the handler, only while location.origin is the room's; in the page world
//     a non-writable window.WailsInvoke that dispatches that event (the Wails
//     runtime calls window.WailsInvoke for everything it sends) and the
//     non-writable flag window[PageFlag] === true;
//   - holds every frame to the room's origin, loopback http(s), about:, data:
//     and blob: (WebKitGTK does not say which frame a navigation is for), the
//     top frame to the room's origin exactly, refuses room documents in
//     subframes and new windows; a refused remote http(s) URL that came with
//     a user gesture is offered to Options.ConfirmExternal;
//   - turns WebRTC off and the resource hints that resolve or connect to a
//     host a page names (dns-prefetch, preconnect, prefetch): neither is a
//     navigation, so the policy decision above would not see them;
//   - grants microphone capture to the room's own document only (audio only)
//     and denies every other permission request; answers script dialogs
//     (alert/confirm/prompt) without showing them;
//   - runs a watchdog that restarts the shared web process and reloads the
//     room when it stops answering (a mini-app in while(true){});
//   - turns a frame's navigation to one of its own blob: URLs, on the
//     person's gesture, into a download whose bytes go to Options.OnDownload
//     (the desktop's Save dialog), and ignores every other blob: navigation:
//     how a mini-app saves with `location = URL.createObjectURL(blob)`;
//   - takes file drops from Wails: a drop reaches Options.OnFileDrop only
//     when the drag came from another application, never from a drag that
//     started in the window (a mini-app chooses what its drags carry).
//
// The room checks the guard with
//
//	window.__voiceboxGuard === true
//
// and runs no mini-app in the desktop window otherwise. On other platforms
// Install returns ErrUnsupported and Active is false.
package guard

import (
	"errors"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Options configures Install.
type Options struct {
	// RoomOrigin is the origin the room is served from, "wails://wails".
	// Empty means "wails://wails".
	RoomOrigin string

	// ConfirmExternal is called, on its own goroutine (never the GTK thread),
	// before an http(s) URL that the top frame tried to navigate to (or open
	// in a new window, on a user gesture) is opened in the system browser.
	// The guard opens it only if this returns true. Nil means never open.
	// While one confirmation is pending, further requests are dropped.
	ConfirmExternal func(url string) bool

	// Opener is the command that opens a confirmed URL (the URL is its only
	// argument). Empty means "xdg-open".
	Opener string

	// OpenerUnset names environment variables the opener (and the browser
	// it may start) must not inherit: what this process set for its own
	// WebKit (desktopgl.go), which would take GL from the person's browser.
	OpenerUnset []string

	// OnRecovering is called synchronously, on the GTK thread, when the
	// guard starts a recovery: before the web process is restarted and the
	// room reloads, so before the reloaded room can run any script. reason
	// is "hang" (the watchdog), "crash", "memory" (the web process went
	// away) or "navigation" (a foreign document replaced the room). Every
	// document of the old room is dead from this moment: a caller uses it to
	// note which apps were open and which one to blame, and to refuse the
	// requests that were waiting on the old room. It must not block or call
	// into GTK/Wails.
	OnRecovering func(reason string)

	// OnRecovered is called, on its own goroutine, after the guard reloaded
	// the room and the reloaded room finished loading: after the watchdog
	// restarted a hung web process, after the web process crashed, or after
	// a foreign document (about:blank) replaced the room in the top frame.
	// All mini-app frames are gone at that point.
	OnRecovered func()

	// OnGaveUp is called, on its own goroutine, when the guard stopped
	// restarting a web process that kept crashing (CrashRestarts): the
	// window stays empty from then on.
	OnGaveUp func()

	// OnFileDrop is called, on its own goroutine, with the paths of files
	// the person dropped on the window from another application. With the
	// guard installed, Wails' own file-drop handlers are gone (they took any
	// uri-list drop, a mini-app's own drag included).
	OnFileDrop func(paths []string)

	// OnDownload is called, on its own goroutine, when a frame navigated to a
	// blob: URL (blobdownload.c): with the bytes WebKit downloaded (Path, in
	// a private temporary folder the callee removes with os.RemoveAll of its
	// folder) and the name WebKit suggests, or with a refusal (Refused, a
	// backend/toolcontract code, and Message). Nil: the file is removed.
	OnDownload func(Download)

	// MaxDownloadBytes bounds a download by navigation: past it WebKit's
	// download is cancelled and OnDownload gets download-too-large.
	MaxDownloadBytes int64

	// PingInterval is how often the watchdog pings the room (default 100ms);
	// HangAfter is how long a ping may go unanswered before the web process
	// is restarted (default 2s), not counting the time the web process (or
	// the network process, or the thread that reads its answers) waited for
	// a CPU: a loaded machine that does not run a healthy room does not get
	// it restarted (docs/performance.md, "Watchdog"). A negative value for
	// either turns the watchdog off.
	PingInterval, HangAfter time.Duration

	// HangCPU restarts the web process sooner, when its main thread has run
	// this much CPU time (default 1s) since a ping was first late, without
	// answering: it spins. Negative: HangAfter alone.
	HangCPU time.Duration

	// CPUWaitCounts counts the time the web process waits for a CPU toward
	// HangAfter too (the plain wall clock). Tests only: the control that
	// shows a starved room restarted without the rule above.
	CPUWaitCounts bool

	// Disabled leaves Wails as it is (test-only; the caller sets it when
	// VOICEBOX_UNSAFE_NO_GUARD=1 so tests can show the leak). Active stays
	// false.
	Disabled bool

	// Logf receives the guard's diagnostics. Nil means log.Printf. It is
	// called synchronously, often on the GTK thread: it must not block or
	// call into GTK/Wails.
	Logf func(format string, args ...any)
}

// ErrUnsupported is returned by Install on platforms without a guard.
var ErrUnsupported = errors.New("guard-unsupported")

// PageFlag names the non-writable page-world flag that the room checks:
// window.__voiceboxGuard === true.
const PageFlag = "__voiceboxGuard"

// UnsafeNoGuardEnv is the environment variable (value "1") that callers map
// to Options.Disabled, for tests only.
const UnsafeNoGuardEnv = "VOICEBOX_UNSAFE_NO_GUARD"

// MockCaptureEnv, set to "1", makes WebKit use mock capture devices (tests).
const MockCaptureEnv = "VOICEBOX_MOCK_CAPTURE"

const (
	defaultRoomOrigin = "wails://wails"
	eventName         = "voicebox-guard-ipc"
	worldName         = "voicebox-guard"
)

var (
	active    atomic.Bool
	installed atomic.Bool
	opts      Options
	confirmMu atomic.Bool
)

// Active reports whether the guard is in force: the hook ran and the IPC
// handler is confined to the room.
func Active() bool { return active.Load() }

var originRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://[a-z0-9.-]+(:[0-9]{1,5})?$`)

// normalizeOrigin checks that o is scheme://host[:port] and lower-cases it.
func normalizeOrigin(o string) (string, error) {
	if o == "" {
		return defaultRoomOrigin, nil
	}
	o = strings.ToLower(strings.TrimSuffix(o, "/"))
	if !originRE.MatchString(o) {
		return "", fmt.Errorf("guard: RoomOrigin %q is not scheme://host[:port]", o)
	}
	u, err := url.Parse(o)
	if err != nil {
		return "", fmt.Errorf("guard: RoomOrigin %q: %w", o, err)
	}
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		o = u.Scheme + "://" + u.Hostname()
	}
	return o, nil
}

func logf(format string, args ...any) {
	if opts.Logf != nil {
		opts.Logf(format, args...)
		return
	}
	log.Printf("guard: "+format, args...)
}

// webURL returns the URL if it is an absolute http(s) URL that is safe to
// hand to an opener as a single argument.
func webURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	s := u.String()
	if strings.ContainsAny(s, "\x00\n\r") {
		return "", false
	}
	return s, true
}

// environWithout is env (KEY=value entries) without the variables named.
func environWithout(env, names []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// external asks the person (through ConfirmExternal) and opens the URL.
// It runs on its own goroutine.
func external(raw string) {
	s, ok := webURL(raw)
	if !ok {
		return
	}
	if !confirmMu.CompareAndSwap(false, true) {
		logf("dropped %s: a confirmation is already pending", s)
		return
	}
	defer confirmMu.Store(false)
	if opts.ConfirmExternal == nil || !opts.ConfirmExternal(s) {
		logf("not opening %s", s)
		return
	}
	opener := opts.Opener
	if opener == "" {
		opener = "xdg-open"
	}
	cmd := exec.Command(opener, s)
	cmd.Env = environWithout(os.Environ(), opts.OpenerUnset)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		logf("opening %s: %v", s, err)
		return
	}
	go cmd.Wait()
}

func recovering(reason string) {
	if opts.OnRecovering != nil {
		opts.OnRecovering(reason)
	}
}

// CrashRestarts is how many times in a row the guard restarts a web process that crashed before the room
// finished loading; at the next crash it stops and calls OnGaveUp. A room that loads in between starts the
// count again, so an app that crashes the engine meets the watchdog's own rule first: this is more than
// recovery.MaxHangs, after which the watchdog stops reopening apps (desktopguard_test.go holds it there).
const CrashRestarts = 6

func gaveUp() {
	if opts.OnGaveUp != nil {
		opts.OnGaveUp()
	}
}

func fileDrop(paths []string) {
	if opts.OnFileDrop != nil && len(paths) > 0 {
		opts.OnFileDrop(paths)
	}
}

// Download is a mini-app's download by navigation to a blob: URL (Options.OnDownload).
type Download struct {
	Path, Name       string // the bytes (the callee removes filepath.Dir(Path)) and WebKit's suggested name
	Refused, Message string // or why not: a backend/toolcontract code and a sentence
}

func download(d Download) {
	if opts.OnDownload != nil {
		opts.OnDownload(d)
	} else if d.Path != "" {
		os.RemoveAll(filepath.Dir(d.Path))
	}
}

func recovered() {
	if opts.OnRecovered != nil {
		opts.OnRecovered()
	}
}

func durMS(d, def time.Duration) uint {
	switch {
	case d < 0:
		return 0
	case d == 0:
		d = def
	}
	ms := d.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	return uint(ms)
}
