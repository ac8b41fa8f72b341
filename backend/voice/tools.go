package voice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

// Host verbs: what the model can ask of the room itself, beside the open apps' tools. The work is
// backend/verbs' (shared with the MCP door); the declarations below are written for a voice model.
const (
	VerbLaunch = verbs.Launch
	VerbList   = verbs.List
	VerbClose  = verbs.Close
	VerbSave   = verbs.Save
	// VerbCallTool reaches an app tool by its exposed name. Gemini Live fixes its tools at setup, so a
	// tool that appears mid-turn (launch, then use) is reachable through this verb until the session is
	// resumed with the new declarations. Only Gemini sessions declare it.
	VerbCallTool = "call_mini_app_tool"
)

// Op names in the activity log for verbs the registry does not log itself.
const (
	OpList = verbs.OpList
	OpSave = verbs.OpSave
)

var verbDecls = []string{
	`{"name":"launch_mini_app","description":"Open a mini-app (or an .html page) in the Voicebox room, where the person sees it. ref is its name, file name, slug, appId or title, as list_mini_apps shows them. The answer lists the app's tools (named <app>__<tool>), which you can call right away.","parameters":{"type":"object","properties":{"ref":{"type":"string","minLength":1,"maxLength":512,"description":"name, file name, slug, appId or title of the mini-app"}},"required":["ref"],"additionalProperties":false}}`,
	`{"name":"list_mini_apps","description":"List the mini-apps open in the room (with their tools' names) and the mini-apps and pages that launch_mini_app can open.","parameters":{"type":"object","properties":{},"additionalProperties":false}}`,
	`{"name":"close_mini_app","description":"Close an open mini-app; its tools go away. appId is the open app's id, slug or title.","parameters":{"type":"object","properties":{"appId":{"type":"string","minLength":1,"maxLength":512,"description":"the open app's appId, slug or title"}},"required":["appId"],"additionalProperties":false}}`,
	`{"name":"save_page_to_shelf","description":"Save a page of the workspace to the shelf, which makes it a mini-app. ref is the page's name, file name, slug, appId or title.","parameters":{"type":"object","properties":{"ref":{"type":"string","minLength":1,"maxLength":512,"description":"name, file name, slug, appId or title of the page"}},"required":["ref"],"additionalProperties":false}}`,
	`{"name":"call_mini_app_tool","description":"Call an open mini-app's tool by its full name (<app>__<tool>, as launch_mini_app or list_mini_apps gave it) when that tool is not yet among your functions. arguments is the JSON object of the tool's arguments, as text.","parameters":{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":128,"description":"the tool's full name, e.g. scoreboard__set_score"},"arguments":{"type":"string","maxLength":65536,"description":"the arguments as a JSON object, e.g. {\"team\":\"home\",\"points\":3}"}},"required":["name","arguments"],"additionalProperties":false}}`,
}

// hostVerbs are the verbs' declarations, accepted by the same tool contract as any app's tools.
var hostVerbs = func() map[string]*toolcontract.Tool {
	out, err := verbs.Declare(verbDecls...)
	if err != nil {
		panic("voice: " + err.Error())
	}
	return out
}()

// verbOrder is the order the verbs are declared in; VerbCallTool only for Gemini.
var verbOrder = []string{VerbLaunch, VerbList, VerbClose, VerbSave, VerbCallTool}

// Library is what the verbs need from the store: the catalog and saving a page to the shelf.
type Library = verbs.Library

// Toolset is one snapshot of what the model may call: the host verbs and every open app's tools, in the
// provider's declaration format, and the map from exposed name back to the app and tool.
type Toolset struct {
	Declarations []json.RawMessage
	Names        map[string]toolcontract.Exposed
	Signature    string // changes exactly when the declarations change
}

// BuildToolset declares the host verbs and the open apps' tools for provider ("openai" or "gemini").
// App tools are named <app slug>__<tool> by toolcontract.FunctionDeclarations; the verbs' names contain
// no "__", so they cannot collide.
func BuildToolset(provider string, apps []registry.App) (Toolset, error) {
	in := make([]toolcontract.AppTools, 0, len(apps))
	for _, a := range apps {
		in = append(in, toolcontract.AppTools{AppID: a.AppID, Slug: a.Slug, Tools: a.Tools})
	}
	appDecls, names, err := toolcontract.FunctionDeclarations(provider, in)
	if err != nil {
		return Toolset{}, err
	}
	var declared []*toolcontract.Tool
	for _, n := range verbOrder {
		if n == VerbCallTool && provider != toolcontract.ProviderGemini {
			continue
		}
		declared = append(declared, hostVerbs[n])
	}
	verbDecls, _, err := declareVerbs(provider, declared)
	if err != nil {
		return Toolset{}, err
	}
	decls := append(verbDecls, appDecls...)
	h := sha256.New()
	for _, d := range decls {
		h.Write(d)
		h.Write([]byte{0})
	}
	return Toolset{Declarations: decls, Names: names, Signature: hex.EncodeToString(h.Sum(nil))}, nil
}

