package sandbox

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every variant of the SDK parses as JavaScript (node --check), so stripJS kept the code whole.
func TestSDKVariantsParse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is missing: install Node.js (scripts/deps.sh does it): %v", err)
	}
	s := New(Options{RoomOrigin: room}, bridge)
	dir := t.TempDir()
	for mask, tag := range s.sdk {
		js := strings.TrimSuffix(strings.TrimPrefix(tag, "<script>"), "</script>")
		f := filepath.Join(dir, "sdk.js")
		if err := os.WriteFile(f, []byte(js), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", f).CombinedOutput(); err != nil {
			t.Errorf("variant %b does not parse: %v\n%s", mask, err, out)
		}
	}
}

// The SDK every app carries stays small: the optional sections go only to pages that name them. (The
// confinement, confine.js, goes before it in the same <script>; it is measured apart.)
func TestSDKSize(t *testing.T) {
	s := New(Options{RoomOrigin: room}, bridge)
	raw, _ := scripts.ReadFile("confine.js")
	confine := stripJS(string(raw)) // as served, like the SDK
	const budget = 20 << 10         // bytes of the SDK an app that uses no optional section gets
	sdkOf := func(html string) string {
		return strings.TrimSuffix(strings.TrimPrefix(s.sdk.tagFor(html), "<script>"+confine), "</script>")
	}
	plain := sdkOf("<!doctype html><p>hello")
	t.Logf("%-10s %6d bytes, %5d gzipped", "confine.js", len(confine), gzipped(confine))
	for _, c := range []struct {
		name, html string
	}{{"plain", "<p>"}, {"forms", "<form toolname=x>"}, {"indexedDB", "indexedDB.open"}, {"both", "toolname indexedDB"}} {
		sdk := sdkOf(c.html)
		t.Logf("%-10s %6d bytes, %5d gzipped (the SDK)", c.name, len(sdk), gzipped(sdk))
	}
	if len(plain) > budget {
		t.Fatalf("the plain SDK is %d bytes, over its budget of %d", len(plain), budget)
	}
	if strings.Contains(plain, "toolparamdescription") || strings.Contains(plain, "IDBKeyRange") {
		t.Fatal("the plain SDK carries an optional section")
	}
	if !strings.Contains(s.sdk.tagFor("<FORM TOOLNAME=x>"), "toolparamdescription") || !strings.Contains(s.sdk.tagFor("window.IndexedDB"), "IDBKeyRange") {
		t.Fatal("a page that names a section does not get it")
	}
}

func gzipped(s string) int {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Len()
}
