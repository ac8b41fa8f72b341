// Package config resolves where Voicebox keeps its files: the workspace the person works in, the data folder
// that holds the shelf and sandbox homes, and the extra sandbox roots. Flags win over environment variables,
// which win over the defaults (~/Voicebox and the XDG data home).
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables a person or a test can set instead of flags.
const (
	EnvWorkspace     = "VOICEBOX_WORKSPACE"
	EnvDataDir       = "VOICEBOX_DATA_DIR"
	EnvSandboxHomes  = "VOICEBOX_SANDBOX_HOMES"
	defaultWorkspace = "Voicebox"
	appDirName       = "voicebox"
)

// Paths are the folders one run of Voicebox works with. All are absolute and cleaned.
type Paths struct {
	Workspace    string
	Data         string
	SandboxRoots []string // extra sandbox roots; <Data>/sandboxes is always one too
	// Trash is the person's home trash, $XDG_DATA_HOME/Trash (the freedesktop.org Trash specification):
	// deletes move files there (docs/trash.md).
	Trash string
}

// Resolve fills in the paths from flags (empty means unset), then the environment, then the defaults.
func Resolve(workspaceFlag, dataFlag string, getenv func(string) string) (Paths, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home, homeErr := os.UserHomeDir()
	if env := getenv("HOME"); env != "" {
		home, homeErr = env, nil
	}
	pick := func(flag, env, fallback string) (string, error) {
		v := flag
		if v == "" {
			v = getenv(env)
		}
		if v == "" {
			if homeErr != nil {
				return "", fmt.Errorf("config: no home folder to put defaults in: %w", homeErr)
			}
			v = fallback
		}
		return absPath(v, home)
	}
	dataHome := getenv("XDG_DATA_HOME")
	if dataHome == "" || !filepath.IsAbs(dataHome) { // the XDG spec says to ignore relative values
		dataHome = filepath.Join(home, ".local", "share")
	}
	var p Paths
	var err error
	if p.Workspace, err = pick(workspaceFlag, EnvWorkspace, filepath.Join(home, defaultWorkspace)); err != nil {
		return Paths{}, err
	}
	if p.Data, err = pick(dataFlag, EnvDataDir, filepath.Join(dataHome, appDirName)); err != nil {
		return Paths{}, err
	}
	if homeErr == nil || filepath.IsAbs(getenv("XDG_DATA_HOME")) {
		p.Trash = filepath.Join(dataHome, "Trash")
	}
	for _, root := range filepath.SplitList(getenv(EnvSandboxHomes)) {
		if strings.TrimSpace(root) == "" {
			continue
		}
		abs, err := absPath(root, home)
		if err != nil {
			return Paths{}, err
		}
		p.SandboxRoots = append(p.SandboxRoots, abs)
	}
	return p, nil
}

// Prepare creates the workspace and the data folder on first run.
func (p Paths) Prepare() error {
	if p.Workspace == "" || p.Data == "" {
		return errors.New("config: workspace and data folder must be set")
	}
	for _, dir := range []string{p.Workspace, p.Data} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("config: create %s: %w", dir, err)
		}
	}
	return nil
}

// absPath expands a leading ~ and makes the path absolute.
func absPath(p, home string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("config: %q: %w", p, err)
	}
	return abs, nil
}