// declareVerbs converts the verbs like app tools, then renames them back: the verbs keep their plain names.
func declareVerbs(provider string, verbs []*toolcontract.Tool) ([]json.RawMessage, int, error) {
	out := make([]json.RawMessage, 0, len(verbs))
	for _, v := range verbs {
		decls, _, err := toolcontract.FunctionDeclarations(provider, []toolcontract.AppTools{{AppID: "host", Slug: "host", Tools: []*toolcontract.Tool{v}}})
		if err != nil {
			return nil, 0, err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(decls[0], &m); err != nil {
			return nil, 0, err
		}
		m["name"], _ = json.Marshal(v.Name)
		b, err := marshalOrdered(m, provider)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, b)
	}
	return out, len(out), nil
}

// marshalOrdered writes a declaration with its keys in the conventional order.
func marshalOrdered(m map[string]json.RawMessage, provider string) ([]byte, error) {
	order := []string{"type", "name", "description", "parameters"}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, k := range order {
		v, ok := m[k]
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Outcome of one function call, as the provider adapters send it back.
type callResult struct {
	registry.Outcome
}

// modelJSON is how a result or refusal reads to the model: {"ok":true,"result":…} or
// {"ok":false,"refused":code,"path":…,"message":…}.
func (r callResult) modelJSON() json.RawMessage {
	if r.OK {
		b, _ := json.Marshal(struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		}{true, r.output()})
		return b
	}
	return r.refusalJSON()
}

// output is a successful call's result, null when the app returned nothing.
func (r callResult) output() json.RawMessage {
	if len(r.Result) == 0 {
		return json.RawMessage("null")
	}
	return r.Result
}

func (r callResult) refusalJSON() json.RawMessage {
	b, _ := json.Marshal(struct {
		OK      bool   `json:"ok"`
		Refused string `json:"refused"`
		Path    string `json:"path,omitempty"`
		Message string `json:"message,omitempty"`
	}{false, orCode(r.Refused, toolcontract.CodeToolError), r.Path, r.Message})
	return b
}

func orCode(c, d string) string {
	if c == "" {
		return d
	}
	return c
}

func refusal(code, path, msg string) callResult {
	return callResult{registry.Outcome{Refused: code, Path: path, Message: msg}}
}

func ok(v any) callResult {
	b, err := json.Marshal(v)
	if err != nil {
		return refusal(toolcontract.CodeToolError, "", err.Error())
	}
	return callResult{registry.Outcome{OK: true, Result: b}}
}

// dispatcher runs the model's function calls: host verbs here, app tools through the registry. Every call
// is validated first (nothing is dispatched on a refusal), and bounded by toolcontract.CallTimeout and
// toolcontract.MaxOutputBytes whatever the registry or the room does.
type dispatcher struct {
	reg      *registry.Registry
	lib      Library
	caller   string
	provider string
	activity func(registry.Activity)
	// declared returns the toolset the session has declared (or is about to): exposed names resolve
	// against the newest registry state, so a tool launched earlier in the same response is found.
	timeout time.Duration
}

// call runs one function call and never takes longer than the timeout.
func (d *dispatcher) call(ctx context.Context, name string, args json.RawMessage) callResult {
	timeout := d.timeout
	if timeout <= 0 {
		timeout = toolcontract.CallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan callResult, 1)
	go func() { done <- d.run(ctx, name, args) }()
	var res callResult
	select {
	case res = <-done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res = callResult{registry.Outcome{Refused: toolcontract.CodeToolTimeout, Message: toolcontract.TimeoutRefusal().Message}}
		} else {
			res = refusal(registry.CodeCancelled, "", "the call was cancelled")
		}
	}
	if res.OK {
		if r := toolcontract.CheckOutput(res.Result); r != nil {
			res = refusal(r.Refused, r.Path, r.Message)
		}
	}
	return res
}

