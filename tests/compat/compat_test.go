// Package compat opens pages written for the open web (corpus/, each in a folder of its own) as plain pages
// and as Voicebox mini-apps, in Chromium and WebKitGTK, with every request that would leave the machine
// aborted (the CDN pages get stand-ins from cdn/), and compares what each shows: the errors, the rendered
// text, where the keyboard is, and the tools offered against what a WebMCP browser offers (the expected
// set in corpus/corpus.json, and, in Chromium, the browser's own WebMCP on the plain page).
//
// `make compat` (VOICEBOX_COMPAT=full) runs every page in both engines and prints the table; `make test`
// runs a few pages in Chromium and fails when one of them differs. See docs/webmcp.md.
package compat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// bounded are the pages `make test` runs (in Chromium): pages that cover forms, a CDN, a worker, dialogs
// and child frames, and that must look the same in both modes.
var bounded = []string{"forms-auto", "react-babel", "blob-worker", "alert", "preview"}

type pageSpec struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
	CDN   bool     `json:"cdn"`
	What  string   `json:"what"`
	// Source names where a third-party page comes from (repository, path, commit). Such pages are not in
	// git (corpus/webmcp-demos/README.md says how to fetch them); when the folder is absent the page is
	// left out of the run and the log says so.
	Source string `json:"source"`
}

// snapshot is what the probe (probeScript) records in a page.
type snapshot struct {
	Errors []string `json:"errors"`
	Done   bool     `json:"done"`
	Text   string   `json:"text"`
	Focus  string   `json:"focus"`
}

// result is one page in one engine.
type result struct {
	page         pageSpec
	engine       string
	skipped      string // why the page did not run
	plain, app   snapshot
	launch       string   // why the mini-app did not open
	browserTools []string // the browser's own WebMCP on the plain page (nil: the engine has none)
	appTools     []string
	appRefused   []string
}

func TestCompat(t *testing.T) {
	if testing.Short() {
		t.Skip("the compatibility harness opens browsers; skipped in -short mode")
	}
	full := os.Getenv("VOICEBOX_COMPAT") == "full"
	pages := presentPages(t, loadCorpus(t))
	only := bounded
	if full {
		only = nil
	}
	if v := os.Getenv("VOICEBOX_COMPAT_PAGES"); v != "" { // a comma-separated list, to look at a few
		only = strings.Split(v, ",")
	}
	if only != nil {
		var some []pageSpec
		for _, p := range pages {
			for _, b := range only {
				if p.Name == b {
					some = append(some, p)
				}
			}
		}
		pages = some
	}
	site := prepareSite(t, pages)
	plain := httptest.NewServer(http.FileServer(http.Dir(site)))
	t.Cleanup(plain.Close)
	room := startVoicebox(t, site)
	cdn := loadCDN(t)

	// make compat runs with -v, so each engine's table shows as soon as it is done, whatever comes next.
	results := runEngine(t, openChromium(t, cdn), pages, plain.URL, room)
	t.Log("\n" + render(results))
	if full {
		more := runEngine(t, openWebKit(t), pages, plain.URL, room)
		t.Log("\n" + render(more))
		results = append(results, more...)
	}
	if !full {
		for _, r := range results {
			if v := r.verdict(); v != "same" {
				t.Errorf("%s in %s: %s", r.page.Name, r.engine, v)
			}
		}
	}
}

// folder is the page's folder in the site: the corpus path with "/" made "-", since the workspace finds
// folder apps one level down (docs/webmcp.md).
func (p pageSpec) folder() string { return strings.ReplaceAll(p.Name, "/", "-") }

// presentPages leaves out the third-party pages whose folder has not been fetched.
func presentPages(t *testing.T, pages []pageSpec) []pageSpec {
	t.Helper()
	var out []pageSpec
	for _, p := range pages {
		if _, err := os.Stat(filepath.Join("corpus", p.Name, "index.html")); p.Source != "" && err != nil {
			t.Logf("%s: not fetched (from %s), left out: see corpus/webmcp-demos/README.md", p.Name, p.Source)
			continue
		}
		out = append(out, p)
	}
	return out
}

