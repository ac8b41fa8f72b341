package author

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Bounds of a build (docs/authoring.md, "Limits").
const (
	MaxDescription = 4000 // characters of a description or a change (the verbs' schemas say the same)
	// MaxRepairs is how many times a version's problems (or an answer that was no page) go back to the code
	// model before the last version stays as it is.
	MaxRepairs = 2
	// MaxMismatches is how many times search/replace blocks that do not match go back with the page's
	// actual lines; after that the whole document is asked for, once.
	MaxMismatches = 2
	// CheckWindow is how long after an app is ready its errors count against the version.
	CheckWindow = 2 * time.Second
	// JobTimeout bounds a whole build, every round included.
	JobTimeout = 6 * time.Minute
	// keepFinished is how many finished jobs the room still sees (the build cards' last states).
	keepFinished = 12
)

// Codes a build answers with beside the code model's (codemodel.Code*) and the edit format's (Code*).
const (
	CodeNotWritten       = "not-a-written-app"  // revert: the app has no versions (it was not written here)
	CodeNoEarlierVersion = "no-earlier-version" // revert: there is nothing before this version
	CodeBuildInProgress  = "build-in-progress"  // the app is being written or changed already
	CodeUnknownJob       = "unknown-build"      // no build has that id
	CodeCannotEditFolder = "cannot-edit-folder" // a folder app of the workspace or the shelf: its page is one file of many
	CodeTooLargeToEdit   = "page-too-large"     // a page over MaxPageBytes
)

// Codes lists the codes a build can answer with, for the room's one table of sentences
// (frontend/room/src/errortext.js; frontend/errortext_test.go checks it).
func Codes() []string {
	return []string{CodeNotWritten, CodeNoEarlierVersion, CodeBuildInProgress, CodeUnknownJob,
		CodeCannotEditFolder, CodeTooLargeToEdit, CodeNotHTML, CodeBadEdit, CodeNoMatch, CodeNoChange,
		codemodel.CodeNoCodeModel, codemodel.CodeKeyRefused, codemodel.CodeUnavailable, codemodel.CodeTruncated,
		codemodel.CodeBlocked, codemodel.CodeFailed}
}

// Room is what a build needs of the room: *registry.Registry.
type Room interface {
	Launch(ctx context.Context, caller, ref string) (registry.App, registry.Outcome)
	Reopen(ctx context.Context, caller, ref string) (registry.App, registry.Outcome)
	Close(ctx context.Context, caller, appID string) registry.Outcome
	Apps() []registry.App
	HealthOf(appID string) registry.Health
	HasRoom() bool
}

// Library is what a build needs of the store: the page an edit starts from, and the written app's entry once
// it is on disk.
type Library interface {
	Get(ref string) (store.Entry, error)
	Rescan() error
	List() []store.Entry
}

// Config is what a Service works with. Workshop, Room, Library and Model are required.
type Config struct {
	Workshop *Workshop
	Room     Room
	Library  Library
	// Model is the code model Settings name (provider, key, model): a *codemodel.Error no-code-model when
	// there is none. It is asked at every build, so a key saved in Settings applies to the next one.
	Model func() (codemodel.Client, error)
	// CDNHosts are the hosts apps may load from (Settings), for the system prompt.
	CDNHosts func() []string
	Bus      *events.Bus // the room hears the builds (EventJobs) and the activity log gets a line per build
	// CheckWindow replaces CheckWindow (tests that count on no error use the real one).
	CheckWindow time.Duration
}

// EventJobs carries the builds the room shows (JobsView); a state notice: the newest says it all.
const EventJobs = "author:jobs"

// Service runs builds: one goroutine each, any number at once (not two on one app). Safe for concurrent use.
type Service struct {
	cfg Config
	ctx context.Context // ends with Close: every build is cancelled

	stop context.CancelFunc

	mu       sync.Mutex
	jobs     map[string]*job   // running and the last keepFinished finished, by id
	order    []string          // job ids, oldest first
	busy     map[string]string // slug → id of the build writing it
	seq      int
	notified time.Time
	pending  bool // a notice is scheduled (throttle)
}

