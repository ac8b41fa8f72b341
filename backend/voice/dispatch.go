package voice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
)

// dispatcher runs the model's function calls: the host verbs (backend/verbs) and the open apps' tools by
// their exposed names (backend/exposed), through the registry. Every call is validated first (nothing is
// dispatched on a refusal). What reaches a room (a tool call, a launch, a close) is bounded by the
// registry, the one owner of those bounds (a launch has 15 s, not a call's 5); the verbs Go answers itself
// (list, save) by the dispatcher, with toolcontract.CallTimeout and toolcontract.MaxOutputBytes.
type dispatcher struct {
	exposed *exposed.Table
	servers *mcpclient.Manager // the person's MCP servers; nil: none
	door    verbs.Doors
	env     verbs.Env
	timeout time.Duration // toolcontract.CallTimeout when 0
}

func newDispatcher(cfg Config, provider string) *dispatcher {
	d := &dispatcher{exposed: cfg.Exposed, servers: cfg.Servers, door: doorOf(provider)}
	d.env = verbs.Env{
		Exposed: cfg.Exposed,
		Library: cfg.Library,
		Caller:  "voice:" + provider,
		Log:     func(a registry.Activity) { cfg.Bus.Publish(registry.EventActivity, a) },
		ShowApp: showApp,
		Call:    d.run,
		Author:  cfg.Author,
	}
	return d
}

func doorOf(provider string) verbs.Doors {
	if provider == ProviderGemini {
		return verbs.VoiceGemini
	}
	return verbs.VoiceOpenAI
}

// call runs one function call.
func (d *dispatcher) call(ctx context.Context, name string, args json.RawMessage) registry.Outcome {
	if name != verbs.List && name != verbs.Save {
		return d.run(ctx, name, args) // the registry bounds it
	}
	timeout := d.timeout
	if timeout <= 0 {
		timeout = toolcontract.CallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan registry.Outcome, 1)
	go func() { done <- d.run(ctx, name, args) }()
	var out registry.Outcome
	select {
	case out = <-done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r := toolcontract.TimeoutRefusal()
			out = registry.Outcome{Refused: r.Refused, Message: r.Message}
		} else {
			out = registry.Outcome{Refused: toolcontract.CodeCancelled, Message: "the call was cancelled"}
		}
	}
	if out.OK {
		if r := toolcontract.CheckOutput(out.Result); r != nil {
			out = registry.Outcome{Refused: r.Refused, Path: r.Path, Message: r.Message}
		}
	}
	return out
}

// run calls a verb, or an open app's tool by the name the session exposes it by. Names resolve against the
// newest snapshot, so a tool launched earlier in the same response is found; a name resolves only to the
// app it was given to (a closed app's name is refused, never passed on).
func (d *dispatcher) run(ctx context.Context, name string, args json.RawMessage) registry.Outcome {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if v := verbs.Lookup(name, d.door); v != nil {
		return v.Run(ctx, &d.env, args)
	}
	if mcpclient.IsServerToolName(name) {
		return d.callServer(ctx, name, args)
	}
	target, found := d.exposed.Snapshot().Names[name]
	if !found {
		out := registry.Outcome{Refused: toolcontract.CodeUnknownTool, Message: fmt.Sprintf("no open mini-app has a tool %q", name)}
		d.env.Log(registry.Activity{Caller: d.env.Caller, Op: registry.OpCall, Tool: name, Args: registry.Loggable(args), Outcome: out})
		return out
	}
	return d.exposed.Registry().Call(ctx, d.env.Caller, target.AppID, target.Tool, args)
}

// serverCallTimeout bounds a call of an MCP server's tool by the voice: longer than an app's 5 s (a server
// reaches the network), short enough that the conversation does not hang on it.
const serverCallTimeout = 30 * time.Second

// callServer calls an MCP server's tool by the name the session declared it under (mcpclient checks the
// caller, the visibility and the arguments against the server's schema before anything is sent). The answer
// is the result as the model reads it, bounded like an app's (toolcontract.MaxOutputBytes); the activity log
// gets a line naming the server.
func (d *dispatcher) callServer(ctx context.Context, name string, args json.RawMessage) registry.Outcome {
	start := time.Now()
	var out registry.Outcome
	ref, ok := mcpclient.ToolRef{}, false
	if d.servers != nil {
		ref, ok = d.servers.Snapshot().Resolve(name)
	}
	if !ok {
		out = registry.Outcome{Refused: toolcontract.CodeUnknownTool, Message: fmt.Sprintf("no MCP server has a tool %q now", name)}
	} else {
		ctx, cancel := context.WithTimeout(ctx, serverCallTimeout)
		res, r := d.servers.CallTool(ctx, ref.Server, ref.Tool, args, mcpclient.Model)
		cancel()
		out = mcpclient.Outcome(res, r)
		if out.OK {
			if ref := toolcontract.CheckOutput(out.Result); ref != nil {
				out = registry.Outcome{Refused: ref.Refused, Path: ref.Path, Message: ref.Message}
			}
		}
	}
	d.env.Log(registry.Activity{Caller: d.env.Caller, Op: registry.OpCall, AppID: mcpclient.LogID(ref.Server), Tool: ref.Tool,
		Args: registry.Loggable(args), Outcome: out, Millis: time.Since(start).Milliseconds()})
	return out
}

