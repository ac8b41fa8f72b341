package store

import (
	"fmt"
	"hash/fnv"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// item is an entry plus what the store needs to act on it.
type item struct {
	Entry
	rs        *rootSpec
	rootPath  string
	rel       string   // slash path of the file relative to rootPath
	folderRel string   // a folder app: slash path of its folder relative to rootPath ("" for a page)
	shelfBase string   // apps: base name of the shelf .html (without .html), or the shelf folder's name
	shelfDir  bool     // apps: the shelf copy is the folder <shelfBase>/, not <shelfBase>.html
	record    *metaRec // apps: the shelf record that describes it (nil: none)
	proven    bool     // a workspace file proven to be the record's app
	naturalID string
	lowTitle  string // sort key
}

type snapshot struct {
	entries []Entry // List order
	items   []*item // id priority order (apps first, then source, path)
	byID    map[string]*item
}

func emptySnapshot() *snapshot { return &snapshot{byID: map[string]*item{}} }

// Slugify turns a name into a shelf slug: lower-case ASCII letters and
// digits, other runs replaced by one '-', a trailing ".html" dropped, at most
// 64 bytes. It returns "" when the name has no ASCII letter or digit.
func Slugify(name string) string {
	name = trimHTMLExt(strings.TrimSpace(name))
	var b strings.Builder
	dash := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
			dash = false
		} else if b.Len() > 0 && !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}

// SlugOf is Slugify with a stable fallback for names without ASCII letters
// or digits ("x-" and a hash of the name), so every entry has a slug. It is
// the one slug rule: the store's entries and pages opened from outside it
// (services.SandboxService) are named alike.
func SlugOf(name string) string {
	if s := Slugify(name); s != "" {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(trimHTMLExt(strings.TrimSpace(name))))
	return fmt.Sprintf("x-%08x", h.Sum32())
}

