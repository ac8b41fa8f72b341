package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpclient/mcpclienttest"
)

// TestMain lets this test binary be the stdio test server too (mcpclienttest.Command starts it again).
func TestMain(m *testing.M) {
	mcpclienttest.ServeIfChild()
	os.Exit(m.Run())
}

// backstop bounds every wait of these tests: only a hang ever reaches it, nothing is timed against it.
const backstop = 2 * time.Minute

// newManager makes a Manager on a fresh data folder with restarts that do not wait.
func newManager(t *testing.T, tune func(*mcpclient.Options)) (*mcpclient.Manager, string) {
	t.Helper()
	dir := t.TempDir()
	o := mcpclient.Options{DataDir: dir, Version: "test", Backoff: func(int) time.Duration { return 0 }, Interval: time.Millisecond}
	if tune != nil {
		tune(&o)
	}
	m := mcpclient.New(o)
	t.Cleanup(m.Close)
	return m, dir
}

// stdioServer is a list entry for the test server in mode, recording initialize requests and starts into
// files of dir, whose paths it returns.
func stdioServer(dir, mode string) (s mcpclient.Server, record, starts string) {
	record, starts = filepath.Join(dir, "initialize.jsonl"), filepath.Join(dir, "starts.txt")
	cmd, args, env := mcpclienttest.Command(mode, record, starts)
	return mcpclient.Server{Command: cmd, Args: args, Env: env}, record, starts
}

// waitFor waits until cond holds for the named server's status, reading it after each change notice.
func waitFor(t *testing.T, m *mcpclient.Manager, name string, what string, cond func(mcpclient.Status) bool) mcpclient.Status {
	t.Helper()
	notices, stop := m.Changes()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	for {
		if st, ok := m.Status(name); ok && cond(st) {
			return st
		}
		select {
		case <-notices:
		case <-ctx.Done():
			st, _ := m.Status(name)
			b, _ := json.MarshalIndent(st, "", "  ")
			t.Fatalf("%s never happened to %q; its status:\n%s", what, name, b)
		}
	}
}

func ready(st mcpclient.Status) bool { return st.State == mcpclient.StateReady }

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
