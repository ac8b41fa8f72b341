package toolcontract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "tool.json", benchSetScoreDecl)
	bad := writeFile(t, dir, "bad.json", `{"name":"set_score","description":"d","parameters":{"type":"object","properties":{"team":{"type":"string","pattern":"^h"}}}}`)
	okArgs := writeFile(t, dir, "ok.json", `{"team":"home","points":3}`)
	badArgs := writeFile(t, dir, "args.json", `{"team":"home","points":"3"}`)
	notJSON := writeFile(t, dir, "junk.json", `{"name":`)

	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string // exact stdout line, or "" when only stderr matters
	}{
		{"tool ok", []string{good}, "", 0, `{"ok":true}`},
		{"tool refused", []string{bad}, "", 1, `{"ok":false,"refused":"invalid-tool-parameters","path":"/properties/team/pattern","message":"unsupported keyword \"pattern\" for type string"}`},
		{"tool junk", []string{notJSON}, "", 1, ""},
		{"args ok", []string{good, "--args", okArgs}, "", 0, `{"ok":true}`},
		{"args ok =", []string{"--args=" + okArgs, good}, "", 0, `{"ok":true}`},
		{"args refused", []string{good, "--args", badArgs}, "", 1, `{"ok":false,"refused":"invalid-argument-type","path":"/points","message":"expected number, got string"}`},
		{"tool refused before args", []string{bad, "--args", okArgs}, "", 1, ""},
		{"tool from stdin", []string{"-", "--args", okArgs}, benchSetScoreDecl, 0, `{"ok":true}`},
		{"args from stdin", []string{good, "--args", "-"}, `{"team":"away"}`, 1, `{"ok":false,"refused":"missing-argument","path":"/points","message":"missing required argument \"points\""}`},
		{"both stdin", []string{"-", "--args", "-"}, "", 2, ""},
		{"no tool", nil, "", 2, ""},
		{"two tools", []string{good, good}, "", 2, ""},
		{"dangling --args", []string{good, "--args"}, "", 2, ""},
		{"unknown flag", []string{good, "--nope"}, "", 2, ""},
		{"missing file", []string{filepath.Join(dir, "absent.json")}, "", 2, ""},
		{"missing args file", []string{good, "--args", filepath.Join(dir, "absent.json")}, "", 2, ""},
		{"help", []string{"--help"}, "", 0, ""},
		{"after --", []string{"--", good}, "", 0, `{"ok":true}`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := checkCommand(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stdout %q, stderr %q)", tc.name, code, tc.code, stdout.String(), stderr.String())
			continue
		}
		if tc.out != "" && stdout.String() != tc.out+"\n" {
			t.Errorf("%s: stdout %q, want %q", tc.name, stdout.String(), tc.out)
		}
		if code == 1 {
			var v struct {
				OK      bool
				Refused string
			}
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil || v.OK || v.Refused == "" || strings.Count(stdout.String(), "\n") != 1 {
				t.Errorf("%s: refusal line %q", tc.name, stdout.String())
			}
		}
		if code == 2 && (stdout.Len() != 0 || stderr.Len() == 0) {
			t.Errorf("%s: usage error should only write stderr (stdout %q)", tc.name, stdout.String())
		}
	}
}

func TestCheckCommandUsesStdin(t *testing.T) {
	// CheckCommand is the exported entry point; with a file it never reads stdin.
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	if code := CheckCommand([]string{writeFile(t, dir, "t.json", benchSetScoreDecl)}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
