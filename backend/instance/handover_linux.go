//go:build linux

package instance

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// HandOver sends args (this launch's command line, without the program) and dir (its working folder) to
// the Voicebox running under id, and reports whether it took them. It speaks Wails v2.9.2's own
// single-instance protocol (internal/frontend/desktop/linux/single_instance.go): the session bus name
// and object Wails' lock owns, its SendMessage method, options.SecondInstanceData as JSON; so the running
// window's OnSecondInstanceLaunch gets them as from Wails. It asks for nothing to be started: false (no
// session bus, nobody owns the name, no answer) means this launch is the first and goes on to open.
func HandOver(id string, args []string, dir string) bool {
	msg, err := json.Marshal(options.SecondInstanceData{Args: args, WorkingDirectory: dir})
	if err != nil {
		return false
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	name, path := busName(id)
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	call := conn.Object(name, path).CallWithContext(ctx, name+".SendMessage", dbus.FlagNoAutoStart, string(msg))
	return call.Err == nil
}

// answerWithin bounds the wait for a running window that owns the name but does not answer: past it this
// launch goes on (and Wails' lock tries once more when the window would open).
const answerWithin = 10 * time.Second

// busName is the name and object path Wails' single-instance lock registers for id.
func busName(id string) (string, dbus.ObjectPath) {
	app := "wails_app_" + strings.ReplaceAll(strings.ReplaceAll(id, "-", "_"), ".", "_")
	return "org." + app + ".SingleInstance", dbus.ObjectPath("/org/" + app + "/SingleInstance")
}
