package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/cli"
	"github.com/voicebox/voicebox/backend/commands"
	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/host"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/trace"
	"github.com/voicebox/voicebox/backend/trace/webview"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// App is the desktop window's life: it starts the host, forwards the host's events to the room, and owns
// the menu, the dialogs and the files the person drops or opens.
type App struct {
	ctx   context.Context
	host  *host.Host
	files []string // from the command line, opened before the window starts
	cwd   string
	mcp   bool // --mcp: open the MCP door for this run whatever Settings says
	guard desktopGuard
	// channel carries Go's requests to the room pages and their replies back (desktopchannel.go)
	channel *roomChannel
	glSet   []string // environment variables set for this process's WebKit (desktopgl.go)
}

// runDesktop opens the window and blocks until it closes. A Voicebox already running on the same data
// folder gets this launch's files instead, before anything is opened here (backend/instance).
func runDesktop(cmd cli.Command) int {
	w, handed, err := commands.HandOver(cmd)
	if err != nil {
		return fail(err)
	}
	if handed {
		return 0
	}
	paths, cwd, id := w.Paths, w.Cwd, w.ID
	h, err := host.New(paths, host.Options{SandboxHost: "127.0.0.1", RoomOrigin: DesktopRoomOrigin, BlobNavigationDownloads: true})
	if err != nil {
		return fail(err)
	}
	trace.Mark("host-ready")
	defer h.Close()
	channel, err := listenRoomChannel()
	if err != nil {
		return fail(err)
	}
	app := &App{host: h, files: cmd.Files, cwd: cwd, mcp: cmd.MCP, channel: channel}
	gpu := webviewGPU()
	app.glSet = skipUnusedGL(gpu, renderNodes())
	defer h.StopMCP() // removes the discovery file when the window closes
	room := &RoomService{app: app}
	if err := app.installGuard(); err != nil {
		return fail(err)
	}
	// The files of the command line are open before the window asks for its document, which lists them
	// (desktopboot.go).
	if len(app.files) > 0 {
		h.OpenFiles(app.cwd, app.files)
	}
	assets, err := roomAssetServer(h.BridgeOrigin(), channel.origin(), app.roomBoot)
	if err != nil {
		return fail(err)
	}
	webview.Watch()
	err = wails.Run(&options.App{
		Title:            "Voicebox",
		Width:            1280,
		Height:           820,
		MinWidth:         760,
		MinHeight:        480,
		AssetServer:      assets,
		BackgroundColour: &options.RGBA{R: 15, G: 17, B: 21, A: 255},
		Menu:             app.menu(),
		OnStartup:        app.startup,
		Bind:             desktopBindings(h, room),
		ErrorFormatter:   services.FormatError,
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId:               id,
			OnSecondInstanceLaunch: app.secondInstance,
		},
		// DisableWebViewDrop would unset the webview as a GTK drop target in Wails v2.9.2, and no file drop
		// would arrive at all (wailsapp/wails#3563). WebKit's own handling of a drop is a navigation to the
		// file, which the guard refuses, so the room stays. The guard replaces Wails' drop handlers with its
		// own, which ignore drags that started in the window. tests/desktop TestDropOpensTheFile drags for
		// real from another client; TestDragInsideAnAppOpensNothing drags inside a mini-app.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		Linux:       &linux.Options{Icon: icon, ProgramName: "voicebox", WebviewGpuPolicy: gpu},
	})
	if err != nil {
		return fail(err)
	}
	if app.guard.gaveUp.Load() {
		return 1
	}
	return 0
}

// DesktopRoomOrigin is the room's origin in the window (Wails serves it as wails://wails/).
const DesktopRoomOrigin = "wails://wails"

// desktopBindings are the methods the window's room may call: the room's methods, which `voicebox serve`
// serves by name too (host.RoomMethods), and the desktop's RoomService.
func desktopBindings(h *host.Host, room *RoomService) []any { return append(h.RoomMethods(), room) }

// desktopOnly are the RoomService methods with no twin in `voicebox serve`, where there is no window:
// native dialogs, and the watchdog's record and rule. Every other bound method must have one (bindings_test.go).
var desktopOnly = map[string]bool{
	"RoomService.OpenFolder": true, "RoomService.OpenFiles": true, "RoomService.Track": true, "RoomService.Recovery": true,
	// a mini-app's download and copy: `voicebox serve` saves and copies in the browser (mediation.js)
	"RoomService.SaveDownload": true, "RoomService.CopyText": true,
	// the activity log's Save dialog (`voicebox serve` downloads it: activity.js); the layout tests' probe
	"RoomService.ExportActivity": true, "RoomService.LayoutReport": true,
}