// New returns a Service; Close cancels its builds.
func New(cfg Config) *Service {
	if cfg.CheckWindow <= 0 {
		cfg.CheckWindow = CheckWindow
	}
	if cfg.CDNHosts == nil {
		cfg.CDNHosts = func() []string { return nil }
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Service{cfg: cfg, ctx: ctx, stop: stop, jobs: map[string]*job{}, busy: map[string]string{}}
}

// Close cancels every build in progress (nothing half-written stays: see build.go) and waits for none.
func (s *Service) Close() { s.stop() }

// Refusal is a build's refusal before it starts, or its failure: a code of the one table and a sentence.
type Refusal struct {
	Code    string
	Path    string // the argument at fault, when one is (JSON pointer)
	Message string
}

func (r *Refusal) Error() string { return r.Message }

func refusal(code, format string, a ...any) *Refusal {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, a...)}
}

// Outcome is a refusal as the registry's callers read it.
func Outcome(err error) registry.Outcome {
	var r *Refusal
	var m *codemodel.Error
	var f *Failure
	var room *roomRefused
	switch {
	case errors.As(err, &room):
		return room.out
	case errors.As(err, &r):
		return registry.Outcome{Refused: r.Code, Path: r.Path, Message: r.Message}
	case errors.As(err, &m):
		return registry.Outcome{Refused: m.Code, Message: m.Message}
	case errors.As(err, &f):
		return registry.Outcome{Refused: f.Code, Message: f.Message}
	case errors.Is(err, context.Canceled):
		return registry.Outcome{Refused: toolcontract.CodeCancelled, Message: "the build was cancelled"}
	}
	return registry.Outcome{Refused: toolcontract.CodeToolError, Message: err.Error()}
}

// Started is the answer a verb gives at once: the build runs on.
type Started struct {
	Status string `json:"status"` // "building"
	Job    string `json:"job"`
	Name   string `json:"name"`
	Slug   string `json:"slug,omitempty"`
}

// Create starts writing a new app from a description. name (optional) is its title. It answers at once;
// Wait (or the room's EventJobs) tells the end.
func (s *Service) Create(caller, description, name string) (Started, error) {
	description, name = strings.TrimSpace(description), strings.TrimSpace(name)
	if description == "" || len([]rune(description)) > MaxDescription {
		return Started{}, &Refusal{Code: toolcontract.CodeInvalidToolArguments, Path: "/description",
			Message: fmt.Sprintf("the description must be 1 to %d characters", MaxDescription)}
	}
	client, err := s.model()
	if err != nil {
		return Started{}, err
	}
	title := name
	if title == "" {
		title = TitleFrom(description)
	}
	slug, err := s.cfg.Workshop.NewSlug(title)
	if err != nil {
		return Started{}, err
	}
	j := s.start(caller, KindCreate, description, title, slug, client)
	go s.run(j, func(ctx context.Context) error { return s.build(ctx, j, "", "") })
	return j.started(), nil
}

// Edit starts changing an app: a written app in place (a new version), any other page as a written copy
// (the person's file is never written). ref names the app as launch_mini_app takes it, or an open app.
func (s *Service) Edit(caller, ref, change string) (Started, error) {
	change = strings.TrimSpace(change)
	if change == "" || len([]rune(change)) > MaxDescription {
		return Started{}, &Refusal{Code: toolcontract.CodeInvalidToolArguments, Path: "/change",
			Message: fmt.Sprintf("the change must be 1 to %d characters", MaxDescription)}
	}
	target, err := s.resolve(ref)
	if err != nil {
		return Started{}, err
	}
	client, err := s.model()
	if err != nil {
		return Started{}, err
	}
	slug, page, copyOf := target.slug, target.entry.HTML, ""
	if slug == "" { // a copy: its own written app, whose first version is the page as it was
		if slug, err = s.cfg.Workshop.NewSlug(target.entry.Title); err != nil {
			return Started{}, err
		}
		copyOf = target.entry.StoragePath
	} else if b, err := s.cfg.Workshop.Current(slug); err != nil {
		return Started{}, err
	} else {
		page = string(b)
	}
	j := s.start(caller, KindEdit, change, target.entry.Title, slug, client)
	if j == nil {
		return Started{}, refusal(CodeBuildInProgress, "%s is being changed already; wait for that to finish", target.entry.Title)
	}
	j.replaces, j.copyOf = target.openID, copyOf
	go s.run(j, func(ctx context.Context) error { return s.build(ctx, j, page, change) })
	return j.started(), nil
}

