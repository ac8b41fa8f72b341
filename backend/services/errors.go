// Package services holds the methods the room calls. The desktop binds these structs with Wails (every
// exported method becomes callable from the room, so each one treats its input as untrusted) and
// `voicebox serve` exposes the very same methods over HTTP, so the two doors cannot disagree.
package services

import (
	"errors"
	"io/fs"
	"net/http"
	"strings"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/trash"
)

// ErrorBody is how every refusal reaches the room: a stable code, a readable message and, for
// mini-app-name-taken, the app that owns the name.
type ErrorBody struct {
	Code    string       `json:"error"`
	Message string       `json:"message"`
	App     *store.Entry `json:"app,omitempty"`
}

// Error codes the services answer beside the store's own.
const (
	CodeBadRequest = "bad-request"
	CodeNotFound   = "file-not-found"
	CodeInternal   = "internal-error"
)

var errBadRequest = errors.New(CodeBadRequest)

// sentinels map each error the services can meet to its HTTP status; the code is the sentinel's text.
// The first match wins, so wrapped errors resolve to their most specific meaning.
var sentinels = []struct {
	err    error
	status int
}{
	{store.ErrNotFound, http.StatusNotFound},
	{documents.ErrNotFound, http.StatusNotFound},
	{store.ErrOutsideRoot, http.StatusBadRequest},
	{store.ErrInvalidName, http.StatusBadRequest},
	{store.ErrNoShelf, http.StatusConflict},
	{documents.ErrNotHTML, http.StatusBadRequest},
	{store.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{store.ErrFolderTooLarge, http.StatusRequestEntityTooLarge},
	{store.ErrUnsupportedFile, http.StatusBadRequest},
	{store.ErrNotAppFolder, http.StatusBadRequest},
	{documents.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{errBadRequest, http.StatusBadRequest},
	{trash.ErrOccupied, http.StatusConflict},
	{trash.ErrNoFolder, http.StatusConflict},
	{trash.ErrUnavailable, http.StatusConflict},
	{trash.ErrGone, http.StatusGone},
}

// Codes lists every code Describe answers with from this table (the room has a sentence for each:
// frontend/room/src/errortext.js).
func Codes() []string {
	out := []string{CodeNotFound, CodeInternal, store.ErrNameTaken.Error()}
	for _, s := range sentinels {
		out = append(out, s.err.Error())
	}
	return out
}

// Describe maps an error to its HTTP status and body. Bound methods reject with the same body.
func Describe(err error) (int, ErrorBody) {
	body := ErrorBody{Message: err.Error()}
	var taken *store.NameTakenError
	var coded CodedError
	switch {
	case errors.As(err, &coded):
		body.Code = coded.ErrorCode()
		return coded.HTTPStatus(), body
	case errors.As(err, &taken):
		owner := taken.Owner
		body.Code, body.App = store.ErrNameTaken.Error(), &owner
		return http.StatusConflict, body
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			body.Code = s.err.Error()
			return s.status, body
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		body.Code = CodeNotFound
		return http.StatusNotFound, body
	}
	body.Code = CodeInternal
	return http.StatusInternalServerError, body
}

// ErrorNotice is err as a notice to the room (the events.Notice event): its code, which the room turns into
// one human sentence, and the whole message, which it shows behind "Details".
func ErrorNotice(err error) map[string]string {
	_, body := Describe(err)
	return map[string]string{"level": "error", "code": body.Code, "message": body.Message}
}

// CodedError is an error that carries its own stable code and HTTP status (the voice session's errors).
type CodedError interface {
	error
	ErrorCode() string
	HTTPStatus() int
}

// FormatError is the Wails ErrorFormatter: a bound method's promise rejects with the same body HTTP sends.
func FormatError(err error) any {
	_, body := Describe(err)
	return body
}

// BadRequest refuses malformed input with the bad-request code (400).
func BadRequest(msg string) error { return &codedError{errBadRequest, msg} }

type codedError struct {
	sentinel error
	msg      string
}

func (e *codedError) Error() string { return e.sentinel.Error() + ": " + e.msg }
func (e *codedError) Unwrap() error { return e.sentinel }

func blank(s string) bool { return strings.TrimSpace(s) == "" }
