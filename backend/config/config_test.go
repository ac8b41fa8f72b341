package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	home := t.TempDir()
	list := string(os.PathListSeparator)
	tests := []struct {
		name              string
		workspace, data   string
		vars              map[string]string
		wantWork, wantDat string
		wantRoots         []string
	}{
		{"defaults", "", "", map[string]string{"HOME": home},
			filepath.Join(home, "Voicebox"), filepath.Join(home, ".local/share/voicebox"), nil},
		{"XDG data home", "", "", map[string]string{"HOME": home, "XDG_DATA_HOME": "/xdg"},
			filepath.Join(home, "Voicebox"), "/xdg/voicebox", nil},
		{"relative XDG ignored", "", "", map[string]string{"HOME": home, "XDG_DATA_HOME": "rel"},
			filepath.Join(home, "Voicebox"), filepath.Join(home, ".local/share/voicebox"), nil},
		{"environment", "", "", map[string]string{"HOME": home, EnvWorkspace: "/ws", EnvDataDir: "/dd",
			EnvSandboxHomes: "/s1" + list + list + "~/s2"},
			"/ws", "/dd", []string{"/s1", filepath.Join(home, "s2")}},
		{"flags win", "/fw", "~/fd", map[string]string{"HOME": home, EnvWorkspace: "/ws", EnvDataDir: "/dd"},
			"/fw", filepath.Join(home, "fd"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Resolve(tt.workspace, tt.data, env(tt.vars))
			if err != nil {
				t.Fatal(err)
			}
			if p.Workspace != tt.wantWork || p.Data != tt.wantDat || !reflect.DeepEqual(p.SandboxRoots, tt.wantRoots) {
				t.Errorf("got %+v, want workspace %q data %q roots %q", p, tt.wantWork, tt.wantDat, tt.wantRoots)
			}
		})
	}
}

func TestPrepareCreatesFolders(t *testing.T) {
	base := t.TempDir()
	p := Paths{Workspace: filepath.Join(base, "w", "x"), Data: filepath.Join(base, "d")}
	if err := p.Prepare(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{p.Workspace, p.Data} {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			t.Errorf("%s: got %v, want a folder", dir, err)
		}
	}
	if err := (Paths{}).Prepare(); err == nil {
		t.Error("Prepare with empty paths: got nil error, want one")
	}
}

// Deletes go to the person's home trash, $XDG_DATA_HOME/Trash, whatever --data says.
func TestResolveTrash(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"HOME": home}, filepath.Join(home, ".local/share/Trash")},
		{map[string]string{"HOME": home, "XDG_DATA_HOME": "/xdg", EnvDataDir: "/dd"}, "/xdg/Trash"},
		{map[string]string{"HOME": home, "XDG_DATA_HOME": "rel"}, filepath.Join(home, ".local/share/Trash")},
	} {
		p, err := Resolve("", "/flag-data", env(c.vars))
		if err != nil || p.Trash != c.want {
			t.Errorf("%v: Trash %q (%v), want %q", c.vars, p.Trash, err, c.want)
		}
	}
}
