package frontend_test

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/frontend"
)

// Every code Go can answer the room with has a sentence for the person in the room's one table
// (room/src/errortext.js), so no code falls through to "Something went wrong" with the code on show.
func TestEveryErrorCodeHasASentence(t *testing.T) {
	src, err := fs.ReadFile(frontend.Room(), "src/errortext.js")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"([a-z0-9-]+)": \{ say: "`).FindAllStringSubmatch(string(src), -1) {
		have[m[1]] = true
	}
	if len(have) < 30 {
		t.Fatalf("read only %d entries from errortext.js: the pattern no longer matches its table", len(have))
	}
	codes := append(append(append(services.Codes(), author.Codes()...), mcpclient.Codes()...),
		// the voice session
		voice.CodeMissingKey, voice.CodeKeyRefused, voice.CodeUnknownProvider, voice.CodeNotRunning, voice.CodeUpstream,
		voice.CodeSetupTimeout, voice.CodeConnectionLost, voice.CodeBadRequest, voice.CodeBadAudio,
		// opening and calling apps
		registry.CodeNoRoom, registry.CodeLaunchFailed, registry.CodeRoomGone, registry.CodeRoomReloaded,
		registry.CodeLaunchTimeout, registry.CodeRoomTimeout,
		toolcontract.CodeUnknownTool, toolcontract.CodeToolTimeout, toolcontract.CodeOutputOverBudget, toolcontract.CodeToolError, toolcontract.CodeCancelled,
		toolcontract.CodeInvalidToolArguments,
		// the HTTP door
		httpapi.CodeUnauthorized, httpapi.CodeForbiddenHost, httpapi.CodeForbiddenOrigin, httpapi.CodeUnsupportedType,
		httpapi.CodeBodyTooLarge, httpapi.CodeBadJSON, httpapi.CodeMethod)
	for _, c := range codes {
		if !have[c] {
			t.Errorf("errortext.js has no sentence for %q", c)
		}
	}
}
