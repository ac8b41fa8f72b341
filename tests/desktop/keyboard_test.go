package desktop

// The keyboard in the real binary (issue 14 §1): a mini-app that once got a press of the person's pulls
// the focus into its frame again and again and records every key. The person types into the Tool Console,
// Settings' API key field and the assistant box, each time right after pressing in a fresh keylogger. Every
// key must land in the room's field (the Tool Console's call, settings.json and the fake provider get all
// of it) and none in the app, which the room closes. An honest app the person presses in still gets what
// the person types to it, also when it is given the keyboard with Enter on its title, and Space still talks.
//
// Where things are on the screen is measured from the room's layout at 1280×820 (as mic_test.go does);
// the keylogger is found by its colour. WebKit queues pointer and key events apart, so keys typed right
// after a press can overtake it while the web process is busy: before typing, the test waits for the
// press to show (the field it focused changes on the screen, or an app says it has the focus).

import (
	"context"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

// Places in the window (its client area, below the window manager's title), measured at 1280×820 with a
// live session running and the notices dismissed.
var (
	atStart       = pt{1236, 171} // the session's Start button
	atSettings    = pt{1222, 50}  // the top bar's Settings button
	atOpenAIKey   = pt{686, 221}  // Settings › OpenAI API key
	atAssistant   = pt{1085, 301} // "Type to the assistant…"
	atRemember    = pt{1015, 393} // the Tool Console's first card (Notes › remember): its summary
	atRememberArg = pt{1120, 454} // … and its "text" field once open
	atNotesBody   = pt{295, 380}  // the strip of the first pop-over (Notes) that the later ones leave visible
	atStageEmpty  = pt{300, 760}  // the stage below the pop-overs, left of the toasts (at its foot, right)
)

// fieldBox is the screen around a place that pressShowing watches: a text field with its focus ring.
var fieldBox = pt{280, 36}

type keyboardRun struct {
	pointer
	b  *box
	cs *mcp.ClientSession
}

// pressShowing presses at p and waits until the screen around watch changes (a field takes the focus, a
// dialog opens, a card unfolds). A press that does not show is logged, not fatal: where an app holds the
// focus, the field cannot show it, and what reached the field is asserted after typing.
func (k *keyboardRun) pressShowing(p, watch pt, what string) {
	k.t.Helper()
	before := k.look(watch, fieldBox)
	k.press(p)
	deadline := time.Now().Add(10 * time.Second)
	for k.look(watch, fieldBox) == before {
		if time.Now().After(deadline) {
			k.t.Logf("%s: the press did not show (%s)", what, k.s.keepScreenshot(k.t, "keyboard-press.png"))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// typeInto opens a field of the room (a press at open that shows at field, then a press in the field) and
// types text and Enter there while a keylogger is about, which must catch none of it.
func (k *keyboardRun) typeInto(where string, open, field pt, text string) {
	k.t.Helper()
	thief := k.thief()
	k.pressShowing(open, field, where)
	k.pressShowing(field, field, where+": the field")
	k.typeText(text)
	k.xdo("key", "Return")
	k.caughtNothing(thief, where)
}

// typeText types text the way a person does, a key every 60 ms.
func (k *keyboardRun) typeText(text string) {
	k.t.Helper()
	k.xdo("type", "--delay", "60", text)
}

// findColour finds a page painted in one colour on the screen (its centre), or false.
func findColour(img image.Image, r8, g8, b8 uint32) (pt, bool) {
	b := img.Bounds()
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, -1, -1
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == r8 && g>>8 == g8 && bl>>8 == b8 {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	if maxX < 0 || maxX-minX < 40 || maxY-minY < 40 {
		return pt{}, false
	}
	return pt{(minX + maxX) / 2, (minY + maxY) / 2}, true
}

type stolenReport struct {
	Keys    string `json:"keys"`
	Count   int    `json:"count"`
	Presses int    `json:"presses"`
}

// thief opens a fresh keylogger and presses in it until a press reaches it: from then on WebKit lets it
// focus itself. The first press on an app that does not have the keyboard only hands it the keyboard.
func (k *keyboardRun) thief() openApp {
	k.t.Helper()
	app := launchApp(k.t, k.cs, "keylogger.html")
	stolen := toolNamed(k.t, app, "stolen")
	for i := 0; i < 4; i++ {
		var at pt
		deadline := time.Now().Add(10 * time.Second)
		for {
			p, ok := findColour(k.s.screenshot(k.t), 255, 0, 255) // the keylogger is magenta
			if ok {
				at = p
				break
			}
			if time.Now().After(deadline) {
				k.t.Fatalf("the keylogger is not on the screen (%s)", k.s.keepScreenshot(k.t, "keyboard-thief.png"))
			}
			time.Sleep(200 * time.Millisecond)
		}
		k.pressOnScreen(at)
		time.Sleep(250 * time.Millisecond) // the press reaches the app, if it does, before the app is asked
		if r := k.stolen(stolen); r != nil && r.Presses > 0 {
			k.t.Logf("a press reached the keylogger after %d press(es)", i+1)
			return app
		}
	}
	k.t.Fatalf("no press reached the keylogger (%s)", k.s.keepScreenshot(k.t, "keyboard-press.png"))
	return app
}

// stolen asks the keylogger what it caught; nil when it is not open.
func (k *keyboardRun) stolen(tool string) *stolenReport {
	k.t.Helper()
	if _, open := findApp(openApps(k.t, k.cs), "Key Catcher"); !open {
		return nil
	}
	text, refused := toolText(k.t, k.cs, 10*time.Second, tool, map[string]any{})
	var r stolenReport
	if refused || json.Unmarshal([]byte(text), &r) != nil {
		return nil // closed between the two calls
	}
	return &r
}

// caughtNothing checks the keylogger after the person typed: closed by the room, and in any case without
// a single key.
func (k *keyboardRun) caughtNothing(app openApp, field string) {
	k.t.Helper()
	if r := k.stolen(toolNamed(k.t, app, "stolen")); r != nil {
		if r.Count > 0 {
			k.t.Errorf("%s: the keylogger caught %d key(s): %q", field, r.Count, r.Keys)
		}
		k.t.Errorf("%s: the keylogger is still open after taking the focus", field)
	}
}

type notesReport struct {
	Notes   []string `json:"notes"`
	Typed   string   `json:"typed"`
	Focused bool     `json:"focused"`
}

func (k *keyboardRun) notes(app openApp) notesReport {
	k.t.Helper()
	text, refused := toolText(k.t, k.cs, 10*time.Second, toolNamed(k.t, app, "notes"), map[string]any{})
	var r notesReport
	if refused || json.Unmarshal([]byte(text), &r) != nil {
		k.t.Fatalf("notes: %s (refused %v; %s)", text, refused, k.s.keepScreenshot(k.t, "keyboard-notes-tool.png"))
	}
	return r
}

func TestMiniAppsCannotTakeTheKeyboard(t *testing.T) {
	t.Parallel()
	oa := voicetest.NewOpenAI("")
	defer oa.Close()
	s := startSession(t)
	b := newBox(t, s, testdata(t, "keylogger.html", "notes.html"))
	b.start(t, []string{"VOICEBOX_MOCK_CAPTURE=1", "VOICEBOX_OPENAI_URL=" + oa.URL(), "OPENAI_API_KEY=sk-env-desktop-keyboard"})
	k := &keyboardRun{pointer: pointer{t: t, s: s, win: s.window(t, b.app)}, b: b}
	k.cs = b.mcpClient(t)
	notes := launchApp(t, k.cs, "notes.html")

	// The person starts a voice session first: the panel's layout is settled from then on.
	var conn *voicetest.Conn
	var err error
	for i := 0; conn == nil; i++ {
		k.press(atStart)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err = oa.Accept(ctx)
		cancel()
		if err != nil && i == 3 {
			t.Fatalf("the session did not start (%s): %v", s.keepScreenshot(t, "keyboard-start.png"), err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// An app the person presses in gets what they type: the first press hands it the keyboard.
	k.useNotes(notes)
	k.typeText("hello")
	if got := k.notes(notes).Typed; got != "hello" {
		t.Errorf("Notes got %q from the keyboard, want %q (%s)", got, "hello", s.keepScreenshot(t, "keyboard-notes.png"))
	}

	// 1. The Tool Console: Notes › remember, typed while a keylogger is about.
	const console = "typed into the tool console 1234567890"
	k.typeInto("Tool Console", atRemember, atRememberArg, console)
	if got := k.waitNotes(notes, func(r notesReport) bool { return len(r.Notes) > 0 }).Notes; len(got) != 1 || got[0] != console {
		t.Errorf("Tool Console: Notes kept %q, want [%q] (%s)", got, console, s.keepScreenshot(t, "keyboard-console.png"))
	}

	// 2. Settings › OpenAI API key.
	const key = "sk-proj-typed-in-settings-0123456789"
	k.typeInto("Settings", atSettings, atOpenAIKey, key)
	var st struct {
		OpenAIKey string `json:"openaiKey"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for st.OpenAIKey == "" && time.Now().Before(deadline) {
		raw, _ := os.ReadFile(filepath.Join(b.data, "settings.json"))
		_ = json.Unmarshal(raw, &st)
		time.Sleep(100 * time.Millisecond)
	}
	if st.OpenAIKey != key {
		t.Errorf("Settings saved the key %q, want %q (%s)", st.OpenAIKey, key, s.keepScreenshot(t, "keyboard-settings.png"))
	}

	// 3. The assistant box (the room's toasts stay on the stage: they never cover the side panel).
	thief := k.thief()
	const said = "typed to the assistant 1234567890"
	k.pressShowing(atAssistant, atAssistant, "the assistant box")
	k.typeText(said)
	k.xdo("key", "Return")
	msg, err := conn.Await(ctx, "the typed message", func(m voicetest.Msg) bool {
		return m.Type == "conversation.item.create" && m.String("item", "type") == "message"
	})
	if err != nil {
		t.Errorf("assistant box: %v", err)
	} else if got := msg.String("item", "content", "0", "text"); got != said {
		t.Errorf("assistant box: the provider got %q, want %q (%s)", got, said, s.keepScreenshot(t, "keyboard-assistant.png"))
	}
	k.caughtNothing(thief, "assistant box")

	// The room's own keyboard: a press on the stage takes it back, Tab from there reaches the first
	// pop-over's title, where Enter hands Notes the keyboard; then, with the room focused again, holding
	// Space talks.
	k.useNotes(notes)
	k.pressStage(notes)
	k.xdo("key", "Tab", "Return")
	k.notesFocused(notes)
	k.typeText("xyz")
	if got := k.notes(notes).Typed; got != "helloxyz" {
		t.Errorf("Enter on Notes' title: Notes got %q from the keyboard, want %q", got, "helloxyz")
	}
	k.pressStage(notes)
	before := conn.AudioBytes()
	k.xdo("keydown", "space")
	deadline = time.Now().Add(10 * time.Second)
	for conn.AudioBytes() < before+4800 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	k.xdo("keyup", "space")
	if n := conn.AudioBytes() - before; n < 4800 {
		t.Errorf("holding Space sent %d bytes of audio, want some", n)
	}

}

// useNotes presses in Notes until it has the focus: the first press only hands it the keyboard.
func (k *keyboardRun) useNotes(notes openApp) {
	k.t.Helper()
	for i := 0; i < 4; i++ {
		k.press(atNotesBody)
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			if k.notes(notes).Focused {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	k.t.Fatalf("Notes never got the focus (%s)", k.s.keepScreenshot(k.t, "keyboard-notes-focus.png"))
}

// pressStage presses on the empty stage and waits until Notes, which had the focus, says it lost it.
func (k *keyboardRun) pressStage(notes openApp) {
	k.t.Helper()
	k.press(atStageEmpty)
	if k.waitNotes(notes, func(r notesReport) bool { return !r.Focused }).Focused {
		k.t.Fatalf("Notes kept the focus after a press on the stage (%s)", k.s.keepScreenshot(k.t, "keyboard-stage.png"))
	}
}

// notesFocused waits until Notes says it has the focus.
func (k *keyboardRun) notesFocused(notes openApp) {
	k.t.Helper()
	if !k.waitNotes(notes, func(r notesReport) bool { return r.Focused }).Focused {
		k.t.Fatalf("Notes never got the focus (%s)", k.s.keepScreenshot(k.t, "keyboard-notes-focus.png"))
	}
}

func (k *keyboardRun) waitNotes(notes openApp, ok func(notesReport) bool) notesReport {
	k.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := k.notes(notes)
		if ok(r) || time.Now().After(deadline) {
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}
}
