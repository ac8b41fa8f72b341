package verbs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Doors says which callers declare a verb.
type Doors uint8

// The doors.
const (
	VoiceOpenAI Doors = 1 << iota // the live voice session on OpenAI Realtime
	VoiceGemini                   // the live voice session on Gemini Live
	MCP                           // MCP clients
	Voice       = VoiceOpenAI | VoiceGemini
)

// Verb is one host verb: its declaration (name, description, schema, accepted by the tool contract like
// any app's tool, so its arguments are refused with the same codes), the doors that declare it, and its
// work.
type Verb struct {
	Tool  *toolcontract.Tool
	Title string // the short title MCP clients show
	Doors Doors
	run   func(ctx context.Context, env *Env, in Args) registry.Outcome
}

// Name is the verb's name (its Tool's).
func (v *Verb) Name() string { return v.Tool.Name }

// Env is the door a verb was called through: who called, what the verbs work on, and how this door shows
// apps in its answers.
type Env struct {
	Exposed *exposed.Table // the open apps' tools and their names (and the registry they follow)
	Library Library        // what launch_mini_app can open, and the shelf; nil: nothing to list or save
	Caller  string         // for the activity log, e.g. "voice:openai" or "mcp:claude-ai"
	// Log publishes an activity line the registry does not write itself (a list, a save, refused
	// arguments). nil: not logged.
	Log func(registry.Activity)
	// ShowApp is how this door shows an open app: with its tools' schemas in launch answers (full), without
	// in list answers.
	ShowApp func(app registry.App, snap *exposed.Snapshot, full bool) any
	// Changed runs after launch or close changed the open apps and before the answer (MCP lists the change
	// first). nil: nothing to do.
	Changed func()
	// Call runs call_mini_app_tool's call by exposed name (only doors that declare that verb).
	Call func(ctx context.Context, name string, args json.RawMessage) registry.Outcome
	// Author writes and changes apps (create, edit, revert, write); nil: this door cannot.
	Author *author.Service
}

func (e *Env) log(a registry.Activity) {
	if e.Log != nil {
		e.Log(a)
	}
}

func (e *Env) changed() {
	if e.Changed != nil {
		e.Changed()
	}
}

// Run checks raw against the verb's declaration and, only if it passes, does the verb's work. No arguments
// at all stand for {}.
func (v *Verb) Run(ctx context.Context, env *Env, raw json.RawMessage) registry.Outcome {
	in, refused, ok := Decode(v.Tool, raw)
	if !ok {
		env.log(registry.Activity{Caller: env.Caller, Op: v.Name(), Args: registry.Loggable(raw), Outcome: refused})
		return refused
	}
	return v.run(ctx, env, in)
}

// For returns the verbs door declares, in the order they are declared.
func For(door Doors) []*Verb {
	var out []*Verb
	for _, v := range table() {
		if v.Doors&door != 0 {
			out = append(out, v)
		}
	}
	return out
}

// Lookup returns the verb called name if door declares it, else nil.
func Lookup(name string, door Doors) *Verb {
	for _, v := range table() {
		if v.Name() == name && v.Doors&door != 0 {
			return v
		}
	}
	return nil
}

// Is reports whether name is a verb's name for any door (no app tool can have one: they contain no "__").
func Is(name string) bool { return Lookup(name, Voice|MCP) != nil }

