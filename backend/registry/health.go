package registry

import (
	"strings"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Health is what an open app's current document did besides registering tools: the declarations the
// bridge or Go refused and the uncaught errors and unhandled rejections the room forwarded. It lives as long
// as the document: a reload (Unregister), a close and the room's goodbye forget it. The written apps' check
// reads it (backend/author: "no refusal, no error in its first 2 s"); the activity log shows every error.
type Health struct {
	// Refused are the declarations refused: by the bridge (the room's report) and by Go (Register).
	Refused []toolcontract.Verdict `json:"refused"`
	Errors  []AppError             `json:"errors"`
	// ErrorCount counts every error reported, also those past MaxAppErrors.
	ErrorCount int `json:"errorCount"`

	goRefused []toolcontract.Verdict // Register's own refusals (Refused holds the bridge's)
}

// AppError is one uncaught error or unhandled rejection of an app's document.
type AppError struct {
	Kind    string `json:"kind"`            // "error" or "rejection"
	Message string `json:"message"`         // the error's text
	Where   string `json:"where,omitempty"` // file:line:column in the app's document, when known
}

// Health bounds: the errors kept per document (the bridge forwards at most as many), the refusals (the
// bridge keeps 32), and the texts.
const (
	MaxAppErrors  = 20
	maxRefusals   = 32
	maxHealthText = 500
)

// Report is what the room tells Go about an app's document: the declarations refused (the whole list,
// replacing the last one) and, one at a time, an error.
type Report struct {
	Title   string                  `json:"title,omitempty"` // the app's title, for the log before it registered
	Refused *[]toolcontract.Verdict `json:"refused,omitempty"`
	Error   *AppError               `json:"error,omitempty"`
}

// OpAppError is the activity log's op for an app's error (backend/activity writes it as the room did:
// "script error" or "unhandled rejection", where, and the message).
const OpAppError = "app-error"

// Report records what the room says of appID's document. An error also goes to the activity log, under the
// app's title, so the log shows every app's errors whoever opened the app.
func (r *Registry) Report(appID string, rep Report) {
	if e := r.record(appID, rep); e != nil {
		r.mu.Lock()
		title := cut(rep.Title)
		if a := r.apps[appID]; a != nil && a.Title != "" {
			title = a.Title
		}
		if title == "" {
			title = appID
		}
		r.mu.Unlock()
		r.activity(Activity{Caller: title, Op: OpAppError, AppID: appID, Tool: e.Kind, Ref: e.Where,
			Outcome: Outcome{Refused: e.Kind, Message: e.Message}})
	}
}

// record keeps a report and returns its error as recorded (cleaned and cut), nil when it had none.
func (r *Registry) record(appID string, rep Report) *AppError {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.healthLocked(appID)
	if rep.Refused != nil {
		h.Refused = append([]toolcontract.Verdict(nil), (*rep.Refused)[:min(len(*rep.Refused), maxRefusals)]...)
	}
	e := rep.Error
	if e == nil {
		return nil
	}
	clean := AppError{Kind: "error", Message: cut(e.Message), Where: cut(e.Where)}
	if e.Kind == "rejection" {
		clean.Kind = "rejection"
	}
	if clean.Message == "" {
		clean.Message = "an error"
	}
	h.ErrorCount++
	if len(h.Errors) < MaxAppErrors {
		h.Errors = append(h.Errors, clean)
	}
	return &clean
}

// HealthOf returns a copy of what appID's current document reported.
func (r *Registry) HealthOf(appID string) Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.health[appID]
	if h == nil {
		return Health{Refused: []toolcontract.Verdict{}, Errors: []AppError{}}
	}
	refused := append(append([]toolcontract.Verdict{}, h.Refused...), h.goRefused...)
	return Health{Refused: refused, Errors: append([]AppError{}, h.Errors...), ErrorCount: h.ErrorCount}
}

// healthLocked returns appID's record, made on first use. r.mu is held.
func (r *Registry) healthLocked(appID string) *Health {
	h := r.health[appID]
	if h == nil {
		h = &Health{}
		r.health[appID] = h
	}
	return h
}

func cut(s string) string { return display.Cut(display.Clean(strings.TrimSpace(s)), maxHealthText) }