// model is the code model for a build about to start, once a room is there to open its app in: a build
// that could not open its app would cost the person a code model's answer for nothing.
func (s *Service) model() (codemodel.Client, error) {
	if !s.cfg.Room.HasRoom() {
		return nil, refusal(registry.CodeNoRoom, "no room is open to show the app in: open the Voicebox window first")
	}
	return s.cfg.Model()
}

// target is the app an edit or a revert works on.
type target struct {
	entry  store.Entry // with its HTML
	slug   string      // the written app's slug; "" for a page Voicebox did not write
	openID string      // the open app it is, if it is open
}

// resolve finds the app ref names: an open app first (its id, slug or title), then what the store finds.
func (s *Service) resolve(ref string) (target, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return target{}, refusal(toolcontract.CodeMissingArgument, "name the app to change")
	}
	var t target
	lookup := ref
	for _, a := range s.cfg.Room.Apps() {
		if a.AppID == ref || strings.EqualFold(a.Slug, ref) || strings.EqualFold(a.Title, ref) {
			t.openID, lookup = a.AppID, a.AppID
			break
		}
	}
	e, err := s.cfg.Library.Get(lookup)
	if err != nil && lookup != ref {
		e, err = s.cfg.Library.Get(ref)
	}
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return target{}, refusal(store.ErrNotFound.Error(), "no mini-app or page answers to %q", ref)
		}
		return target{}, err
	}
	t.entry = e
	if slug, ok := s.cfg.Workshop.Owns(e.StoragePath); ok {
		t.slug = slug
	} else if e.Folder != "" {
		return target{}, refusal(CodeCannotEditFolder, "%s is a folder app (%s): Voicebox changes single-page apps, and apps it wrote", e.Title, e.Folder)
	}
	if len(e.HTML) > MaxPageBytes {
		return target{}, refusal(CodeTooLargeToEdit, "%s is %d bytes; Voicebox changes pages of up to %d", e.Title, len(e.HTML), MaxPageBytes)
	}
	if t.openID == "" {
		for _, a := range s.cfg.Room.Apps() {
			if a.AppID == e.AppID {
				t.openID = a.AppID
			}
		}
	}
	return t, nil
}

// Revert brings a written app's previous version back (as a new version, so revert is undone by revert's
// own previous one) and loads it where the app is open. It answers when the app is ready again.
func (s *Service) Revert(ctx context.Context, caller, ref string) Final {
	return s.restore(ctx, caller, ref, 0)
}

// Restore makes version n of a written app current (the Versions list), like Revert.
func (s *Service) Restore(ctx context.Context, caller, ref string, n int) Final {
	if n <= 0 {
		return failed(registry.Outcome{Refused: toolcontract.CodeInvalidArgument, Message: "name a version (1, 2, …)"})
	}
	return s.restore(ctx, caller, ref, n)
}

func failed(out registry.Outcome) Final { return Final{Outcome: out} }

func (s *Service) restore(ctx context.Context, caller, ref string, n int) Final {
	t, err := s.resolve(ref)
	if err != nil {
		return failed(Outcome(err))
	}
	if t.slug == "" {
		return failed(Outcome(refusal(CodeNotWritten, "%s was not written by Voicebox, so it has no earlier versions", t.entry.Title)))
	}
	if !s.claim(t.slug, "revert") {
		return failed(Outcome(refusal(CodeBuildInProgress, "%s is being changed; wait for that to finish", t.entry.Title)))
	}
	defer s.release(t.slug, "revert")
	start := time.Now()
	var v int
	if n == 0 {
		v, err = s.cfg.Workshop.Revert(t.slug)
	} else {
		v, err = s.cfg.Workshop.Restore(t.slug, n)
	}
	if errors.Is(err, ErrNoEarlierVersion) {
		err = refusal(CodeNoEarlierVersion, "%s has no earlier version", t.entry.Title)
	}
	if err != nil {
		return failed(Outcome(err))
	}
	f := s.openChecked(ctx, caller, t.slug, t.openID, v, false)
	s.logLine(caller, "revert", t.entry.Title, fmt.Sprintf("now version %d", v), &f.Outcome, time.Since(start), "", "")
	return f
}