// table is every host verb, in the order doors declare them. It is built on first use, not at program
// start: declaring runs the tool contract's checks, which a process that never serves a verb (a second
// launch handing its files over, `voicebox --version`) need not pay.
var table = sync.OnceValue(func() []*Verb {
	return []*Verb{
		declare(Launch, "Launch a mini-app", Voice|MCP, `{"type":"object","properties":{"ref":{"type":"string","minLength":1,"maxLength":512,"description":"name, file name, slug, appId or title of the mini-app"}},"required":["ref"],"additionalProperties":false}`,
			"Open a mini-app (or an .html page) in the Voicebox room, where the person sees it. ref is its name, file name, slug, appId or title, as list_mini_apps shows them. The answer names the app's tools (<app>__<tool>), which can be called right away.",
			launch),
		declare(List, "List mini-apps", Voice|MCP, `{"type":"object","properties":{},"additionalProperties":false}`,
			"List the mini-apps open in the Voicebox room (with their tools' names) and the mini-apps and pages that launch_mini_app can open.",
			list),
		declare(Close, "Close a mini-app", Voice|MCP, `{"type":"object","properties":{"appId":{"type":"string","minLength":1,"maxLength":512,"description":"the open app's appId, slug or title"}},"required":["appId"],"additionalProperties":false}`,
			"Close an open mini-app in the Voicebox room; its tools go away. appId is the open app's id, slug or title, as list_mini_apps shows it.",
			closeApp),
		declare(Save, "Save a page to the shelf", Voice, `{"type":"object","properties":{"ref":{"type":"string","minLength":1,"maxLength":512,"description":"name, file name, slug, appId or title of the page"}},"required":["ref"],"additionalProperties":false}`,
			"Save a page of the workspace to the shelf, which makes it a mini-app. ref is the page's name, file name, slug, appId or title.",
			save),
		// Gemini Live fixes its tools at setup, so a tool that appears mid-turn (launch, then use) is reachable
		// through this verb until the session resumes with the new declarations.
		declare(CallTool, "Call a mini-app's tool", VoiceGemini, `{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":128,"description":"the tool's full name, e.g. scoreboard__set_score"},"arguments":{"type":"string","maxLength":65536,"description":"the arguments as a JSON object, e.g. {\"team\":\"home\",\"points\":3}"}},"required":["name","arguments"],"additionalProperties":false}`,
			"Call an open mini-app's tool by its full name (<app>__<tool>, as launch_mini_app or list_mini_apps gave it) when that tool is not yet among your functions. arguments is the JSON object of the tool's arguments, as text.",
			callTool),
		declare(Create, "Write a new mini-app", Voice|MCP, `{"type":"object","properties":{"description":{"type":"string","minLength":1,"description":"what the app is and does, in the person's words and any details they gave (at most 4,000 characters)"},"name":{"type":"string","minLength":1,"maxLength":80,"description":"the app's title, if the person named it"}},"required":["description"],"additionalProperties":false}`,
			"Write a new mini-app from a description (\"a chess clock with two players and a pause button\") and open it. It answers at once with {status: \"building\", job, name}: tell the person it is being built; the finished app (its tools, or what does not work) comes later in the conversation, and the conversation can go on meanwhile.",
			create),
		declare(Edit, "Change a mini-app", Voice|MCP, `{"type":"object","properties":{"app":{"type":"string","minLength":1,"maxLength":512,"description":"the app to change: its appId, slug, title or file name, as launch_mini_app and list_mini_apps show them"},"change":{"type":"string","minLength":1,"description":"what to change, in the person's words (at most 4,000 characters)"}},"required":["app","change"],"additionalProperties":false}`,
			"Change a mini-app (\"make the buttons bigger\"): an app Voicebox wrote changes in place and reloads where it is open; any other page is changed as a copy, never the person's own file. It answers at once with {status: \"building\", job, name}; the changed app and its tools come later in the conversation. revert_mini_app undoes the change.",
			edit),
		declare(Revert, "Undo a mini-app change", Voice|MCP, `{"type":"object","properties":{"app":{"type":"string","minLength":1,"maxLength":512,"description":"the app: its appId, slug or title"}},"required":["app"],"additionalProperties":false}`,
			"Bring back the previous version of a mini-app Voicebox wrote (\"undo that\"); it reloads where it is open. Reverting again goes back further.",
			revert),
		declare(Write, "Write a mini-app's page", MCP, `{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":80,"description":"the app's title; a mini-app written before under this name gets a new version"},"html":{"type":"string","minLength":1,"maxLength":65536,"description":"the whole HTML document, at most 64 KiB"}},"required":["name","html"],"additionalProperties":false}`,
			"Open a mini-app whose whole HTML page you wrote: one self-contained file that registers its tools with navigator.modelContext.registerTool (the tool contract's JSON Schema subset: no pattern, format or default). Voicebox saves it as an app of its own (with versions), opens it, watches it for 2 s and answers with its tools, or with what does not work (refused tools, uncaught errors), which you can fix by writing it again under the same name.",
			write).withArgsBound(writeArgsBound),
	}
})

