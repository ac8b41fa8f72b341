package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromium is headless Chromium with the browser's own WebMCP on (WebMCPTesting: the reference for the
// tools a plain page offers) and every request paused: loopback goes on, the CDN stand-ins answer for their
// hosts, anything else is failed. Site isolation is off so that one target holds every frame and the
// harness can read the app's frame from the room's (this harness measures compatibility, not isolation:
// tests/e2e does that with the browser as shipped).
type chromium struct {
	ctx    context.Context
	cancel func()
}

func openChromium(t *testing.T, cdn cdnRoutes) *chromium {
	t.Helper()
	exe, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is missing: install the Debian package chromium (`make deps-test` does it)")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Flag("headless", "new"), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860),
		chromedp.Flag("enable-features", "WebMCPTesting"),
		chromedp.Flag("disable-site-isolation-trials", true), chromedp.Flag("disable-features", "IsolateOrigins,site-per-process"))
	c := &chromium{}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *fetch.EventRequestPaused:
			go c.answer(e, cdn)
		case *cdppage.EventJavascriptDialogOpening:
			go c.call(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
				return err
			})
		}
	}))
	c.ctx, c.cancel = ctx, func() { cancel(); cancelAlloc() }
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("chromium: start: %v", err)
	}
	if err := c.call(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
		return err
	}); err != nil {
		t.Fatalf("chromium: intercept requests: %v", err)
	}
	return c
}

func (c *chromium) call(fn func(ctx context.Context, tg *chromedp.Target) error) error {
	_, err := chromedp.Run(c.ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) { return cdp.Empty{}, fn(ctx, tg) })
	return err
}

// isLoopback says whether a request stays on this machine: the room, the plain pages and the sandbox's
// sites, which `voicebox serve` puts on 127.0.0.2 and up (a site per launch, docs/sandbox.md).
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// answer lets loopback requests through, answers the CDN's with their stand-ins, and fails the rest.
func (c *chromium) answer(e *fetch.EventRequestPaused, cdn cdnRoutes) {
	u, err := url.Parse(e.Request.URL)
	_ = c.call(func(ctx context.Context, tg *chromedp.Target) error {
		if err == nil && isLoopback(u.Hostname()) {
			_, err := cdp.Call(ctx, tg, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
			return err
		}
		if err == nil {
			u.RawQuery, u.Fragment = "", ""
			if u.Path == "" {
				u.Path = "/"
			}
			if body, ok := cdn[u.String()]; ok {
				_, err := cdp.Call(ctx, tg, fetch.FulfillRequest, fetch.FulfillRequestParams{
					RequestID: e.RequestID, ResponseCode: 200, Body: body,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: contentType(u.Path)}, {Name: "Access-Control-Allow-Origin", Value: "*"}},
				})
				return err
			}
		}
		_, err := cdp.Call(ctx, tg, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: "BlockedByClient"})
		return err
	})
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".css", "":
		if strings.Contains(p, "css") {
			return "text/css"
		}
	case ".woff2":
		return "font/woff2"
	}
	return "text/javascript"
}

func (c *chromium) name() string { return "chromium" }

func (c *chromium) open(u string) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Do(ctx, chromedp.Navigate(u))
}

func (c *chromium) eval(js string, out any) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any]("(async () => {\n"+js+"\n})()", chromedp.EvalAwaitPromise))
	if err != nil || out == nil {
		return err
	}
	b, _ := json.Marshal(v)
	return json.Unmarshal(b, out)
}

// appSnapshot reads the probe's attribute in the app's frame: the room's bridge frame, then its inner frame.
func (c *chromium) appSnapshot(appID string) (string, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	bridges, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS(fmt.Sprintf(`.mini-app-window[data-app-id=%q] .mini-app-bridge`, appID))))
	if err != nil || len(bridges) == 0 {
		return "", fmt.Errorf("no bridge frame: %v", err)
	}
	inners, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("#inner-app"), chromedp.FromNode(bridges[0])))
	if err != nil || len(inners) == 0 {
		return "", fmt.Errorf("no app frame: %v", err)
	}
	attrs, err := chromedp.Run(ctx, chromedp.Attributes(chromedp.CSS("html"), chromedp.FromNode(inners[0])))
	if err != nil {
		return "", err
	}
	return attrs["data-compat"], nil
}

func (c *chromium) canCDN() string { return "" }

func (c *chromium) close() { c.cancel() }
