package desktop

// The clipboard in the real binary (issue 10 §4): a mini-app's navigator.clipboard.writeText and
// document.execCommand("copy") go through the room, which copies through Go onto the X clipboard, only on
// the person's gesture in the app (docs/webmcp.md, "What the room does for a page"). The same calls from
// the page's load, a timer or a tool change nothing and are refused with the bridge's words
// (needs-gesture, docs/sandbox.md). xclip reads the clipboard and sets a known value on the same display.

import (
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clipPage has two big buttons in colours the test finds on the screen: the green one copies with
// writeText, the purple one selects the paragraph and copies it with execCommand. The page also tries both
// without a gesture (on load, from a timer, from its quiet_copy tool) and keeps what each got in results.
const clipPage = `<!doctype html><title>Desk Clip</title>
<style>body { margin: 0; display: flex } button { width: 45vw; height: 80vh; border: 0 }
#write { background: rgb(23, 181, 77) } #exec { background: rgb(140, 23, 181) }</style>
<button id="write"></button><button id="exec"></button><p id="sel">EXEC_TOKEN</p>
<script>
const results = {};
const keep = (key, p) => p.then(() => { results[key] = "copied"; }, (e) => { results[key] = e.name + ": " + e.message; });
const select = () => { const r = document.createRange(); r.selectNodeContents(document.getElementById("sel")); getSelection().removeAllRanges(); getSelection().addRange(r); };
keep("load", navigator.clipboard.writeText("QUIET_TOKEN load"));
setTimeout(() => {
  keep("timer", navigator.clipboard.writeText("QUIET_TOKEN timer"));
  select();
  results.execTimer = document.execCommand("copy");
}, 300);
document.getElementById("write").onclick = () => keep("click", navigator.clipboard.writeText("WRITE_TOKEN"));
document.getElementById("exec").onclick = () => { select(); results.execClick = document.execCommand("copy"); };
webMcp.registerTool({name: "results", description: "What each copy got", parameters: {type: "object"}, execute: () => results});
webMcp.registerTool({name: "quiet_copy", description: "Copy from script", parameters: {type: "object"}, execute: async () => {
  await keep("tool", navigator.clipboard.writeText("QUIET_TOKEN tool"));
  select();
  results.execTool = document.execCommand("copy");
  return results.tool;
}});
</script>`

// clipResults is what the page's copies got: "copied", or the refusal's name and message; the execCommand
// ones are what the call returned.
type clipResults struct {
	Load, Timer, Tool, Click string
	ExecTimer, ExecTool      *bool
}

// TestClipboardOnlyOnTheGesture: the person's click copies both ways onto the X clipboard; the page's own
// tries before it leave the value the test put there and are refused with the documented reason.
func TestClipboardOnlyOnTheGesture(t *testing.T) {
	need(t, map[string]string{"xclip": "xclip"})
	s := startSession(t)
	token := func(what string) string {
		b := make([]byte, 6)
		rand.Read(b)
		return "voicebox-" + what + "-" + hex.EncodeToString(b)
	}
	write, execTok, quiet, known := token("write"), token("exec"), token("quiet"), token("known")
	page := strings.NewReplacer("WRITE_TOKEN", write, "EXEC_TOKEN", execTok, "QUIET_TOKEN", quiet).Replace(clipPage)
	b := newBox(t, s, map[string]string{"clip.html": page})
	b.start(t, nil)
	win := s.window(t, b.app)
	cs := b.mcpClient(t)
	s.setClipboard(t, known)

	a := launchApp(t, cs, "clip.html")
	var r clipResults
	for deadline := time.Now().Add(20 * time.Second); r.Load == "" || r.Timer == "" || r.ExecTimer == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page's copies without a gesture got no answer: %+v", r)
		}
		r = clipAnswers(t, cs, a)
	}
	if text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, "quiet_copy"), map[string]any{}); refused {
		t.Fatalf("quiet_copy: %s", text)
	}
	r = clipAnswers(t, cs, a)
	const refusal = "NotAllowedError: copying needs the person's click or key press in the app" // bridge.js, needs-gesture
	for what, got := range map[string]string{"on load": r.Load, "from a timer": r.Timer, "from a tool": r.Tool} {
		if got != refusal {
			t.Errorf("writeText %s got %q, want %q", what, got, refusal)
		}
	}
	if r.ExecTimer == nil || *r.ExecTimer || r.ExecTool == nil || *r.ExecTool {
		t.Errorf("execCommand(\"copy\") without a gesture did not answer false: timer %v, tool %v", r.ExecTimer, r.ExecTool)
	}
	time.Sleep(2 * time.Second) // a copy the bridge had let through would have reached the clipboard by now
	if got := s.clipboard(t); got != known {
		t.Fatalf("the clipboard is %q after copies without a gesture, want the value put there (%q)", got, known)
	}

	p := pointer{t: t, s: s, win: win}
	p.clickUntilCopied(write, 23, 181, 77, "the writeText button")
	if r = clipAnswers(t, cs, a); r.Click != "copied" {
		t.Errorf("the click's writeText got %q, want copied", r.Click)
	}
	p.clickUntilCopied(execTok, 140, 23, 181, "the execCommand button")
}

func clipAnswers(t *testing.T, cs *mcp.ClientSession, a openApp) clipResults {
	t.Helper()
	return askJSON[clipResults](t, cs, toolNamed(t, a, "results"))
}

// clickUntilCopied presses the button of that colour until the clipboard holds want: the first press on an
// app that does not have the keyboard only hands it the keyboard.
func (p pointer) clickUntilCopied(want string, r, g, b uint32, what string) {
	p.t.Helper()
	for try := 0; ; try++ {
		if try == 4 {
			p.t.Fatalf("%s: the clipboard is %q after %d presses, want %q (screen: %s)", what, p.s.clipboard(p.t), try, want,
				p.s.keepScreenshot(p.t, "clipboard.png"))
		}
		at, ok := findColour(p.s.screenshot(p.t), r, g, b)
		if !ok {
			p.t.Fatalf("%s is not on the screen (%s)", what, p.s.keepScreenshot(p.t, "clipboard.png"))
		}
		p.xdo("windowfocus", "--sync", p.win)
		p.pressOnScreen(at)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if p.s.clipboard(p.t) == want {
				return
			}
		}
	}
}

// setClipboard makes xclip own the display's clipboard with text; it serves it from the background until
// another client (the app) takes the clipboard or the display goes.
func (s *session) setClipboard(t *testing.T, text string) {
	t.Helper()
	cmd := exec.Command("xclip", "-i", "-selection", "clipboard")
	cmd.Env, cmd.Stdin = s.env, strings.NewReader(text)
	if err := cmd.Run(); err != nil {
		t.Fatalf("xclip -i: %v", err)
	}
	if got := s.clipboard(t); got != text {
		t.Fatalf("the clipboard is %q right after xclip put %q there", got, text)
	}
}

// clipboard is the display's clipboard text ("" when no one owns it).
func (s *session) clipboard(t *testing.T) string {
	t.Helper()
	out, err := s.run(t, 10*time.Second, "xclip", "-o", "-selection", "clipboard")
	if err != nil {
		return ""
	}
	return out
}
