package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/verbs"
)

// verbHandler runs a host verb (backend/verbs) for an MCP client. A launch or close syncs the tool list
// before it answers, so the new tools are listed by the time the client reads the answer.
func (s *Server) verbHandler(v *verbs.Verb) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		env := verbs.Env{Exposed: s.exp, Library: s.o.Library, Caller: s.caller(req.Session), ShowApp: showApp, Changed: s.sync, Author: s.o.Author}
		out := v.Run(ctx, &env, args)
		if job, ok := verbs.Pending(v.Name(), out); ok {
			out = s.awaitBuild(ctx, req, &env, job)
		}
		return result(out), nil
	}
}

// buildProgressEvery is how often a client that asked for progress hears how a build goes.
const buildProgressEvery = time.Second

// awaitBuild is how the MCP door answers create_mini_app and edit_mini_app: it waits for the build's end
// (the app and its tools, or what does not work) and, when the client gave a progress token, tells it how the
// build goes meanwhile (notifications/progress: the state and the characters written). A client that cancels
// the request cancels the build (docs/authoring.md, "MCP").
func (s *Server) awaitBuild(ctx context.Context, req *mcp.CallToolRequest, env *verbs.Env, job string) registry.Outcome {
	var token any
	if req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	done := make(chan registry.Outcome, 1)
	go func() { done <- verbs.Await(ctx, env, job) }()
	tick := time.NewTicker(buildProgressEvery)
	defer tick.Stop()
	step := 0.0
	for {
		select {
		case out := <-done:
			if ctx.Err() != nil {
				_ = env.Author.Cancel(job)
			}
			return out
		case <-tick.C:
			if token == nil || req.Session == nil {
				continue
			}
			v, ok := env.Author.View(job)
			if !ok {
				continue
			}
			step++
			msg := fmt.Sprintf("%s %s: %s (round %d, %d characters)", v.Kind, v.Name, v.State, v.Round, v.Chars)
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: step, Message: msg})
		}
	}
}

// showApp is how MCP answers show an open app: its tools' names as tools/list has them, sorted.
func showApp(a registry.App, snap *exposed.Snapshot, _ bool) any {
	names := []string{}
	for _, t := range a.Tools {
		if t != nil {
			if n := snap.Name(a.AppID, t.Name); n != "" {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return verbs.OpenApp[string]{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: names}
}
