package verbs

import (
	"context"
	"encoding/json"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/registry"
)

// The verbs that write and change apps (docs/authoring.md). create_mini_app and edit_mini_app answer at once
// (a verb answers within the call bound; a build takes tens of seconds): {status: "building", job, name}.
// Each door hears the build's end its own way (Pending, Await): the voice session as its provider documents
// for late results, MCP by waiting with progress notices.

// noAuthor refuses a build where the door has no author.
func noAuthor() registry.Outcome {
	return registry.Outcome{Refused: codemodel.CodeNoCodeModel, Message: "this door cannot write mini-apps"}
}

func create(_ context.Context, env *Env, in Args) registry.Outcome {
	if env.Author == nil {
		return noAuthor()
	}
	st, err := env.Author.Create(env.Caller, in.Description, in.Name)
	return env.started(Create, in.Description, st, err)
}

func edit(_ context.Context, env *Env, in Args) registry.Outcome {
	if env.Author == nil {
		return noAuthor()
	}
	st, err := env.Author.Edit(env.Caller, in.App, in.Change)
	return env.started(Edit, in.App, st, err)
}

// started is a build's first answer; a refusal (no key, an unknown app) is logged here, the build's own end
// by the author.
func (e *Env) started(verb, ref string, st author.Started, err error) registry.Outcome {
	if err != nil {
		out := author.Outcome(err)
		e.log(registry.Activity{Caller: e.Caller, Op: verb, Ref: ref, Outcome: out})
		return out
	}
	return Result(st)
}

func revert(ctx context.Context, env *Env, in Args) registry.Outcome {
	if env.Author == nil {
		return noAuthor()
	}
	f := env.Author.Revert(ctx, env.Caller, in.App)
	env.changed()
	return Show(env, "", f)
}

func write(ctx context.Context, env *Env, in Args) registry.Outcome {
	if env.Author == nil {
		return noAuthor()
	}
	f := env.Author.Write(ctx, env.Caller, in.Name, in.HTML)
	env.changed()
	return Show(env, "", f)
}

// Built is how a door reports a written app: ready (its tools named as this door calls them), or open with
// problems (what does not work), never a refusal once a version is open.
type Built struct {
	Status   string   `json:"status"` // "ready", or author.StatusProblems
	Job      string   `json:"job,omitempty"`
	Version  int      `json:"version"`
	App      any      `json:"app"` // Env.ShowApp, with the tools' schemas
	Problems []string `json:"problems,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Show is a build's end (or a revert's, a write's) as env's door shows it.
func Show(env *Env, job string, f author.Final) registry.Outcome {
	if f.App.AppID == "" {
		return f.Outcome // nothing opened: the refusal says why
	}
	var res struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(f.Outcome.Result, &res)
	snap := env.Exposed.Snapshot()
	app, open := snap.App(f.App.AppID)
	if !open {
		app = registry.App{AppID: f.App.AppID, Title: f.App.Title}
	}
	status := res.Status
	if status == "" {
		status = "ready"
	}
	return Result(Built{Status: status, Job: job, Version: f.Version, App: env.ShowApp(app, snap, true), Problems: f.Problems, Message: res.Message})
}

// Pending is the build a create_mini_app or edit_mini_app answer left running, for the door to Await.
func Pending(verb string, out registry.Outcome) (job string, ok bool) {
	if (verb != Create && verb != Edit) || !out.OK {
		return "", false
	}
	var st author.Started
	if json.Unmarshal(out.Result, &st) != nil || st.Status != "building" || st.Job == "" {
		return "", false
	}
	return st.Job, true
}

// Await waits for a build to end and shows it as env's door does (Show); the tool lists are synced first
// (Env.Changed), so the new app's tools are listed by the time the answer is read.
func Await(ctx context.Context, env *Env, job string) registry.Outcome {
	f := env.Author.Wait(ctx, job)
	env.changed()
	return Show(env, job, f)
}