func validAppID(id string) bool {
	if !strings.HasPrefix(id, "app_") || len(id) <= 4 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// TitleOf is the title of an HTML page as the store names its entries: its
// first <title> (entities decoded, whitespace collapsed, bounded without
// splitting a character), else the file name without ".html".
func TitleOf(html, fileName string) string {
	return titleOr(extractTitle([]byte(html[:min(len(html), titleScanBytes)])), fileName)
}

func titleOr(t, fileName string) string {
	if t != "" {
		return t
	}
	return displayTitle(trimHTMLExt(fileName))
}

// recordProves reports whether rec names the workspace file rel.
func (s *Store) recordProves(rec *metaRec, rel string) bool {
	if rec == nil || rec.WorkspacePath == "" || s.workspace == "" {
		return false
	}
	wp, err := cleanRel(rec.WorkspacePath)
	if err != nil || wp != rel {
		return false
	}
	if rec.WorkspaceRoot != "" {
		wr := filepath.Clean(rec.WorkspaceRoot)
		if wr != s.workspace && wr != s.wsReal {
			return false
		}
	}
	return true
}

// rebuildLocked classifies the discovered files into a new snapshot and
// notifies subscribers if the list changed. Caller holds opMu.
func (s *Store) rebuildLocked() {
	var shelfApps, wsFiles, sbFiles []*item
	var shelfTop *dirState
	if rs := s.shelfRoot(); rs != nil {
		shelfTop = s.dirs[rs.path]
	}
	for _, ds := range s.dirs {
		switch ds.rs.kind {
		case rootShelf:
			for name, f := range listedFiles(ds) {
				base := trimHTMLExt(name)
				if folder := ds.folderApp(); folder != "" {
					// <base>/index.html: a folder app's copy, unless <base>.html beside it has the name.
					base = folder
					if shelfTop == nil || shelfTop.files[base+".html"] != nil {
						continue
					}
				}
				var rec *metaRec
				if shelfTop != nil {
					if m := shelfTop.metas[base]; m != nil && !m.bad {
						rec = m.meta
					}
				}
				it := s.fileItem(ds, f)
				it.Source = SourceShelf
				it.Kind = KindApp
				it.shelfBase = base
				it.shelfDir = it.folderRel != ""
				it.record = rec
				it.Slug = SlugOf(base)
				it.naturalID = "app_" + it.Slug
				if rec != nil {
					if validAppID(rec.AppID) {
						it.naturalID = rec.AppID
					}
					if rec.Title != "" {
						it.Title = rec.Title
					}
					if !rec.CreatedAt.IsZero() {
						it.CreatedAt = rec.CreatedAt
					}
					if !rec.UpdatedAt.IsZero() {
						it.UpdatedAt = rec.UpdatedAt
					}
					if wp, err := cleanRel(rec.WorkspacePath); err == nil {
						it.WorkspacePath = wp
					}
				}
				shelfApps = append(shelfApps, it)
			}
		case rootWorkspace:
			for _, f := range listedFiles(ds) {
				it := s.fileItem(ds, f)
				it.Source = SourceWorkspace
				it.Kind = KindPage
				it.WorkspacePath = it.rel
				it.naturalID = "page_" + it.Slug
				wsFiles = append(wsFiles, it)
			}
		case rootSandbox:
			for _, f := range ds.files {
				if f.bad {
					continue
				}
				it := s.fileItem(ds, f)
				it.Source = SourceSandbox
				it.Kind = KindPage
				it.Sandbox, _, _ = strings.Cut(ds.rel, "/")
				it.naturalID = "page_" + it.Slug
				sbFiles = append(sbFiles, it)
			}
		}
	}

	// Proof: a shelf record whose workspacePath is a workspace file's own
	// relative path makes that file the app; the shelf copy is not listed.
	sort.Slice(shelfApps, func(i, j int) bool { return shelfApps[i].shelfBase < shelfApps[j].shelfBase })
	wsByRel := make(map[string]*item, len(wsFiles))
	for _, it := range wsFiles {
		wsByRel[it.rel] = it
	}
	all := make([]*item, 0, len(shelfApps)+len(wsFiles)+len(sbFiles))
	for _, app := range shelfApps {
		if app.record != nil && app.record.WorkspacePath != "" {
			if ws := wsByRel[app.WorkspacePath]; ws != nil && !ws.proven && s.recordProves(app.record, ws.rel) {
				ws.proven = true
				ws.Kind = KindApp
				ws.naturalID = app.naturalID
				ws.Slug = app.Slug
				if app.record.Title != "" {
					ws.Title = app.record.Title
				}
				if !app.record.CreatedAt.IsZero() {
					ws.CreatedAt = app.record.CreatedAt
				}
				if !app.record.UpdatedAt.IsZero() {
					ws.UpdatedAt = app.record.UpdatedAt
				}
				ws.shelfBase = app.shelfBase
				ws.shelfDir = app.shelfDir
				ws.record = app.record
				continue
			}
		}
		all = append(all, app)
	}
	all = append(all, wsFiles...)
	all = append(all, sbFiles...)

	assignIDs(all)

	snap := &snapshot{items: all, byID: make(map[string]*item, len(all))}
	for _, it := range all {
		snap.byID[it.AppID] = it
	}
	listOrder := make([]*item, len(all))
	copy(listOrder, all)
	for _, it := range listOrder {
		if it.Kind == KindApp { // titles from records
			it.lowTitle = strings.ToLower(it.Title)
		}
	}
	slices.SortFunc(listOrder, func(a, b *item) int {
		if a.Kind != b.Kind {
			if a.Kind == KindApp {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.lowTitle, b.lowTitle); c != 0 {
			return c
		}
		if c := strings.Compare(a.Title, b.Title); c != 0 {
			return c
		}
		return strings.Compare(a.AppID, b.AppID)
	})
	snap.entries = make([]Entry, len(listOrder))
	for i, it := range listOrder {
		snap.entries[i] = it.Entry
	}

	s.mu.Lock()
	old := s.snap
	s.snap = snap
	s.mu.Unlock()
	if !sameEntries(old.entries, snap.entries) {
		s.notify()
	}
}

// folderApp is the folder's name when the folder is an app folder (its
// level owns folders and it holds a FolderEntry), else "".
func (ds *dirState) folderApp() string {
	if !ds.rs.ownsFolders(ds.level) {
		return ""
	}
	if f := ds.files[FolderEntry]; f == nil || f.bad {
		return ""
	}
	return path.Base(ds.rel)
}

// listedFiles are the files of a folder that are entries: all readable
// .html files, or only the FolderEntry of an app folder (a folder app is
// listed once).
func listedFiles(ds *dirState) map[string]*fileRec {
	if ds.folderApp() != "" {
		return map[string]*fileRec{FolderEntry: ds.files[FolderEntry]}
	}
	out := make(map[string]*fileRec, len(ds.files))
	for name, f := range ds.files {
		if !f.bad {
			out[name] = f
		}
	}
	return out
}

// fileItem returns a fresh item for a discovered file. The parts that depend
// only on the file are computed once per fileRec (which is reused while the
// file is unchanged) and copied.
func (s *Store) fileItem(ds *dirState, f *fileRec) *item {
	if f.tmpl == nil || f.tmpl.rs != ds.rs {
		t := &item{rs: ds.rs, rootPath: ds.rs.path, rel: relJoin(ds.rel, f.name)}
		t.FileName = f.name
		t.StoragePath = filepath.Join(ds.path, f.name)
		t.SizeBytes = f.size
		t.Title = titleOr(f.title, f.name)
		t.lowTitle = strings.ToLower(t.Title)
		t.Slug = SlugOf(f.name)
		if folder := ds.folderApp(); folder != "" && f.name == FolderEntry {
			// A folder app is named after its folder.
			t.folderRel = ds.rel
			t.Folder = ds.path
			t.Title = titleOr(f.title, folder)
			t.lowTitle = strings.ToLower(t.Title)
			t.Slug = SlugOf(folder)
		}
		t.UpdatedAt = f.mtime.UTC()
		t.CreatedAt = f.btime.UTC()
		if f.btime.IsZero() || f.btime.After(f.mtime) {
			t.CreatedAt = t.UpdatedAt
		}
		f.tmpl = t
	}
	it := new(item)
	*it = *f.tmpl
	return it
}

func sourceRank(s Source) int {
	switch s {
	case SourceWorkspace:
		return 0
	case SourceShelf:
		return 1
	default:
		return 2
	}
}

// priorityCmp is the id/lookup priority: apps first, then workspace, shelf,
// sandbox, then root, then path (for a sandbox, the path starts with the
// sandbox name).
func priorityCmp(a, b *item) int {
	if a.Kind != b.Kind {
		if a.Kind == KindApp {
			return -1
		}
		return 1
	}
	if c := sourceRank(a.Source) - sourceRank(b.Source); c != 0 {
		return c
	}
	if c := a.rs.order - b.rs.order; c != 0 {
		return c
	}
	return strings.Compare(a.rel, b.rel)
}

// assignIDs sorts items into priority order and gives each a unique id (see
// the package doc).
func assignIDs(items []*item) {
	slices.SortFunc(items, priorityCmp)
	reserved := make(map[string]bool, len(items))
	for _, it := range items {
		reserved[it.naturalID] = true
	}
	taken := make(map[string]bool, len(items))
	var dups []*item
	for _, it := range items {
		if taken[it.naturalID] {
			dups = append(dups, it)
			continue
		}
		taken[it.naturalID] = true
		it.AppID = it.naturalID
	}
	for _, it := range dups {
		for n := 2; ; n++ {
			id := it.naturalID + "-" + strconv.Itoa(n)
			if !taken[id] && !reserved[id] {
				taken[id] = true
				it.AppID = id
				break
			}
		}
	}
}

func sameEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.AppID != y.AppID || x.Slug != y.Slug || x.Title != y.Title || x.FileName != y.FileName ||
			x.Source != y.Source || x.Sandbox != y.Sandbox || x.StoragePath != y.StoragePath ||
			x.WorkspacePath != y.WorkspacePath || x.Folder != y.Folder || x.SizeBytes != y.SizeBytes || x.Kind != y.Kind ||
			!x.CreatedAt.Equal(y.CreatedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
	}
	return true
}

// relOfWorkspaceRef turns a reference into a workspace-relative slash path
// when it can be one.
func relOfWorkspaceRef(ref string) (string, bool) {
	c, err := cleanRel(ref)
	if err != nil || !hasHTMLExt(path.Base(c)) {
		return "", false
	}
	return c, true
}
