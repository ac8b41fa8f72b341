package author

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/registry"
)

// build is one create or edit, round by round (docs/authoring.md, "The flow"): ask the code model, turn its
// answer into a page (a whole document, or search/replace blocks applied to the page), write it as a new
// version, open it and watch its first seconds; what went wrong goes back to the model, within the bounds
// (MaxRepairs, MaxMismatches, one whole rewrite). Nothing is written from a stream that did not end complete,
// nor after the build was cancelled. page is the page an edit starts from ("" for a create).
func (s *Service) build(ctx context.Context, j *job, page, change string) error {
	system := System(s.cfg.CDNHosts())
	var conv []codemodel.Message
	if j.view.Kind == KindCreate {
		conv = append(conv, codemodel.Message{Role: "user", Text: createPrompt(j.view.Request, j.view.Name)})
	} else {
		conv = append(conv, codemodel.Message{Role: "user", Text: editPrompt(page, change)})
	}
	repairs, mismatches, rewrite := 0, 0, false
	for {
		answer, err := s.ask(ctx, j, system, conv)
		if err != nil {
			return err
		}
		conv = append(conv, codemodel.Message{Role: "assistant", Text: answer})
		next, wrote, err := apply(page, answer)
		if err != nil {
			var miss *MatchFailure
			switch {
			case errors.As(err, &miss) && mismatches < MaxMismatches:
				mismatches++
				conv = append(conv, codemodel.Message{Role: "user", Text: retryPrompt(miss.Message())})
			case errors.As(err, &miss) && !rewrite:
				rewrite = true
				what := change
				if what == "" {
					what = "Fix the problems listed above."
				}
				conv = append(conv, codemodel.Message{Role: "user", Text: rewritePrompt(page, what)})
			case repairs < MaxRepairs:
				repairs++
				conv = append(conv, codemodel.Message{Role: "user", Text: retryPrompt(feedback(err))})
			default:
				return err
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err // cancelled while the answer was read: nothing is written
		}
		if j.copyOf != "" { // the copy's first version is the page as it was, so revert finds it
			if _, err := s.cfg.Workshop.Write(j.view.Slug, []byte(page), VersionInfo{Source: SourceCopy, Request: "a copy of " + j.copyOf}); err != nil {
				return err
			}
			j.copyOf = ""
		}
		v, err := s.cfg.Workshop.Write(j.view.Slug, []byte(next), VersionInfo{Source: j.view.Kind, Request: j.view.Request, Model: j.view.Model})
		if err != nil {
			return err
		}
		page = next
		s.update(j, true, func(v2 *JobView) { v2.State, v2.Version = StateChecking, v })
		shown := s.show(ctx, j.view.Caller, j.view.Slug, j.replaces)
		j.replaces = "" // the copy took the original's place; later versions load where the copy is
		var app AppInfo
		var problems []string
		switch {
		case shown.OK:
			app, problems = s.check(ctx, j.view.Caller, shown)
		case roomsFault(shown.Refused):
			j.final.Version = v
			return &roomRefused{shown} // the version stays; no repair can help
		default:
			problems = []string{"it did not open: " + shown.Message}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		j.final = Final{App: app, Version: v, Problems: problems}
		s.mark(j.view.Slug, v, problems)
		s.update(j, true, func(v2 *JobView) {
			v2.AppID, v2.Title, v2.Tools, v2.Problems = app.AppID, app.Title, app.Tools, problems
		})
		if len(problems) == 0 {
			return nil
		}
		if repairs >= MaxRepairs {
			return &checkFailed{} // run reports the version and its problems
		}
		repairs++
		quote := ""
		if !wrote { // the model wrote blocks: it cannot know the page whole, so it gets it back
			quote = page
		}
		conv = append(conv, codemodel.Message{Role: "user", Text: repairPrompt(problems, quote)})
	}
}

// apply turns an answer into the next page: a whole document (wrote: the model wrote all of it), or, when
// there is a page, search/replace blocks applied to it.
func apply(page, answer string) (next string, wrote bool, err error) {
	if page == "" {
		next, err = ExtractHTML(answer)
		return next, true, err
	}
	blocks, whole, err := ParseEdit(answer)
	if err != nil {
		return "", false, err
	}
	if whole != "" {
		if whole == page {
			return "", false, &Failure{Code: CodeNoChange, Message: "the new document is the same as the page: nothing changed"}
		}
		return whole, true, nil
	}
	if next, err = ApplyEdit(page, blocks); err != nil {
		return "", false, err
	}
	return next, false, CheckPage(next)
}

// feedback is what an answer that could not be used goes back to the model with.
func feedback(err error) string {
	var f *Failure
	if errors.As(err, &f) {
		return f.Message
	}
	return err.Error()
}

// ask streams one answer of the code model into the build's view.
func (s *Service) ask(ctx context.Context, j *job, system string, conv []codemodel.Message) (string, error) {
	s.update(j, true, func(v *JobView) { v.State, v.Round, v.Text, v.Chars = StateWriting, v.Round+1, "", 0 })
	var text strings.Builder
	res, err := j.client.Stream(ctx, codemodel.Request{System: system, Messages: conv}, func(delta string) {
		text.WriteString(delta)
		shown := text.String()
		if len(shown) > maxShownText {
			shown = shown[len(shown)-maxShownText:]
		}
		s.update(j, false, func(v *JobView) { v.Text, v.Chars = shown, text.Len() })
	})
	var usage codemodel.Usage
	var me *codemodel.Error
	if err == nil {
		usage = res.Usage
	} else if errors.As(err, &me) {
		usage = me.Usage
	}
	s.update(j, true, func(v *JobView) { v.TokensIn += usage.InputTokens; v.TokensOut += usage.OutputTokens })
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// check watches an app that just opened for CheckWindow: it must have registered a tool, every declaration
// must have passed the tool contract, and no uncaught error may have come (registry.Health). It returns the
// app as it is and its problems, each a line the code model can act on.
func (s *Service) check(ctx context.Context, caller string, shown registry.Outcome) (AppInfo, []string) {
	var app registry.App
	_ = json.Unmarshal(shown.Result, &app)
	t := time.NewTimer(s.cfg.CheckWindow)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	for _, a := range s.cfg.Room.Apps() {
		if a.AppID == app.AppID {
			app = a
		}
	}
	info := infoOf(app)
	h := s.cfg.Room.HealthOf(app.AppID)
	var problems []string
	for _, v := range h.Refused {
		at := ""
		if v.Path != "" {
			at = " at " + v.Path
		}
		problems = append(problems, fmt.Sprintf("the tool %q was refused (%s%s): %s", v.Name, v.Refused, at, v.Message))
	}
	if len(info.Tools) == 0 {
		problems = append(problems, "no tool was registered: register every action with navigator.modelContext.registerTool at start")
	}
	for _, e := range h.Errors {
		where := ""
		if e.Where != "" {
			where = " at " + e.Where
		}
		kind := "uncaught error"
		if e.Kind == "rejection" {
			kind = "unhandled promise rejection"
		}
		problems = append(problems, fmt.Sprintf("an %s%s: %s", kind, where, e.Message))
	}
	if more := h.ErrorCount - len(h.Errors); more > 0 {
		problems = append(problems, fmt.Sprintf("and %d more errors", more))
	}
	return info, problems
}

// mark records a checked version's outcome in its Versions list (ok, or check-failed and the first problem).
func (s *Service) mark(slug string, v int, problems []string) {
	outcome, reason := OutcomeOK, ""
	if len(problems) > 0 {
		outcome, reason = OutcomeCheckFailed, problems[0]
	}
	_ = s.cfg.Workshop.Mark(slug, v, outcome, reason)
}

// roomsFault reports whether a launch refused for a reason that is the room's, not the page's: no room is
// open, it went or restarted, it may not open apps. The code model cannot repair those.
func roomsFault(code string) bool {
	switch code {
	case registry.CodeNoRoom, registry.CodeRoomGone, registry.CodeRoomReloaded, "mini-apps-disabled":
		return true
	}
	return false
}

// roomRefused ends a build whose version could not be opened for the room's reasons (roomsFault).
type roomRefused struct{ out registry.Outcome }

func (e *roomRefused) Error() string { return e.out.Message }
