package desktop

// A web engine that cannot start: WebKit's web process aborts at once when EGL has no usable vendor (a
// broken graphics stack; here __EGL_VENDOR_LIBRARY_FILENAMES names a file that does not exist). The guard
// restarts a crashed web process, but only guard.CrashRestarts times in a row before the room has
// loaded; then the person is told why in a dialog and Voicebox exits with a failure status, instead of an
// empty window restarting its engine forever (what the binary before this test did: the count of restarts
// in its log only grew).

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/guard"
)

func TestEngineThatKeepsCrashingIsReportedOnce(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{"hello.html": "<!doctype html><title>Hello</title><p>Hello"})
	b.start(t, []string{"__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/voicebox-no-egl.json"}, filepath.Join(b.workspace, "hello.html"))

	var dialog string
	for deadline := time.Now().Add(60 * time.Second); dialog == ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) || !b.running() {
			t.Fatalf("no dialog (running %v); restarts so far: %d\n%s", b.running(), strings.Count(b.output(), "restarting the web process"), b.output())
		}
		dialog = s.windowNamed(t, "Voicebox cannot show its window")
	}
	out := b.output()
	if n := strings.Count(out, "the web process crashed; restarting the web process"); n != guard.CrashRestarts {
		t.Errorf("the guard restarted the crashed web process %d times, want %d", n, guard.CrashRestarts)
	}
	if !strings.Contains(out, fmt.Sprintf("crashed %d times in a row before the room could load; not restarting it", guard.CrashRestarts+1)) {
		t.Errorf("the log does not say why the guard stopped:\n%s", out)
	}
	if !strings.Contains(out, "Voicebox cannot show its window: The web engine (WebKitGTK) crashed") {
		t.Errorf("the log does not carry the person's message:\n%s", out)
	}
	if o, err := s.run(t, 5*time.Second, "xdotool", "windowfocus", "--sync", dialog, "key", "Return"); err != nil {
		t.Fatalf("xdotool: %v %s", err, o)
	}
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("voicebox still runs after the dialog was answered\n%s", b.output())
	}
	var exit *exec.ExitError
	if b.err == nil || !errors.As(b.err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("voicebox exited with %v, want status 1", b.err)
	}
	if n := strings.Count(b.output(), "restarting the web process"); n != guard.CrashRestarts {
		t.Errorf("restarts after the dialog: %d in all, want %d", n, guard.CrashRestarts)
	}
}