// toolInfo is one tool as the launch and list answers show it: named as the session declares it.
type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// showApp is how the voice session shows an open app: its tools by their exposed names, with their
// schemas in launch answers (full) so the model can call them in the same response.
func showApp(a registry.App, snap *exposed.Snapshot, full bool) any {
	o := verbs.OpenApp[toolInfo]{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: []toolInfo{}}
	for _, t := range a.Tools {
		if t == nil {
			continue
		}
		ti := toolInfo{Name: snap.Name(a.AppID, t.Name), Description: t.Description}
		if full {
			ti.Parameters = t.Parameters
		}
		o.Tools = append(o.Tools, ti)
	}
	return o
}

// answer is an outcome as the drivers send it back: the result (null when the app returned nothing), or
// the refusal {"ok":false,"refused":code,"path","message"}.
func answer(out registry.Outcome) upstream.Result {
	if out.OK {
		res := out.Result
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		return upstream.Result{OK: true, Output: res}
	}
	b, _ := json.Marshal(struct {
		OK bool `json:"ok"`
		verbs.Refused
	}{false, verbs.Refusal(out)})
	return upstream.Result{Refusal: b}
}

// toolsets caches the declarations of the newest snapshot, per provider: they are built again only when
// the registry changed (a new snapshot), not for every call or check.
type toolsets struct {
	mu      sync.Mutex
	snap    *exposed.Snapshot
	servers *mcpclient.Snapshot
	by      map[string]upstream.Tools
	builds  int // how many were built (tests)
}

func (c *toolsets) get(snap *exposed.Snapshot, servers *mcpclient.Snapshot, provider string) (upstream.Tools, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.servers != servers {
		c.snap, c.servers, c.by = snap, servers, map[string]upstream.Tools{}
	}
	if ts, ok := c.by[provider]; ok {
		return ts, nil
	}
	ts, err := buildTools(provider, snap, servers)
	if err != nil {
		return upstream.Tools{}, err
	}
	c.builds++
	c.by[provider] = ts
	return ts, nil
}

// buildTools declares the provider's host verbs, then every open app's tool under its exposed name, in
// the snapshot's order, then the MCP servers' tools the model may call (the verbs' names contain no "__",
// and a server tool's name has a form no app tool's has: docs/mcp-apps.md, "Names").
func buildTools(provider string, snap *exposed.Snapshot, servers *mcpclient.Snapshot) (upstream.Tools, error) {
	var decls []json.RawMessage
	for _, v := range verbs.For(doorOf(provider)) {
		d, err := toolcontract.Declaration(provider, v.Name(), v.Tool)
		if err != nil {
			return upstream.Tools{}, err
		}
		if provider == ProviderGemini && (v.Name() == verbs.Create || v.Name() == verbs.Edit) {
			d = nonBlocking(d) // answered at once, ended later (gemini.Driver.Late)
		}
		decls = append(decls, d)
	}
	apps, _, err := snap.Declarations(provider)
	if err != nil {
		return upstream.Tools{}, err
	}
	decls = append(decls, apps...)
	if servers != nil {
		theirs, _, err := servers.Declarations(provider)
		if err != nil {
			return upstream.Tools{}, err
		}
		decls = append(decls, theirs...)
	}
	h := sha256.New()
	for _, d := range decls {
		h.Write(d)
		h.Write([]byte{0})
	}
	return upstream.Tools{Declarations: decls, Signature: hex.EncodeToString(h.Sum(nil))}, nil
}

// nonBlocking marks a Gemini function declaration NON_BLOCKING: the model goes on talking while it runs, and
// its responses may come later (Gemini Live's asynchronous function calling).
func nonBlocking(decl json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(decl, &m) != nil {
		return decl
	}
	m["behavior"] = "NON_BLOCKING"
	b, err := json.Marshal(m)
	if err != nil {
		return decl
	}
	return b
}

// lateText says how a build ended, for the model (the voice session's late result): the app and its tools by
// the names this session calls them, or what does not work, or why nothing was built.
func lateText(out registry.Outcome) string {
	if !out.OK {
		return fmt.Sprintf("[Voicebox] The mini-app could not be built: %s (%s). Tell the person briefly, in plain words.", out.Message, out.Refused)
	}
	var b struct {
		Status   string   `json:"status"`
		Version  int      `json:"version"`
		Message  string   `json:"message"`
		Problems []string `json:"problems"`
		App      struct {
			Title string     `json:"title"`
			Tools []toolInfo `json:"tools"`
		} `json:"app"`
	}
	_ = json.Unmarshal(out.Result, &b)
	var tools []string
	for _, t := range b.App.Tools {
		tools = append(tools, fmt.Sprintf("%s (%s)", t.Name, t.Description))
	}
	list := "none"
	if len(tools) > 0 {
		list = strings.Join(tools, "; ")
	}
	if len(b.Problems) > 0 {
		return fmt.Sprintf("[Voicebox] The mini-app %q is open (version %d) but does not work yet: %s. Its tools that work: %s. Tell the person honestly what does not work.", b.App.Title, b.Version, strings.Join(b.Problems, "; "), list)
	}
	return fmt.Sprintf("[Voicebox] The mini-app %q is built and open (version %d). Its tools, which you can call now: %s. Tell the person in one sentence what it can do.", b.App.Title, b.Version, list)
}
