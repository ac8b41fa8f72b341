//go:build linux

package instance

import (
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"

	"github.com/voicebox/voicebox/tests/testbin"
)

// sessionBus runs a D-Bus session bus of the test's own and points DBUS_SESSION_BUS_ADDRESS at it.
func sessionBus(t *testing.T) {
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Fatalf("dbus-daemon is missing: apt-get install dbus (make test installs it)")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testbin.Daemon(t, "dbus-daemon", "--session", "--nofork", "--print-address=3"))
}

// wailsLock does on the bus what Wails v2.9.2's SetupSingleInstance does in the first instance: it
// exports SendMessage and owns the name. Messages arrive on the channel.
type wailsLock chan string

func (w wailsLock) SendMessage(message string) *dbus.Error {
	w <- message
	return nil
}

func holdLock(t *testing.T, id string) wailsLock {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	name, path := busName(id)
	got := make(wailsLock, 1)
	if err := conn.Export(got, path, name); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName %s: %v %v", name, reply, err)
	}
	return got
}

func TestHandOverReachesTheRunningInstance(t *testing.T) {
	sessionBus(t)
	id := ID("/home/someone/.local/share/voicebox")
	got := holdLock(t, id)
	if !HandOver(id, []string{"--workspace", "/w", "page.html"}, "/somewhere") {
		t.Fatal("HandOver = false with a running instance on the bus")
	}
	select {
	case msg := <-got:
		var d options.SecondInstanceData
		if err := json.Unmarshal([]byte(msg), &d); err != nil {
			t.Fatalf("message %q: %v", msg, err)
		}
		if d.WorkingDirectory != "/somewhere" || len(d.Args) != 3 || d.Args[2] != "page.html" {
			t.Fatalf("the running instance got %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the running instance got nothing")
	}
}

func TestHandOverWithNobodyRunning(t *testing.T) {
	sessionBus(t)
	holdLock(t, ID("/another/data/folder")) // a Voicebox on another data folder keeps its files
	if HandOver(ID("/home/someone/.local/share/voicebox"), []string{"page.html"}, "/") {
		t.Fatal("HandOver = true with nobody running on this data folder")
	}
}

func TestHandOverWithoutASessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
	if HandOver(ID("/d"), []string{"page.html"}, "/") {
		t.Fatal("HandOver = true without a session bus")
	}
}

func TestIDDependsOnTheDataFolder(t *testing.T) {
	if ID("/a") == ID("/b") || ID("/a") != ID("/a") {
		t.Fatal("ID must be a function of the data folder alone")
	}
}
