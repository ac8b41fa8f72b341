package e2e

import (
	"context"
	"encoding/json"
	"os"
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
}

func (c *chromiumPage) name() string { return "chromium" }

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
	p := &chromiumPage{}
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
	if testing.Short() {
		t.Skip("browser end-to-end tests are skipped in -short mode")
	}
	t.Setenv("OPENAI_API_KEY", "") // no key: Start answers missing-key (caseErrorsSpeakHuman)
	t.Setenv("GEMINI_API_KEY", "")
	s := startServer(t)
	p := openChromium(t, s.url)
	roomCases(t, p, s, true, func(t *testing.T) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.dialogs) > 0 {
			t.Errorf("dialogs opened: %v", p.dialogs)
		}
	})
}
