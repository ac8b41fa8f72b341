package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromiumPage is the room in headless Chromium, driven over the DevTools protocol.
type chromiumPage struct {
	ctx     context.Context
	mu      sync.Mutex
	dialogs []string
	record  *dnsRecord
}

func (c *chromiumPage) name() string { return "chromium" }

func (c *chromiumPage) dns() *dnsRecord { return c.record }

// withNetLog starts Chromium with --log-net-log and makes the page's DNS record the net-log, read once the
// browser has closed (Chromium completes the file as it exits).
func withNetLog(t testing.TB) (chromedp.ExecAllocatorOption, func(*chromiumPage)) {
	file := filepath.Join(t.TempDir(), "netlog.json")
	return chromedp.Flag("log-net-log", file), func(p *chromiumPage) {
		p.record = newDNSRecord(func(t testing.TB) string {
			if err := chromedp.Cancel(p.ctx); err != nil {
				t.Fatalf("closing chromium: %v", err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				b, err := os.ReadFile(file)
				if err == nil && json.Valid(b) {
					return string(b)
				}
				if time.Now().After(deadline) {
					t.Fatalf("the net-log %s is not complete after chromium closed (%v, %d bytes)", file, err, len(b))
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

func (c *chromiumPage) evalRaw(script string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](wrapScript(script), chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func (c *chromiumPage) windowCount() (int, error) {
	targets, err := chromedp.Targets(c.ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range targets {
		if t.Type == "page" {
			n++
		}
	}
	return n, nil
}

// wrapScript turns a function body into an expression whose value is never undefined.
func wrapScript(body string) string {
	return "(async () => { const v = await (async () => {\n" + body + "\n})(); return v === undefined ? null : v; })()"
}

func chromiumFlags(t testing.TB) []chromedp.ExecAllocatorOption {
	exe := requireTool(t, "/usr/bin/chromium", "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 860),
	}
	if os.Getenv("VOICEBOX_E2E_CHROMIUM_LOG") != "" { // every frame's console on stderr, for debugging
		opts = append(opts, chromedp.Flag("enable-logging", "stderr"), chromedp.Flag("v", "0"), chromedp.CombinedOutput(os.Stderr))
	}
	return opts
}

// openChromium starts a browser (with chromiumFlags and any extra) and loads the room. Dialogs are
// dismissed and recorded.
func openChromium(t testing.TB, url string, extra ...chromedp.ExecAllocatorOption) *chromiumPage {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromiumFlags(t), extra...)...)
	p := &chromiumPage{record: newDNSRecord(nil)}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if d, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			p.mu.Lock()
			p.dialogs = append(p.dialogs, string(d.Type)+": "+d.Message)
			p.mu.Unlock()
			go func() {
				_, _ = chromedp.Run(p.ctx, func(ctx context.Context, t *chromedp.Target) (cdp.Empty, error) {
					return cdp.Call(ctx, t, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
				})
			}()
		}
	}))
	p.ctx = ctx
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser and must not carry a timeout (it would stop the browser).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("chromium: start: %v", err)
	}
	start, cancelStart := context.WithTimeout(ctx, 60*time.Second)
	defer cancelStart()
	if err := chromedp.Do(start, chromedp.Navigate(roomLink(url))); err != nil {
		t.Fatalf("chromium: open the room: %v", err)
	}
	return p
}

func TestChromium(t *testing.T) {
	s := startRoomServer(t)
	netlog, attach := withNetLog(t)
	p := openChromium(t, s.url, netlog)
	attach(p)
	roomCases(t, p, s, true, func(t *testing.T) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.dialogs) > 0 {
			t.Errorf("dialogs opened: %v", p.dialogs)
		}
	})
	t.Run("DNS record", func(t *testing.T) { p.record.check(t) })
}
