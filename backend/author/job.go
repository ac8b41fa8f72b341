package author

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/activity"
	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Kinds of builds.
const (
	KindCreate = "create"
	KindEdit   = "edit"
)

// States of a build, as the room's build card shows them.
const (
	StateWriting   = "writing"   // the code model's answer is streaming in
	StateChecking  = "checking"  // the version is written and open; its first seconds are watched
	StateDone      = "done"      // it works (Problems empty), or the last version stays with Problems
	StateFailed    = "failed"    // nothing usable came (Code, Message)
	StateCancelled = "cancelled" // Cancel or Voicebox closing: the request was aborted
)

// maxShownText bounds the streaming text a build card shows (its tail).
const maxShownText = 6 << 10

// noticeEvery bounds how often the room hears a build's progress; ends are told at once.
const noticeEvery = 100 * time.Millisecond

// JobView is a build as the room shows it (EventJobs, Jobs).
type JobView struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	Request   string   `json:"request"`
	Name      string   `json:"name"`
	Slug      string   `json:"slug"`
	Caller    string   `json:"caller"`
	State     string   `json:"state"`
	Text      string   `json:"text"`  // the tail of the answer streaming in
	Chars     int      `json:"chars"` // the whole answer's length so far
	Round     int      `json:"round"` // the code model's answers asked for so far (1 + repairs and retries)
	Provider  string   `json:"provider"`
	Model     string   `json:"model"`
	TokensIn  int      `json:"tokensIn"`
	TokensOut int      `json:"tokensOut"`
	StartedAt int64    `json:"startedAt"` // Unix milliseconds
	EndedAt   int64    `json:"endedAt,omitempty"`
	AppID     string   `json:"appId,omitempty"`
	Title     string   `json:"title,omitempty"`
	Version   int      `json:"version,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Problems  []string `json:"problems,omitempty"`
	Code      string   `json:"code,omitempty"`
	Message   string   `json:"message,omitempty"`
}

// JobsView is EventJobs' data: every build the room may show, oldest first.
type JobsView struct {
	Jobs []JobView `json:"jobs"`
}

// job is one build.
type job struct {
	view     JobView // guarded by Service.mu
	client   codemodel.Client
	replaces string // the open app its first version takes the place of (an edited copy)
	copyOf   string // an edited copy: the file it copies, written as its first version before the edit
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	final    Final // set before done closes
}

// Final is how a build ended: Outcome is what the verbs answer (a refusal on failure); App, Version and
// Problems say what is open now when a version was written.
type Final struct {
	Outcome  registry.Outcome
	App      AppInfo
	Version  int
	Problems []string
}

// AppInfo is a written app as it opened: its id, title and tools (as the app declared them).
type AppInfo struct {
	AppID string   `json:"appId"`
	Title string   `json:"title"`
	Tools []string `json:"tools"`
}

// finished is a build's answer when it worked (the verbs show the app their own way: backend/verbs).
type finished struct {
	Status   string   `json:"status"` // "ready", or StatusProblems
	Version  int      `json:"version"`
	App      AppInfo  `json:"app"`
	Problems []string `json:"problems,omitempty"`
	Message  string   `json:"message,omitempty"` // with problems: what does not work, in a sentence
}

// StatusProblems is a build's end when its last version stays open with problems (after MaxRepairs).
const StatusProblems = "not-working"

// infoOf is an open app as a build reports it.
func infoOf(app registry.App) AppInfo {
	info := AppInfo{AppID: app.AppID, Title: app.Title, Tools: []string{}}
	for _, t := range app.Tools {
		if t != nil {
			info.Tools = append(info.Tools, t.Name)
		}
	}
	return info
}

func (j *job) started() Started {
	return Started{Status: "building", Job: j.view.ID, Name: j.view.Name, Slug: j.view.Slug}
}

// start registers a build of slug; nil when slug is being written already.
func (s *Service) start(caller, kind, request, name, slug string, client codemodel.Client) *job {
	s.mu.Lock()
	if _, taken := s.busy[slug]; taken {
		s.mu.Unlock()
		return nil
	}
	s.seq++
	id := fmt.Sprintf("b%d", s.seq)
	ctx, cancel := context.WithTimeout(s.ctx, JobTimeout)
	j := &job{client: client, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		view: JobView{ID: id, Kind: kind, Request: request, Name: name, Slug: slug, Caller: caller, State: StateWriting,
			Provider: client.Provider(), Model: client.Model(), StartedAt: time.Now().UnixMilli()}}
	s.busy[slug] = id
	s.jobs[id] = j
	s.order = append(s.order, id)
	s.mu.Unlock()
	s.notify(true)
	return j
}

// run runs a build and ends it: its final state, the activity log's line, the room's notice.
func (s *Service) run(j *job, build func(ctx context.Context) error) {
	err := build(j.ctx)
	ended := j.ctx.Err() // before cancel: why the build's context ended, if it did
	j.cancel()
	s.mu.Lock()
	v := &j.view
	v.EndedAt = time.Now().UnixMilli()
	var failedCheck *checkFailed
	switch {
	case err == nil, errors.As(err, &failedCheck): // it works, or the last version stays and says what is wrong
		v.State = StateDone
		j.final.Outcome = j.final.outcome()
	case errors.Is(ended, context.DeadlineExceeded) && s.ctx.Err() == nil:
		v.State = StateFailed
		j.final.Outcome = registry.Outcome{Refused: codemodel.CodeFailed, Message: fmt.Sprintf("the build took longer than %s, so it was stopped", JobTimeout)}
	case ended != nil || isCancelled(err):
		v.State = StateCancelled
		msg := "the build was cancelled; nothing was written"
		if j.final.Version > 0 {
			msg = fmt.Sprintf("the build was cancelled; version %d stays", j.final.Version)
		}
		j.final.Outcome = registry.Outcome{Refused: toolcontract.CodeCancelled, Message: msg}
	default:
		v.State = StateFailed
		j.final.Outcome = Outcome(err)
	}
	if !j.final.Outcome.OK {
		v.Code, v.Message = j.final.Outcome.Refused, j.final.Outcome.Message
	}
	if j.final.Version == 0 {
		_ = s.cfg.Workshop.Discard(v.Slug) // nothing was written: the reserved home goes
	}
	v.Problems = j.final.Problems
	if s.busy[v.Slug] == v.ID {
		delete(s.busy, v.Slug)
	}
	s.trimLocked()
	view := *v
	s.mu.Unlock()
	close(j.done)
	s.notify(true)
	out := j.final.Outcome
	s.logLine(view.Caller, view.Kind, view.Name, view.Request, &out, time.Duration(view.EndedAt-view.StartedAt)*time.Millisecond,
		view.Provider, view.Model, fmt.Sprintf("%d rounds, %d tokens in, %d out", view.Round, view.TokensIn, view.TokensOut))
}

func isCancelled(err error) bool {
	var m *codemodel.Error
	return errors.Is(err, context.Canceled) || errors.As(err, &m) && m.Code == toolcontract.CodeCancelled
}

// checkFailed ends a build whose last version still has problems after MaxRepairs (Final has them).
type checkFailed struct{}

func (*checkFailed) Error() string { return "the app does not work yet" }

// trimLocked forgets the oldest finished builds past keepFinished. s.mu is held.
func (s *Service) trimLocked() {
	finished := 0
	for _, id := range s.order {
		if s.jobs[id].view.EndedAt != 0 {
			finished++
		}
	}
	keep := s.order[:0]
	for _, id := range s.order {
		if j := s.jobs[id]; j.view.EndedAt != 0 && finished > keepFinished {
			finished--
			delete(s.jobs, id)
			continue
		}
		keep = append(keep, id)
	}
	s.order = keep
}

// update changes a build's view under the lock and tells the room (throttled unless now).
func (s *Service) update(j *job, now bool, f func(v *JobView)) {
	s.mu.Lock()
	f(&j.view)
	s.mu.Unlock()
	s.notify(now)
}

// notify publishes the builds: at once when now, else at most once per noticeEvery (a stream's deltas).
func (s *Service) notify(now bool) {
	if s.cfg.Bus == nil {
		return
	}
	s.mu.Lock()
	if !now {
		if s.pending {
			s.mu.Unlock()
			return
		}
		if wait := noticeEvery - time.Since(s.notified); wait > 0 {
			s.pending = true
			s.mu.Unlock()
			time.AfterFunc(wait, func() {
				s.mu.Lock()
				s.pending = false
				s.mu.Unlock()
				s.notify(true)
			})
			return
		}
	}
	s.notified = time.Now()
	view := s.viewLocked()
	s.mu.Unlock()
	s.cfg.Bus.Publish(EventJobs, view)
}

// Jobs is every build the room may show, oldest first.
func (s *Service) Jobs() JobsView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewLocked()
}

func (s *Service) viewLocked() JobsView {
	out := JobsView{Jobs: make([]JobView, 0, len(s.order))}
	for _, id := range s.order {
		out.Jobs = append(out.Jobs, s.jobs[id].view)
	}
	return out
}

// Cancel stops a build: the code model's request is aborted and nothing more is written.
func (s *Service) Cancel(id string) error {
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	if j == nil {
		return refusal(CodeUnknownJob, "no build %q", id)
	}
	j.cancel()
	return nil
}

// Wait returns how build id ended, once it has; ctx ending first is a cancelled refusal (the build runs on).
func (s *Service) Wait(ctx context.Context, id string) Final {
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	if j == nil {
		return Final{Outcome: Outcome(refusal(CodeUnknownJob, "no build %q", id))}
	}
	select {
	case <-j.done:
		return j.final
	case <-ctx.Done():
		return Final{Outcome: registry.Outcome{Refused: toolcontract.CodeCancelled, Message: "stopped waiting for the build"}}
	}
}

// View is one build's view (the room's card, a door's progress).
func (s *Service) View(id string) (JobView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil {
		return JobView{}, false
	}
	return j.view, true
}

// logLine writes a build's line in the activity log: who asked, what, and how it went (provider, model,
// tokens, rounds: never the key, which no part of this package holds).
func (s *Service) logLine(caller, what, name, request string, out *registry.Outcome, took time.Duration, provider, model string, extra ...string) {
	if s.cfg.Bus == nil {
		return
	}
	input, _ := json.Marshal(strings.TrimSpace(name + " — " + request))
	if request == "" {
		input, _ = json.Marshal(name)
	}
	summary := map[string]any{}
	if out != nil {
		summary["ok"] = out.OK
		if !out.OK {
			summary["refused"], summary["message"] = out.Refused, out.Message
		}
	}
	if provider != "" {
		summary["provider"], summary["model"] = provider, model
	}
	if len(extra) > 0 {
		summary["detail"] = strings.Join(extra, "; ")
	}
	outcome, _ := json.Marshal(summary)
	ms := took.Milliseconds()
	s.cfg.Bus.Publish(activity.EventLine, activity.Line{Who: caller, What: what + " app", Input: input, Outcome: outcome,
		Failed: out != nil && !out.OK, Ms: &ms})
}

// checkMessage says honestly what does not work in an app that stays open.
func checkMessage(title string, problems []string) string {
	return fmt.Sprintf("%s is open but does not work yet: %s", title, strings.Join(problems, "; "))
}