func (d *dispatcher) run(ctx context.Context, name string, args json.RawMessage) callResult {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if v := hostVerbs[name]; v != nil && (name != VerbCallTool || d.provider == toolcontract.ProviderGemini) {
		return d.verb(ctx, v, args)
	}
	target, found := d.resolve(name)
	if !found {
		res := refusal(toolcontract.CodeUnknownTool, "", fmt.Sprintf("no open mini-app has a tool %q", name))
		d.log(registry.Activity{Caller: d.caller, Op: registry.OpCall, Tool: name, Args: registry.Loggable(args), Outcome: res.Outcome})
		return res
	}
	return callResult{d.reg.Call(ctx, d.caller, target.AppID, target.Tool, args)}
}

// resolve maps an exposed name to its app and tool against the registry as it is now.
func (d *dispatcher) resolve(name string) (toolcontract.Exposed, bool) {
	ts, err := BuildToolset(d.provider, d.reg.Apps())
	if err != nil {
		return toolcontract.Exposed{}, false
	}
	t, found := ts.Names[name]
	return t, found
}

func (d *dispatcher) verb(ctx context.Context, v *toolcontract.Tool, args json.RawMessage) callResult {
	in, refused, valid := verbs.Decode(v, args)
	if !valid {
		d.log(registry.Activity{Caller: d.caller, Op: v.Name, Args: registry.Loggable(args), Outcome: refused})
		return callResult{refused}
	}
	switch v.Name {
	case VerbLaunch:
		app, out := d.reg.Launch(ctx, d.caller, in.Ref)
		if !out.OK {
			return callResult{out}
		}
		return ok(d.describeApp(app))
	case VerbClose:
		return callResult{verbs.CloseApp(ctx, d.reg, d.caller, in.AppID)}
	case VerbList:
		res := ok(d.list())
		d.log(registry.Activity{Caller: d.caller, Op: OpList, Outcome: registry.Outcome{OK: true}})
		return res
	case VerbSave:
		out, a := verbs.SaveToShelf(d.lib, d.caller, in.Ref)
		d.log(a)
		return callResult{out}
	case VerbCallTool:
		if in.Name == VerbCallTool {
			return refusal(toolcontract.CodeInvalidArgument, "/name", "call_mini_app_tool cannot call itself")
		}
		raw := json.RawMessage(in.Arguments)
		if strings.TrimSpace(in.Arguments) == "" {
			raw = json.RawMessage(`{}`)
		}
		return d.run(ctx, in.Name, raw)
	}
	return refusal(toolcontract.CodeUnknownTool, "", "unknown verb "+v.Name)
}

func (d *dispatcher) log(a registry.Activity) {
	if d.activity != nil {
		d.activity(a)
	}
}

// ToolInfo is one tool as the launch and list answers show it.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// OpenApp is an open app as the verbs report it: its tools as the session declares them.
type OpenApp = verbs.OpenApp[ToolInfo]

// describeApp names an app's tools exactly as the session declares them, with their schemas, so the
// model can call them in the same response.
func (d *dispatcher) describeApp(app registry.App) OpenApp {
	apps := d.reg.Apps()
	for _, a := range apps {
		if a.AppID == app.AppID {
			app = a
		}
	}
	return openApp(app, exposedNames(d.provider, apps), true)
}

func exposedNames(provider string, apps []registry.App) map[toolcontract.Exposed]string {
	ts, err := BuildToolset(provider, apps)
	out := map[toolcontract.Exposed]string{}
	if err != nil {
		return out
	}
	for n, e := range ts.Names {
		out[e] = n
	}
	return out
}

func openApp(a registry.App, names map[toolcontract.Exposed]string, schemas bool) OpenApp {
	o := OpenApp{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: []ToolInfo{}}
	for _, t := range a.Tools {
		if t == nil {
			continue
		}
		ti := ToolInfo{Name: names[toolcontract.Exposed{AppID: a.AppID, Tool: t.Name}], Description: t.Description}
		if schemas {
			ti.Parameters = t.Parameters
		}
		o.Tools = append(o.Tools, ti)
	}
	return o
}

// CatalogEntry is something launch_mini_app can open.
type CatalogEntry = verbs.CatalogEntry

func (d *dispatcher) list() verbs.Listing[ToolInfo] {
	apps := d.reg.Apps()
	names := exposedNames(d.provider, apps)
	open := []OpenApp{}
	for _, a := range apps {
		open = append(open, openApp(a, names, false))
	}
	var entries []store.Entry
	if d.lib != nil {
		entries = d.lib.List()
	}
	return verbs.Listing[ToolInfo]{Open: open, Available: verbs.Catalog(entries)}
}