func (a *App) startup(ctx context.Context) {
	trace.Mark("startup")
	a.ctx = ctx
	a.setLiveContext(ctx)
	// Here, not before wails.Run: only the instance that keeps the window may own the MCP port and file.
	// Before the store is watched: MCP's callers wait for the store's first scan only if they read it.
	a.host.StartMCP(a.mcp, "desktop", version)
	if err := a.host.Start(ctx); err != nil {
		runtime.LogErrorf(ctx, "start: %v", err)
	}
	// Ctrl+C or a session's SIGTERM quits the way the menu does, so the MCP discovery file goes too.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
			runtime.Quit(ctx)
		case <-ctx.Done():
		}
	}()
	emit := func(batch []events.Event) { runtime.EventsEmit(ctx, WindowEvents, batch) }
	evs, cancel := a.host.Bus.Subscribe(256)
	go forwardBus(a.host.Bus, evs, cancel, emit)
	go func() { <-ctx.Done(); cancel() }()
	go a.channel.serve(ctx, a.host.RegistryService)
	if a.guard.unsupported == "" && !a.guard.unsafe {
		go a.guard.sampleWebMemory(ctx) // for the watchdog, where it runs (desktopguard.go)
	}
	a.forwardVoiceAudio(ctx, emit)
	// Where the guard runs, it takes the drops itself (only from other applications: desktopguard.go);
	// Wails' own drop reaches here when the guard is off or unsupported.
	runtime.OnFileDrop(ctx, func(_, _ int, paths []string) { a.host.OpenFiles("", paths) })
}

// WindowEvents is the desktop's one window event for Go's notices: each carries a batch of them
// ([]events.Event, name and data), which the room's transport hands to each name's listeners in order
// (transport.js, on). One Wails event per batch, not per notice: every event is a call onto the GTK main
// thread, and under load a notice per tool call (its activity line) made those calls the desktop's
// bottleneck (docs/performance.md, "MCP calls"). `voicebox serve` writes a batch as one SSE write instead.
const WindowEvents = "room:events"

// forwardBus sends the bus's events to the window until evs closes: each burst Gather collects goes as
// one batch (emit), and cancel ends the subscription.
func forwardBus(bus *events.Bus, evs <-chan events.Event, cancel func(), emit func([]events.Event)) {
	defer cancel()
	for ev := range evs {
		batch, _ := bus.Gather(ev, evs, events.GatherWindow)
		emit(batch)
	}
}

// forwardVoiceAudio plays the model's audio in the window: PCM16 at 24 kHz, base64, as "voice:audio"
// events on the window's event (`voicebox serve` sends the same frames over its audio WebSocket instead).
func (a *App) forwardVoiceAudio(ctx context.Context, emit func([]events.Event)) {
	audio, stop := a.host.Voice.SubscribeAudio()
	go func() {
		defer stop()
		events.Follow(ctx, audio, func(frame []byte) bool {
			emit([]events.Event{{Name: "voice:audio", Data: pcm.EncodeBase64(frame)}})
			return true
		})
	}()
}

// secondInstance takes the files of a second launch into this window.
func (a *App) secondInstance(data options.SecondInstanceData) {
	cmd, err := cli.Parse(data.Args)
	if err != nil || a.ctx == nil {
		return
	}
	a.host.OpenFiles(data.WorkingDirectory, cmd.Files)
	runtime.WindowUnminimise(a.ctx)
	runtime.WindowShow(a.ctx)
}

func (a *App) openFolder() (*services.RoomConfig, error) {
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{
		Title: "Open a workspace folder", DefaultDirectory: a.host.Store.Workspace(), CanCreateDirectories: true,
	})
	if err != nil || dir == "" {
		return nil, err
	}
	if err := a.host.Store.SetWorkspace(dir); err != nil {
		a.host.Bus.Publish(events.Notice, services.ErrorNotice(err))
		return nil, err
	}
	cfg := a.roomConfig()
	a.host.Bus.Publish(events.WorkspaceChanged, cfg)
	return &cfg, nil
}

func (a *App) openFiles() ([]documents.Doc, error) {
	paths, err := runtime.OpenMultipleFilesDialog(a.ctx, runtime.OpenDialogOptions{
		Title:   "Open HTML files",
		Filters: []runtime.FileFilter{{DisplayName: "HTML pages (*.html, *.htm)", Pattern: "*.html;*.htm"}},
	})
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	return a.host.OpenFiles("", paths), nil
}

// openFolderApp lets the person pick a folder to open as an app: its index.html, which may load every file
// of the folder (documents.Table.Open takes a folder so).
func (a *App) openFolderApp() {
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: "Open a folder as an app"})
	if err != nil || dir == "" {
		return
	}
	a.host.OpenFiles("", []string{dir})
}

func (a *App) roomConfig() services.RoomConfig {
	cfg := services.NewRoomConfig("desktop", a.host.Store.Workspace(), a.host.BridgeOrigin())
	a.guardConfig(&cfg)
	cfg.LayoutProbe = os.Getenv(LayoutProbeEnv) != ""
	return cfg
}

// RoomService is what only the desktop room can ask for: its configuration, the native dialogs, and the
// watchdog's record of what runs (Track, Recovery: desktopguard.go). The dialogs choose the paths; the
// room never names one.
type RoomService struct{ app *App }

// Config tells the room where it runs. (The window's room has it in its page: desktopboot.go.)
func (r *RoomService) Config() (services.RoomConfig, error) { return r.app.roomConfig(), nil }

// OpenFolder lets the person pick the workspace. It returns nil if they cancelled.
func (r *RoomService) OpenFolder() (*services.RoomConfig, error) { return r.app.openFolder() }

// OpenFiles lets the person pick .html files to open.
func (r *RoomService) OpenFiles() ([]documents.Doc, error) { return r.app.openFiles() }
