package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/host"
	"github.com/voicebox/voicebox/backend/recovery"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/trace"
	"github.com/voicebox/voicebox/frontend"
)

// roomBoot is what the desktop's room boots with, written into its document so that its first launch waits
// for no call to Go: during the room's boot each room→Go call costs 60–90 ms, its answer waiting for the GTK
// thread to idle (docs/performance.md, "Where the cold start goes"). room/src/boot.js reads it; where it is
// empty (`voicebox serve`) the room asks RoomService.Config, DocumentService.List and SandboxService.Prepare.
type roomBoot struct {
	// RoomID names the page (transport.js roomId): Go chooses it here so that the launches below are
	// the page's own, revoked when it goes (RegistryService.Goodbye).
	RoomID string `json:"roomId,omitempty"`
	// Channel is the address of the page's request channel (desktopchannel.go), with its key.
	Channel string              `json:"channel,omitempty"`
	Config  services.RoomConfig `json:"config"`
	Opened  []documents.Doc     `json:"opened"`
	// Launches are the opened files' launches, prepared as the room's own Prepare with by "boot" would
	// (the watchdog's rule included), by document id; a file the rule refuses has none, and the room's
	// own Prepare says why.
	Launches map[string]services.LaunchInfo `json:"launches,omitempty"`
}

// bootElement is the empty element in the room's index.html that the boot data fills.
const bootElement = `<script id="voicebox-boot" type="application/json"></script>`

// stageElement is the element of the room's index.html that holds the mini-apps' windows: the first app's
// frame goes in it (bootWindow).
const stageElement = `<div id="mini-app-container" aria-label="Open mini-apps">`

// fillBoot returns the room's document with boot written into its boot element and, when the room will
// open an app first, that app's window in the stage (bootWindow). encoding/json escapes <, > and &, so no
// value can end the element or start markup.
func fillBoot(index []byte, boot roomBoot) ([]byte, error) {
	data, err := json.Marshal(boot)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(index, []byte(bootElement))
	stage := bytes.Index(index, []byte(stageElement))
	switch {
	case at < 0:
		return nil, errors.New("the room's index.html has no " + bootElement)
	case stage < at:
		return nil, errors.New("the room's index.html has no " + stageElement + " after its boot data")
	}
	open, stage := at+len(bootElement)-len("</script>"), stage+len(stageElement)
	return bytes.Join([][]byte{index[:open], data, index[open:stage], []byte(bootWindow(boot)), index[stage:]}, nil), nil
}

// bootFrame are the attributes of a mini-app's bridge frame, as the room makes it (room/src/registry.js,
// bridgeFrame; desktopboot_test.go holds the two together, and the room adopts no frame that differs).
var bootFrame = []struct{ name, value string }{
	{"class", "mini-app-bridge"},
	{"sandbox", "allow-scripts allow-same-origin allow-forms"},
	{"referrerpolicy", "no-referrer"},
	{"allow", "camera 'none'; microphone 'none'; geolocation 'none'; display-capture 'none'"},
}

// bootWindow is the window of the app the room opens first, its bridge frame in it, written into the room's
// document so that the frame loads while the room's modules do (docs/performance.md, "What waits"): the
// first launch boot holds, for the first opened file that has one (the room opens them in order). The room
// adopts it when it opens that launch (registry.js), and removes it when it may not open mini-apps; until
// then it is not shown. "" when there is no launch.
func bootWindow(boot roomBoot) string {
	_, l, ok := bootLaunch(boot)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<section id="voicebox-boot-window" class="mini-app-window booting"><div class="mini-app-body"><iframe`)
	for _, a := range bootFrame {
		fmt.Fprintf(&b, ` %s="%s"`, a.name, html.EscapeString(a.value))
	}
	fmt.Fprintf(&b, ` title="%s" src="%s"></iframe></div></section>`, html.EscapeString(l.Title), html.EscapeString(l.BridgeURL))
	return b.String()
}

// roomAssetServer is what Wails serves at wails://wails: the embedded room and nothing else. No Handler:
// a mini-app's HTML or any other document the room did not ship must never get the room's origin. The
// room's document carries boot(), read when the page is asked for (a reload reads it again).
func roomAssetServer(bridgeOrigin, channelOrigin string, boot func() roomBoot) (*assetserver.Options, error) {
	index, err := fs.ReadFile(frontend.Room(), "index.html")
	if err != nil {
		return nil, err
	}
	if _, err := fillBoot(index, roomBoot{}); err != nil {
		return nil, err
	}
	policy := host.RoomCSP(channelOrigin, bridgeOrigin)
	middleware := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// the room's Content-Security-Policy on everything: frames from the sandbox only
			w.Header().Set("Content-Security-Policy", policy)
			if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
				next.ServeHTTP(w, r)
				return
			}
			trace.Mark("room-asked")
			page, err := fillBoot(index, boot())
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Write(page)
		})
	}
	return &assetserver.Options{Assets: frontend.Room(), Middleware: middleware}, nil
}

// roomBoot is the boot data of a room page being served now. Its launches are prepared only where the
// room may make mini-app frames.
func (a *App) roomBoot() roomBoot {
	b := roomBoot{RoomID: newRoomID(), Config: a.roomConfig(), Opened: a.host.Documents.List()}
	b.Channel = a.channel.url(b.RoomID)
	if !b.Config.Guard {
		return b
	}
	for _, d := range b.Opened {
		info, err := a.host.SandboxService.Prepare(services.LaunchRequest{Room: b.RoomID, Document: d.ID, By: "boot"})
		if err != nil {
			continue
		}
		if b.Launches == nil {
			b.Launches = map[string]services.LaunchInfo{}
		}
		b.Launches[d.ID] = info
	}
	// The boot window's app (bootLaunch) loads before the room's scripts run, so an app that spins at once
	// stops the room before the room can report its launch: the watchdog then closed nothing and the reloaded
	// room opened the app again, for a second restart (tests/desktop TestWatchdogLoopOpenedOnTheCommandLine,
	// by chance). Go reports that launch for the room as it hands the room its document.
	if doc, l, ok := bootLaunch(b); ok && a.guard.tracker != nil {
		a.guard.tracker.Track(recovery.Event{Room: b.RoomID, Op: recovery.OpLaunch, AppID: l.AppID, Title: l.Title,
			Request: &recovery.Request{Document: doc}, By: recovery.ByBoot})
	}
	return b
}

// bootLaunch is the launch whose frame the room's document brings (bootWindow): the first opened file's
// that has one (the room opens them in order).
func bootLaunch(boot roomBoot) (doc string, l services.LaunchInfo, ok bool) {
	for _, d := range boot.Opened {
		if l, ok := boot.Launches[d.ID]; ok {
			return d.ID, l, true
		}
	}
	return "", services.LaunchInfo{}, false
}

// newRoomID is a page's id as transport.js makes one: "room-" and 128 random bits in hex.
func newRoomID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return "room-" + hex.EncodeToString(b[:])
}
