package services

import (
	"context"
	"net/http"
	"strings"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/verbs"
)

// AuthorService is the room's door to the assistant's app writing (backend/author): the New app field,
// Change this app, the build cards (Cancel), the Versions list. The room's own requests are the person's:
// their caller is "you".
type AuthorService struct {
	a *author.Service
}

// NewAuthorService serves a.
func NewAuthorService(a *author.Service) *AuthorService { return &AuthorService{a: a} }

// roomCaller is who the room's builds are in the activity log.
const roomCaller = "you"

// Create starts writing a new app from a description; name (optional) is its title.
func (s *AuthorService) Create(description, name string) (author.Started, error) {
	st, err := s.a.Create(roomCaller, description, name)
	return st, buildError(err)
}

// Edit starts changing an app (ref as launch takes it, or an open app's id).
func (s *AuthorService) Edit(ref, change string) (author.Started, error) {
	st, err := s.a.Edit(roomCaller, ref, change)
	return st, buildError(err)
}

// Cancel stops a build: the code model's request is aborted, nothing more is written.
func (s *AuthorService) Cancel(job string) error { return buildError(s.a.Cancel(job)) }

// Jobs is every build the room shows (its cards), oldest first; EventJobs brings the changes.
func (s *AuthorService) Jobs() (author.JobsView, error) { return s.a.Jobs(), nil }

// Versions lists a written app's versions, newest first (empty for an app Voicebox did not write).
func (s *AuthorService) Versions(ref string) ([]author.VersionInfo, error) {
	if blank(ref) {
		return nil, BadRequest("name the app")
	}
	vs, err := s.a.Versions(ref)
	return vs, buildError(err)
}

// Revert brings a written app's previous version back (the Change strip's Undo; reverting again goes back
// further), as the revert_mini_app verb does. Refusals are errors with their codes.
func (s *AuthorService) Revert(ref string) (verbs.Built, error) {
	return builtOf(s.a.Revert(context.Background(), roomCaller, ref))
}

// Restore makes version n of a written app current again (a new version) and reloads it where it is open.
// Refusals are outcomes, as a tool call's.
func (s *AuthorService) Restore(ref string, n int) (verbs.Built, error) {
	return builtOf(s.a.Restore(context.Background(), roomCaller, ref, n))
}

// builtOf is a revert's or a restore's end as the room reads it.
func builtOf(f author.Final) (verbs.Built, error) {
	if f.App.AppID == "" {
		return verbs.Built{}, &buildRefusal{f.Outcome.Refused, f.Outcome.Message}
	}
	return verbs.Built{Status: "ready", Version: f.Version, App: f.App, Problems: f.Problems}, nil
}

// buildError is a build's refusal as the room's doors carry errors: its code and sentence (author.Outcome).
func buildError(err error) error {
	if err == nil {
		return nil
	}
	out := author.Outcome(err)
	return &buildRefusal{out.Refused, out.Message}
}

// buildRefusal is a coded refusal of the author: bad requests are the caller's, the code model's failures a
// bad gateway, the rest a conflict with what is there.
type buildRefusal struct{ code, msg string }

func (e *buildRefusal) Error() string     { return e.msg }
func (e *buildRefusal) ErrorCode() string { return e.code }
func (e *buildRefusal) HTTPStatus() int {
	switch {
	case strings.HasPrefix(e.code, "invalid-") || strings.HasPrefix(e.code, "missing-"):
		return http.StatusBadRequest
	case strings.HasPrefix(e.code, "code-model-"):
		return http.StatusBadGateway
	case e.code == "mini-app-not-found" || e.code == author.CodeUnknownJob:
		return http.StatusNotFound
	}
	return http.StatusConflict
}