func loadCorpus(t *testing.T) []pageSpec {
	t.Helper()
	b, err := os.ReadFile("corpus/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Pages []pageSpec `json:"pages"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Pages
}

// probeScript records what happens in a page (errors, failed loads, policy violations, the text it shows,
// the focused element, whether it said it was done) in the data-compat attribute of its root element,
// where the harness reads it in either mode and either engine.
const probeScript = `<script>/* compat probe */(function () {
var errors = [];
function note(s) { errors.push(String(s).slice(0, 160)); snap(); }
addEventListener("error", function (e) { note(e.message ? "error: " + e.message : "failed to load: " + ((e.target && (e.target.src || e.target.href)) || "?")); }, true);
addEventListener("unhandledrejection", function (e) { note("rejection: " + (e.reason && e.reason.message || e.reason)); });
addEventListener("securitypolicyviolation", function (e) { note("csp: " + e.effectiveDirective + " " + e.blockedURI); });
var ce = console.error; console.error = function () { note("console: " + Array.prototype.join.call(arguments, " ")); return ce.apply(console, arguments); };
function snap() {
  try {
    var b = document.body, a = document.activeElement;
    document.documentElement.setAttribute("data-compat", JSON.stringify({ errors: errors, done: !!(b && b.dataset.done),
      text: b ? b.innerText.replace(/\s+/g, " ").trim().slice(0, 300) : "", focus: a && a !== b ? (a.id || a.localName) : "" }));
  } catch (e) {}
}
setInterval(snap, 100);
})();</script>`

// prepareSite copies the pages into a folder of the test's own with the probe after each document's
// doctype; the plain server and the Voicebox workspace both serve that copy.
func prepareSite(t *testing.T, pages []pageSpec) string {
	t.Helper()
	site := t.TempDir()
	for _, p := range pages {
		src := filepath.Join("corpus", p.Name)
		err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".html") {
				s := string(b)
				i := strings.Index(strings.ToLower(s), "<!doctype html>") + len("<!doctype html>")
				b = []byte(s[:i] + probeScript + s[i:])
			}
			rel, _ := filepath.Rel(src, path)
			dst := filepath.Join(site, p.folder(), rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return site
}

// cdnRoutes maps a CDN URL (no query) to its stand-in's bytes.
type cdnRoutes map[string][]byte

func loadCDN(t *testing.T) cdnRoutes {
	t.Helper()
	b, err := os.ReadFile("cdn/routes.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out := cdnRoutes{}
	for url, file := range m {
		if url == "_" {
			continue
		}
		body, err := os.ReadFile(filepath.Join("cdn", file))
		if err != nil {
			t.Fatal(err)
		}
		out[url] = body
	}
	return out
}

// startVoicebox runs `voicebox serve` with the site as its workspace and returns the room's URL as it
// printed it.
func startVoicebox(t *testing.T, workspace string) string {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatalf("voicebox binary: %v", err)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--workspace", workspace, "--data", filepath.Join(home, "data"))
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "Voicebox room: "); ok {
				urls <- strings.TrimSpace(u)
			}
		}
	}()
	select {
	case u := <-urls:
		return u // with the run's secret (?token=…): the first visit trades it for the room's cookie
	case <-time.After(30 * time.Second):
		t.Fatal("voicebox serve did not print its room URL")
	}
	return ""
}

// browser is one engine as the harness drives it.
type browser interface {
	name() string
	open(url string) error
	eval(js string, out any) error // the body of an async function, in the top document
	appSnapshot(appID string) (string, error)
	canCDN() string // "" when CDN stand-ins reach the pages, else why not
	close()
}

// runEngine opens every page as a plain page, then every page as a mini-app in one room.
func runEngine(t *testing.T, b browser, pages []pageSpec, plainURL, roomURL string) []result {
	t.Helper()
	defer b.close()
	results := make([]result, len(pages))
	for i, p := range pages {
		r := &results[i]
		r.page, r.engine = p, b.name()
		if why := b.canCDN(); p.CDN && why != "" {
			r.skipped = why
			continue
		}
		if err := b.open(plainURL + "/" + p.folder() + "/index.html"); err != nil {
			t.Fatalf("%s: open %s: %v", b.name(), p.Name, err)
		}
		r.plain = waitSnapshot(func() (string, error) {
			var s string
			err := b.eval(`return document.documentElement.getAttribute("data-compat") || "";`, &s)
			return s, err
		})
		var tools []string
		if err := b.eval(`if (!document.modelContext || !document.modelContext.getTools) return null; return (await document.modelContext.getTools()).map((t) => t.name).sort();`, &tools); err == nil {
			r.browserTools = tools
		}
	}
	if err := b.open(roomURL); err != nil {
		t.Fatalf("%s: open the room: %v", b.name(), err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var ok bool
		if b.eval(`return document.body && document.body.dataset.ready === "true" && !!window.voicebox;`, &ok) == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the room did not become ready", b.name())
		}
	}
	for i := range results {
		r := &results[i]
		if r.skipped != "" {
			continue
		}
		var l struct {
			AppID string `json:"appId"`
			Error string `json:"error"`
		}
		if err := b.eval(`try { return {appId: (await window.voicebox.launch(`+jsString(r.page.folder()+"/index.html")+`)).appId}; } catch (e) { return {error: (e.code || "") + ": " + e.message}; }`, &l); err != nil || l.AppID == "" {
			r.launch = fmt.Sprint(l.Error, err)
			continue
		}
		r.app = waitSnapshot(func() (string, error) { return b.appSnapshot(l.AppID) })
		var a struct {
			Tools   []string `json:"tools"`
			Refused []string `json:"refused"`
		}
		_ = b.eval(`const a = window.voicebox.apps().find((x) => x.appId === `+jsString(l.AppID)+`);
			return {tools: a.tools.map((x) => x.name).sort(), refused: a.refused.map((x) => x.name + " " + x.refused).sort()};`, &a)
		r.appTools, r.appRefused = a.Tools, a.Refused
		_ = b.eval(`await window.voicebox.close(`+jsString(l.AppID)+`); return true;`, nil)
	}
	return results
}

