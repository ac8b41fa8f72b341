package sandbox

import (
	"strings"
	"testing"
)

func directive(csp, name string) string {
	for _, d := range strings.Split(csp, "; ") {
		if n, v, _ := strings.Cut(d, " "); n == name {
			return v
		}
	}
	return "(absent)"
}

// With nothing granted a view gets the specification's restrictive default (its own scripts and styles and
// inline ones, its own images and data:, no connection, no frames), and Voicebox's rules on top.
func TestViewCSPDefaultIsTheSpecsRestrictiveOne(t *testing.T) {
	own := "http://127.0.0.2:4000/app/tok/"
	csp := ViewCSP("http://127.0.0.2:4000", "http://127.0.0.1:8787", "/app/tok/", ViewDomains{})
	for name, want := range map[string]string{
		"default-src":     "'none'",
		"script-src":      "'unsafe-inline' " + own,
		"style-src":       "'unsafe-inline' " + own,
		"img-src":         "data: blob: " + own,
		"connect-src":     "'none'",
		"frame-src":       "'none'",
		"object-src":      "'none'",
		"base-uri":        own,
		"form-action":     "'none'",
		"frame-ancestors": "http://127.0.0.2:4000 http://127.0.0.1:8787",
		"webrtc":          "'block'",
		"sandbox":         "allow-scripts allow-forms",
	} {
		if got := directive(csp, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if strings.Contains(csp, "unsafe-eval") {
		t.Error("a view gets no eval the specification does not give it")
	}
}

// Granted domains open exactly their directives; anything that is not an https (wss) origin is dropped, so
// a server's metadata cannot widen the policy or inject a directive.
func TestViewCSPOpensOnlyGrantedOrigins(t *testing.T) {
	csp := ViewCSP("http://127.0.0.2:4000", "http://127.0.0.1:8787", "/app/tok/", ViewDomains{
		Connect:  []string{"https://api.example.com", "wss://live.example.com", "http://plain.example.com", "*", "https://x.com; script-src *"},
		Resource: []string{"https://*.cdn.example.com/", "'unsafe-eval'", "data:"},
		Frame:    []string{"https://www.youtube.com"},
		BaseURI:  []string{"https://cdn.example.com"},
	})
	if got := directive(csp, "connect-src"); got != "https://api.example.com wss://live.example.com" {
		t.Errorf("connect-src = %q", got)
	}
	if got := directive(csp, "script-src"); got != "'unsafe-inline' http://127.0.0.2:4000/app/tok/ https://*.cdn.example.com" {
		t.Errorf("script-src = %q", got)
	}
	if got := directive(csp, "frame-src"); got != "https://www.youtube.com" {
		t.Errorf("frame-src = %q", got)
	}
	if got := directive(csp, "base-uri"); got != "https://cdn.example.com" {
		t.Errorf("base-uri = %q", got)
	}
	if n := strings.Count(csp, "script-src"); n != 1 || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http://plain") {
		t.Errorf("a bad domain widened the policy: %s", csp)
	}
}
