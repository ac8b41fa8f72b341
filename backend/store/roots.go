package store

import (
	"path/filepath"
)

type rootKind int

const (
	rootShelf rootKind = iota
	rootSandbox
	rootWorkspace
)

// rootSpec is one root folder and its depth rules.
type rootSpec struct {
	kind  rootKind
	path  string // absolute, cleaned
	order int    // position in s.roots (sandbox roots ordering)
	// written: the written apps' sandbox root (WrittenAppsDir), where each app is a folder of its own
	written bool
}

// maxDirLevel is the deepest folder level walked (root = 0).
func (rs *rootSpec) maxDirLevel() int {
	switch rs.kind {
	case rootWorkspace:
		return 1
	case rootSandbox:
		return 3 // root / home / x / y
	default:
		return 1 // the shelf: <slug>.html, and <slug>/index.html for a folder app's copy
	}
}

// listsFile reports whether the .html file name at this folder level may be an entry.
func (rs *rootSpec) listsFile(level int, name string) bool {
	switch {
	case rs.kind == rootSandbox:
		return level >= 1
	case rs.kind == rootShelf && level == 1:
		return name == FolderEntry
	}
	return level <= rs.maxDirLevel()
}

// ownsFolders reports whether a FolderEntry at this folder level makes its folder an app folder: the
// workspace's and the shelf's direct subfolders (see the package doc, "Folder apps").
func (rs *rootSpec) ownsFolders(level int) bool {
	return level == 1 && (rs.kind == rootWorkspace || rs.kind == rootShelf || rs.written)
}

// WrittenAppsDir is the sandbox root of the apps the assistant writes, <data>/sandbox/<slug>/index.html
// (backend/author's Workshop is its only writer; docs/authoring.md). Each of its folders is one app, named
// after the folder, as a workspace folder app is; its kind is a sandbox's (a page until saved).
const WrittenAppsDir = "sandbox"

// configureRoots rebuilds s.roots from the configuration. Caller holds opMu.
func (s *Store) configureRoots() {
	var roots []*rootSpec
	seen := map[string]bool{}
	add := func(kind rootKind, p string) *rootSpec {
		if p == "" || seen[p] {
			return &rootSpec{}
		}
		seen[p] = true
		rs := &rootSpec{kind: kind, path: p, order: len(roots)}
		roots = append(roots, rs)
		return rs
	}
	if s.data != "" {
		add(rootShelf, filepath.Join(s.data, "mini-apps"))
		add(rootSandbox, filepath.Join(s.data, "sandboxes"))
		add(rootSandbox, filepath.Join(s.data, WrittenAppsDir)).written = true
	}
	for _, p := range s.extra {
		add(rootSandbox, p)
	}
	add(rootWorkspace, s.workspace)
	s.roots = roots
	s.rootSet = map[string]*rootSpec{}
	for _, r := range roots {
		s.rootSet[r.path] = r
	}
	s.wsReal = s.workspace
	if s.workspace != "" {
		if real, err := filepath.EvalSymlinks(s.workspace); err == nil {
			s.wsReal = real
		}
	}
	s.mu.Lock()
	s.wsPublic = s.workspace
	s.scanned = scannedRoots(roots)
	s.mu.Unlock()
}

// ScannedRoot is a folder the store walks and how deep: Depth is the deepest folder level, below the root
// (for a sandbox root: below each home), whose pages are listed (the package doc, "Roots and depth").
type ScannedRoot struct {
	Kind  string `json:"kind"` // "workspace", "shelf" or "sandbox"
	Path  string `json:"path"`
	Depth int    `json:"depth"`
}

func scannedRoots(roots []*rootSpec) []ScannedRoot {
	out := make([]ScannedRoot, 0, len(roots))
	for _, r := range roots {
		switch r.kind {
		case rootWorkspace:
			out = append(out, ScannedRoot{"workspace", r.path, r.maxDirLevel()})
		case rootShelf:
			out = append(out, ScannedRoot{"shelf", r.path, 0}) // and the folder apps' copies, <slug>/index.html
		case rootSandbox:
			out = append(out, ScannedRoot{"sandbox", r.path, r.maxDirLevel() - 1})
		}
	}
	return out
}

// Scanned returns the folders the store walks, shelf and sandboxes first, the workspace last.
func (s *Store) Scanned() []ScannedRoot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]ScannedRoot(nil), s.scanned...)
}

func (s *Store) shelfRoot() *rootSpec {
	for _, r := range s.roots {
		if r.kind == rootShelf {
			return r
		}
	}
	return nil
}

func (s *Store) workspaceRoot() *rootSpec {
	for _, r := range s.roots {
		if r.kind == rootWorkspace {
			return r
		}
	}
	return nil
}