// waitSnapshot reads a page's probe until the page says it is done (or 10 s pass), then reads once more
// so that what the page did last is in.
func waitSnapshot(read func() (string, error)) snapshot {
	var s snapshot
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		raw, err := read()
		if err == nil && raw != "" && json.Unmarshal([]byte(raw), &s) == nil && s.Done {
			time.Sleep(300 * time.Millisecond)
			if raw, err := read(); err == nil && raw != "" {
				_ = json.Unmarshal([]byte(raw), &s)
			}
			return s
		}
	}
	return s
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// verdict says how the mini-app differs from the plain page, and its tools from the expected ones.
func (r result) verdict() string {
	switch {
	case r.skipped != "":
		return "skipped: " + r.skipped
	case r.launch != "":
		return "did not open: " + r.launch
	}
	var d []string
	if !r.plain.Done {
		d = append(d, "plain page not done")
	}
	if !r.app.Done {
		d = append(d, "mini-app not done")
	}
	if extra := newErrors(r.plain.Errors, r.app.Errors); len(extra) > 0 {
		d = append(d, "new errors: "+strings.Join(extra, "; "))
	}
	if r.plain.Text != r.app.Text {
		d = append(d, fmt.Sprintf("text %q ≠ %q", clip(r.app.Text), clip(r.plain.Text)))
	}
	if r.plain.Focus != r.app.Focus {
		d = append(d, fmt.Sprintf("focus %q ≠ %q", r.app.Focus, r.plain.Focus))
	}
	want := append([]string{}, r.page.Tools...)
	sort.Strings(want)
	if strings.Join(r.appTools, ",") != strings.Join(want, ",") {
		d = append(d, fmt.Sprintf("tools [%s] ≠ expected [%s]", strings.Join(r.appTools, ","), strings.Join(want, ",")))
	}
	if len(d) == 0 {
		return "same"
	}
	return strings.Join(d, "; ")
}

// newErrors are the mini-app's errors the plain page did not have (origins differ between the modes, so
// URLs are compared by path).
func newErrors(plain, app []string) []string {
	seen := map[string]bool{}
	for _, e := range plain {
		seen[pathOnly(e)] = true
	}
	var out []string
	for _, e := range app {
		if !seen[pathOnly(e)] {
			out = append(out, e)
		}
	}
	return out
}

func pathOnly(s string) string {
	for _, scheme := range []string{"http://", "https://"} {
		for {
			i := strings.Index(s, scheme)
			if i < 0 {
				break
			}
			j := i + len(scheme)
			k := strings.IndexByte(s[j:], '/')
			if k < 0 {
				s = s[:i] + "<origin>"
				break
			}
			s = s[:i] + "<origin>" + s[j+k:]
		}
	}
	return s
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// render prints the table: one line per page and engine.
func render(rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-17s %-9s %-22s %-22s %s\n", "page", "engine", "tools: browser", "tools: voicebox", "mini-app vs plain page")
	for _, r := range rs {
		browserTools := "—"
		if r.browserTools != nil {
			browserTools = "[" + strings.Join(r.browserTools, ",") + "]"
		}
		appTools := "[" + strings.Join(r.appTools, ",") + "]"
		if len(r.appRefused) > 0 {
			appTools += " refused " + strings.Join(r.appRefused, ",")
		}
		fmt.Fprintf(&b, "%-17s %-9s %-22s %-22s %s\n", r.page.Name, r.engine, browserTools, appTools, r.verdict())
	}
	return b.String()
}