// writeArgsBound is write_mini_app's bound on its arguments: a page of 64 KiB (author.MaxPageBytes) is longer
// as a JSON string (each quote, backslash and line break escaped), so its arguments may be 3 × as long; the
// page's own bound is checked on the page.
const writeArgsBound = 3*author.MaxPageBytes + 1024

// withArgsBound raises a verb's bound on its arguments' bytes (toolcontract.Tool.WithArgsBound).
func (v *Verb) withArgsBound(n int) *Verb {
	v.Tool = v.Tool.WithArgsBound(n)
	return v
}

// declare accepts a verb's declaration through the tool contract, exactly as an app's tool would be.
func declare(name, title string, doors Doors, schema, description string, run func(context.Context, *Env, Args) registry.Outcome) *Verb {
	desc, _ := json.Marshal(description)
	raw := fmt.Sprintf(`{"name":%q,"description":%s,"parameters":%s}`, name, desc, schema)
	t, ref := toolcontract.ValidateTool([]byte(raw))
	if ref != nil {
		panic(fmt.Sprintf("verbs: host verb %s refused: %v", name, ref))
	}
	return &Verb{Tool: t, Title: title, Doors: doors, run: run}
}

func launch(ctx context.Context, env *Env, in Args) registry.Outcome {
	app, out := env.Exposed.Registry().Launch(ctx, env.Caller, in.Ref)
	if !out.OK {
		return out
	}
	env.changed()
	snap := env.Exposed.Snapshot()
	if open, ok := snap.App(app.AppID); ok {
		app = open // with the tools the room registered
	}
	return Result(env.ShowApp(app, snap, true))
}

func list(_ context.Context, env *Env, _ Args) registry.Outcome {
	snap := env.Exposed.Snapshot()
	open := make([]any, 0, len(snap.Apps))
	for _, a := range snap.Apps {
		open = append(open, env.ShowApp(a, snap, false))
	}
	available := []CatalogEntry{}
	if env.Library != nil {
		available = Catalog(env.Library.List())
	}
	out := Result(Listing{Available: available, Open: open})
	env.log(registry.Activity{Caller: env.Caller, Op: OpList, Outcome: registry.Outcome{OK: true}})
	return out
}

func closeApp(ctx context.Context, env *Env, in Args) registry.Outcome {
	out := CloseApp(ctx, env.Exposed.Registry(), env.Caller, in.AppID)
	if out.OK {
		env.changed()
	}
	return out
}

func save(_ context.Context, env *Env, in Args) registry.Outcome {
	out, a := SaveToShelf(env.Library, env.Caller, in.Ref)
	env.log(a)
	return out
}

func callTool(ctx context.Context, env *Env, in Args) registry.Outcome {
	if in.Name == CallTool {
		return registry.Outcome{Refused: toolcontract.CodeInvalidArgument, Path: "/name", Message: "call_mini_app_tool cannot call itself"}
	}
	if env.Call == nil {
		return registry.Outcome{Refused: toolcontract.CodeUnknownTool, Message: "this door has no call_mini_app_tool"}
	}
	raw := json.RawMessage(in.Arguments)
	if strings.TrimSpace(in.Arguments) == "" {
		raw = json.RawMessage(`{}`)
	}
	return env.Call(ctx, in.Name, raw)
}

// Result is a successful outcome whose result is v as JSON (a tool-error refusal if v does not encode).
func Result(v any) registry.Outcome {
	b, err := json.Marshal(v)
	if err != nil {
		return registry.Outcome{Refused: toolcontract.CodeToolError, Message: err.Error()}
	}
	return registry.Outcome{OK: true, Result: b}
}

// Refused is a refusal as both doors show it to their callers: {"refused": code, "path", "message"}.
type Refused struct {
	Refused string `json:"refused"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message,omitempty"`
}

// Refusal is out's refusal as callers see it; a refusal without a code is a tool-error.
func Refusal(out registry.Outcome) Refused {
	code := out.Refused
	if code == "" {
		code = toolcontract.CodeToolError
	}
	return Refused{Refused: code, Path: out.Path, Message: out.Message}
}