// Write takes a page an MCP client's own model wrote: a new written app, or (when name is a written app's) a
// new version of it. The page is checked like a build's; the answer says what works.
func (s *Service) Write(ctx context.Context, caller, name, html string) Final {
	name = strings.TrimSpace(name)
	if name == "" {
		return failed(registry.Outcome{Refused: toolcontract.CodeMissingArgument, Path: "/name", Message: "name the app"})
	}
	if len(html) > MaxPageBytes {
		return failed(registry.Outcome{Refused: toolcontract.CodeInvalidArgumentLength, Path: "/html", Message: fmt.Sprintf("the page is %d bytes, max %d", len(html), MaxPageBytes)})
	}
	if err := CheckPage(html); err != nil {
		return failed(Outcome(err))
	}
	page := html
	slug, openID := "", ""
	if t, err := s.resolve(name); err == nil && t.slug != "" {
		slug, openID = t.slug, t.openID
	} else if slug, err = s.cfg.Workshop.NewSlug(name); err != nil {
		return failed(Outcome(err))
	}
	if !s.claim(slug, "write") {
		return failed(Outcome(refusal(CodeBuildInProgress, "%s is being changed; wait for that to finish", name)))
	}
	defer s.release(slug, "write")
	start := time.Now()
	v, err := s.cfg.Workshop.Write(slug, []byte(page), VersionInfo{Source: SourceWrite, Request: "written by " + caller})
	if err != nil {
		return failed(Outcome(err))
	}
	f := s.openChecked(ctx, caller, slug, openID, v, true)
	if f.App.AppID != "" {
		s.mark(slug, v, f.Problems)
	}
	s.logLine(caller, "write", name, "", &f.Outcome, time.Since(start), "", "")
	return f
}

// openChecked opens version v of a written app and, when check, watches its first seconds (check).
func (s *Service) openChecked(ctx context.Context, caller, slug, openID string, v int, check bool) Final {
	shown := s.show(ctx, caller, slug, openID)
	if !shown.OK {
		return Final{Outcome: shown, Version: v}
	}
	var app registry.App
	_ = json.Unmarshal(shown.Result, &app)
	f := Final{Version: v, App: infoOf(app)}
	if check {
		f.App, f.Problems = s.check(ctx, caller, shown)
	}
	f.Outcome = f.outcome()
	return f
}

// outcome is how a final state reads to a door's caller: ready, or open with problems (an honest answer,
// not a refusal: the tools that passed work).
func (f Final) outcome() registry.Outcome {
	res := finished{Status: "ready", Version: f.Version, App: f.App, Problems: f.Problems}
	if len(f.Problems) > 0 {
		res.Status = StatusProblems
		res.Message = checkMessage(f.App.Title, f.Problems)
	}
	return jsonOutcome(res)
}

// show opens a written app (by its store entry, which a rescan finds), or loads its new version where it is
// open (openID: the app it replaces, when that is another app: a copy takes the original's place).
func (s *Service) show(ctx context.Context, caller, slug, openID string) registry.Outcome {
	path := s.cfg.Workshop.Path(slug)
	if err := s.cfg.Library.Rescan(); err != nil {
		return Outcome(err)
	}
	var id string
	for _, e := range s.cfg.Library.List() {
		if samePath(e.StoragePath, path) {
			id = e.AppID
		}
	}
	if id == "" {
		return registry.Outcome{Refused: registry.CodeLaunchFailed, Message: "the written app is not among the store's pages: " + path}
	}
	if openID != "" && openID != id {
		s.cfg.Room.Close(ctx, caller, openID)
	}
	app, out := s.cfg.Room.Reopen(ctx, caller, id)
	if !out.OK {
		return out
	}
	b, _ := json.Marshal(app)
	return registry.Outcome{OK: true, Result: b}
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func jsonOutcome(v any) registry.Outcome {
	b, err := json.Marshal(v)
	if err != nil {
		return registry.Outcome{Refused: toolcontract.CodeToolError, Message: err.Error()}
	}
	return registry.Outcome{OK: true, Result: b}
}

// claim marks slug as being written by what; false when something writes it already.
func (s *Service) claim(slug, what string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.busy[slug]; taken {
		return false
	}
	s.busy[slug] = what
	return true
}

func (s *Service) release(slug, what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[slug] == what {
		delete(s.busy, slug)
	}
}

// Versions lists a written app's versions, newest first.
func (s *Service) Versions(ref string) ([]VersionInfo, error) {
	t, err := s.resolve(ref)
	if err != nil {
		return nil, err
	}
	if t.slug == "" {
		return []VersionInfo{}, nil
	}
	return s.cfg.Workshop.Versions(t.slug)
}
