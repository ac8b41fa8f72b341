package author

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/store"
)

func page(n int) []byte {
	return []byte(fmt.Sprintf("<!doctype html><html><body><p>version %d</p></body></html>\n", n))
}

func openTest(t *testing.T) (*Workshop, string) {
	t.Helper()
	data := t.TempDir()
	w, err := OpenWorkshop(data)
	if err != nil {
		t.Fatal(err)
	}
	return w, data
}

func mustWrite(t *testing.T, w *Workshop, slug string, html []byte, v VersionInfo) int {
	t.Helper()
	n, err := w.Write(slug, html, v)
	if err != nil {
		t.Fatalf("Write(%s): %v", slug, err)
	}
	return n
}

func onDisk(t *testing.T, w *Workshop, slug string) []byte {
	t.Helper()
	b, err := os.ReadFile(w.Path(slug))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// summary is the versions list as "number:source:from", newest first.
func summary(t *testing.T, w *Workshop, slug string) []string {
	t.Helper()
	vs, err := w.Versions(slug)
	if err != nil {
		t.Fatalf("Versions: %v", err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%d:%s:%d", v.Number, v.Source, v.From))
	}
	return out
}

func TestWorkshopWriteRevertRestore(t *testing.T) {
	w, data := openTest(t)
	slug, err := w.NewSlug("Chess clock")
	if err != nil || slug != "chess-clock" {
		t.Fatalf("NewSlug = %q, %v", slug, err)
	}
	if want := filepath.Join(data, SandboxDir, "chess-clock", "index.html"); w.Path(slug) != want {
		t.Fatalf("Path = %q, want %q", w.Path(slug), want)
	}
	if vs, err := w.Versions(slug); err != nil || len(vs) != 0 {
		t.Fatalf("a reserved slug has versions %v, %v", vs, err)
	}
	for i, src := range []string{SourceCreate, SourceEdit, SourceEdit} {
		n := mustWrite(t, w, slug, page(i+1), VersionInfo{Source: src, Request: fmt.Sprintf("request %d", i+1), Model: "gpt-test"})
		if n != i+1 {
			t.Fatalf("write %d got number %d", i+1, n)
		}
	}
	if got := onDisk(t, w, slug); !bytes.Equal(got, page(3)) {
		t.Fatalf("page = %q", got)
	}
	vs, _ := w.Versions(slug)
	if len(vs) != 3 || vs[0].Number != 3 || vs[0].Request != "request 3" || vs[0].Model != "gpt-test" || vs[0].Bytes != len(page(3)) || vs[0].Time.IsZero() || len(vs[0].SHA256) != 64 {
		t.Fatalf("versions = %+v", vs)
	}
	if b, err := w.Read(slug, 2); err != nil || !bytes.Equal(b, page(2)) {
		t.Fatalf("Read(2) = %q, %v", b, err)
	}
	if b, err := w.Current(slug); err != nil || !bytes.Equal(b, page(3)) {
		t.Fatalf("Current = %q, %v", b, err)
	}

	// Undo walks back in time: 3 → 2 → 1, each a new version, then nothing earlier.
	for i, want := range []int{2, 1} {
		n, err := w.Revert(slug)
		if err != nil || n != 4+i {
			t.Fatalf("Revert = %d, %v", n, err)
		}
		if got := onDisk(t, w, slug); !bytes.Equal(got, page(want)) {
			t.Fatalf("after revert %d the page is %q, want version %d", i+1, got, want)
		}
	}
	if _, err := w.Revert(slug); !errors.Is(err, ErrNoEarlierVersion) {
		t.Fatalf("a third Revert: %v, want ErrNoEarlierVersion", err)
	}
	if got, want := summary(t, w, slug), []string{"5:revert:1", "4:revert:2", "3:edit:0", "2:edit:0", "1:create:0"}; !slices.Equal(got, want) {
		t.Fatalf("versions = %v, want %v", got, want)
	}
	// A revert is undone by Restore; a revert after a restore goes back to the page before it.
	if n, err := w.Restore(slug, 3); err != nil || n != 6 || !bytes.Equal(onDisk(t, w, slug), page(3)) {
		t.Fatalf("Restore(3) = %d, %v", n, err)
	}
	if n, err := w.Restore(slug, 3); err != nil || n != 3 {
		t.Fatalf("Restore of the current content = %d, %v; want 3 and nothing written", n, err)
	}
	if n, err := w.Revert(slug); err != nil || n != 7 || !bytes.Equal(onDisk(t, w, slug), page(1)) {
		t.Fatalf("Revert after Restore = %d, %v, page %q", n, err, onDisk(t, w, slug))
	}
	if _, err := w.Restore(slug, 99); !errors.Is(err, ErrNoVersion) {
		t.Fatalf("Restore(99): %v", err)
	}
	if _, err := w.Read(slug, 99); !errors.Is(err, ErrNoVersion) {
		t.Fatalf("Read(99): %v", err)
	}
	// An edit after undoing is undone back to the page it changed.
	mustWrite(t, w, slug, page(8), VersionInfo{Source: SourceEdit})
	if n, err := w.Revert(slug); err != nil || n != 9 || !bytes.Equal(onDisk(t, w, slug), page(1)) {
		t.Fatalf("Revert after an edit = %d, %v", n, err)
	}

	// Versions live outside the home: the home holds the page alone.
	entries, _ := os.ReadDir(filepath.Join(data, SandboxDir, slug))
	if len(entries) != 1 || entries[0].Name() != "index.html" {
		t.Fatalf("the home holds %v", entries)
	}
}

func TestWorkshopRevertSkipsSameContent(t *testing.T) {
	w, _ := openTest(t)
	mustWrite(t, w, "a", page(1), VersionInfo{Source: SourceCreate})
	mustWrite(t, w, "a", page(2), VersionInfo{Source: SourceEdit})
	mustWrite(t, w, "a", page(2), VersionInfo{Source: SourceEdit}) // a rewrite that changed nothing
	if _, err := w.Revert("a"); err != nil || !bytes.Equal(onDisk(t, w, "a"), page(1)) {
		t.Fatalf("Revert = %v, page %q; want version 1's content", err, onDisk(t, w, "a"))
	}
	w2, _ := openTest(t)
	mustWrite(t, w2, "b", page(1), VersionInfo{Source: SourceCreate})
	if _, err := w2.Revert("b"); !errors.Is(err, ErrNoEarlierVersion) {
		t.Fatalf("Revert of a single version: %v", err)
	}
	if _, err := w2.Revert("never-written"); !errors.Is(err, ErrNoEarlierVersion) {
		t.Fatalf("Revert of an unknown app: %v", err)
	}
}

func TestWorkshopBound(t *testing.T) {
	w, data := openTest(t)
	for i := 1; i <= MaxVersions+5; i++ {
		mustWrite(t, w, "clock", page(i), VersionInfo{Source: SourceEdit})
	}
	vs, err := w.Versions("clock")
	if err != nil || len(vs) != MaxVersions || vs[0].Number != MaxVersions+5 || vs[len(vs)-1].Number != 6 {
		t.Fatalf("versions: %d, newest %d, oldest %d, %v", len(vs), vs[0].Number, vs[len(vs)-1].Number, err)
	}
	if _, err := w.Read("clock", 5); !errors.Is(err, ErrNoVersion) {
		t.Fatalf("Read of a dropped version: %v", err)
	}
	if b, err := w.Read("clock", 6); err != nil || !bytes.Equal(b, page(6)) {
		t.Fatalf("Read of the oldest kept version = %q, %v", b, err)
	}
	files, _ := os.ReadDir(filepath.Join(data, "versions", "clock"))
	if len(files) != MaxVersions+1 { // the kept versions and index.json
		t.Fatalf("the version folder holds %d files, want %d", len(files), MaxVersions+1)
	}
}

func TestWorkshopNewSlug(t *testing.T) {
	w, data := openTest(t)
	var got []string
	for _, title := range []string{"Chess clock", "chess  clock!", "Chess clock", "♟", "♟"} {
		s, err := w.NewSlug(title)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []string{"chess-clock", "chess-clock-2", "chess-clock-3", store.SlugOf("♟"), store.SlugOf("♟") + "-2"}
	if !slices.Equal(got, want) {
		t.Fatalf("slugs = %v, want %v", got, want)
	}
	// A slug whose home is gone but whose versions remain stays taken; so does a file of that name.
	if err := os.MkdirAll(filepath.Join(data, "versions", "tip-calculator"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, SandboxDir, "timer"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := w.NewSlug("Tip calculator"); s != "tip-calculator-2" {
		t.Fatalf("NewSlug over old versions = %q", s)
	}
	if s, _ := w.NewSlug("Timer"); s != "timer-2" {
		t.Fatalf("NewSlug over a file = %q", s)
	}
}

func TestWorkshopNewSlugRace(t *testing.T) {
	data := t.TempDir()
	// Two workshops on one folder stand for two processes: their mutexes differ, the disk decides.
	var ws [2]*Workshop
	for i := range ws {
		w, err := OpenWorkshop(data)
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	const n = 16
	slugs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := ws[i%2].NewSlug("Chess clock")
			if err != nil {
				t.Error(err)
			}
			slugs[i] = s
		}()
	}
	wg.Wait()
	slices.Sort(slugs)
	if len(slices.Compact(slices.Clone(slugs))) != n {
		t.Fatalf("slugs collide: %v", slugs)
	}
}

func TestWorkshopConcurrentWrites(t *testing.T) {
	w, _ := openTest(t)
	const n = 8
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.Write("clock", page(i), VersionInfo{Source: SourceEdit}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	vs, err := w.Versions("clock")
	if err != nil || len(vs) != n {
		t.Fatalf("%d versions, %v; want %d", len(vs), err, n)
	}
	seen := map[string]bool{}
	for _, v := range vs {
		b, err := w.Read("clock", v.Number)
		if err != nil {
			t.Fatal(err)
		}
		seen[string(b)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct contents among the versions, want %d", len(seen), n)
	}
	if got := onDisk(t, w, "clock"); string(got) != func() string { b, _ := w.Read("clock", vs[0].Number); return string(b) }() {
		t.Fatal("the page is not the newest version")
	}
}

func TestWorkshopReopenKeepsVersions(t *testing.T) {
	w, data := openTest(t)
	mustWrite(t, w, "clock", page(1), VersionInfo{Source: SourceCreate, Request: "a chess clock"})
	n := mustWrite(t, w, "clock", page(2), VersionInfo{Source: SourceEdit, Request: "bigger buttons"})
	if err := w.Mark("clock", n, OutcomeCheckFailed, "no tool registered"); err != nil {
		t.Fatal(err)
	}
	before, _ := w.Versions("clock")
	w2, err := OpenWorkshop(data)
	if err != nil {
		t.Fatal(err)
	}
	after, err := w2.Versions("clock")
	if err != nil || !reflect.DeepEqual(before, after) {
		t.Fatalf("after reopening: %+v, %v\nbefore: %+v", after, err, before)
	}
	if after[0].Outcome != OutcomeCheckFailed || after[0].Reason != "no tool registered" || after[1].Outcome != "" {
		t.Fatalf("outcomes: %+v", after)
	}
	if _, err := w2.Revert("clock"); err != nil || !bytes.Equal(onDisk(t, w2, "clock"), page(1)) {
		t.Fatalf("Revert after reopening: %v", err)
	}
	if err := w2.Mark("clock", 1, "great", ""); err == nil {
		t.Fatal("Mark accepted an unknown outcome")
	}
	if err := w2.Mark("clock", 42, OutcomeOK, ""); !errors.Is(err, ErrNoVersion) {
		t.Fatalf("Mark of an unknown version: %v", err)
	}
}

func TestWorkshopKeepsAPageChangedOutside(t *testing.T) {
	w, _ := openTest(t)
	mustWrite(t, w, "clock", page(1), VersionInfo{Source: SourceCreate})
	byHand := []byte("<!doctype html><html><body>edited by hand</body></html>\n")
	if err := os.WriteFile(w.Path("clock"), byHand, 0o644); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, w, "clock", page(3), VersionInfo{Source: SourceEdit})
	if got, want := summary(t, w, "clock"), []string{"3:edit:0", "2:found:0", "1:create:0"}; !slices.Equal(got, want) {
		t.Fatalf("versions = %v, want %v", got, want)
	}
	if b, _ := w.Read("clock", 2); !bytes.Equal(b, byHand) {
		t.Fatalf("found version = %q", b)
	}
	if _, err := w.Revert("clock"); err != nil || !bytes.Equal(onDisk(t, w, "clock"), byHand) {
		t.Fatalf("Revert = %v; page %q", err, onDisk(t, w, "clock"))
	}
	// A page put in a home by hand, with no versions yet, is kept as version 1 before the first write.
	if err := os.MkdirAll(filepath.Dir(w.Path("mine")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.Path("mine"), byHand, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := mustWrite(t, w, "mine", page(1), VersionInfo{Source: SourceCopy}); n != 2 {
		t.Fatalf("write over a page found by hand got number %d, want 2", n)
	}
}

func TestWorkshopRefusesBadSlugsAndInput(t *testing.T) {
	w, data := openTest(t)
	for _, s := range []string{"", "..", ".", "../x", "a/b", `a\b`, "A", "-a", "a.b", "a b", strings.Repeat("a", 81), "café"} {
		if _, err := w.Write(s, page(1), VersionInfo{Source: SourceCreate}); !errors.Is(err, ErrBadSlug) {
			t.Errorf("Write(%q): %v, want ErrBadSlug", s, err)
		}
		if w.Path(s) != "" {
			t.Errorf("Path(%q) = %q", s, w.Path(s))
		}
		if _, err := w.Versions(s); !errors.Is(err, ErrBadSlug) {
			t.Errorf("Versions(%q): %v", s, err)
		}
	}
	if _, err := w.Write("ok", page(1), VersionInfo{Source: SourceRevert}); err == nil {
		t.Error("Write accepted the source revert, which only Revert writes")
	}
	if _, err := w.Write("ok", make([]byte, MaxPageBytes+1), VersionInfo{Source: SourceWrite}); err == nil {
		t.Error("Write accepted a page over MaxPageBytes")
	}
	long := strings.Repeat("é", MaxRequestRunes+10)
	mustWrite(t, w, "ok", page(1), VersionInfo{Source: SourceCreate, Request: long, Model: "m\xff"})
	vs, _ := w.Versions("ok")
	if r := []rune(vs[0].Request); len(r) != MaxRequestRunes+1 || r[len(r)-1] != '…' || vs[0].Model != "m\uFFFD" {
		t.Errorf("request kept with %d characters, model %q", len(r), vs[0].Model)
	}
	// Nothing was written anywhere but the good slug's two folders.
	for _, dir := range []string{SandboxDir, "versions"} {
		entries, _ := os.ReadDir(filepath.Join(data, dir))
		if len(entries) != 1 || entries[0].Name() != "ok" {
			t.Errorf("%s holds %v", dir, entries)
		}
	}
}

func TestWorkshopRefusesLinks(t *testing.T) {
	w, data := openTest(t)
	outside := t.TempDir()
	evilHome := filepath.Join(data, SandboxDir, "evil")
	if err := os.Symlink(outside, evilHome); err != nil {
		t.Fatal(err)
	}
	// Control: the link does lead outside; a plain write through it lands there.
	if err := os.WriteFile(filepath.Join(evilHome, "probe"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "probe")); err != nil {
		t.Fatalf("control: the link does not lead outside: %v", err)
	}
	os.Remove(filepath.Join(outside, "probe"))

	if _, err := w.Write("evil", page(1), VersionInfo{Source: SourceCreate}); err == nil {
		t.Fatal("Write through a home linked outside succeeded")
	}
	if _, err := w.Current("evil"); err == nil {
		t.Fatal("Current read through a home linked outside")
	}
	// The same with a relative link (os.Root refuses absolute ones by themselves).
	rel, err := filepath.Rel(filepath.Join(data, SandboxDir), outside)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, filepath.Join(data, SandboxDir, "evil2")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write("evil2", page(1), VersionInfo{Source: SourceCreate}); err == nil {
		t.Fatal("Write through a home linked outside (relative) succeeded")
	}
	// A link to another app's home, inside the root (relative: os.Root follows those), is refused too.
	mustWrite(t, w, "real", page(1), VersionInfo{Source: SourceCreate})
	if err := os.Symlink("real", filepath.Join(data, SandboxDir, "alias")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write("alias", page(2), VersionInfo{Source: SourceEdit}); err == nil || !bytes.Equal(onDisk(t, w, "real"), page(1)) {
		t.Fatalf("Write through a home linked to another app: %v", err)
	}
	// A version folder linked outside.
	if err := os.MkdirAll(filepath.Join(data, SandboxDir, "vers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(data, "versions", "vers")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write("vers", page(1), VersionInfo{Source: SourceCreate}); err == nil {
		t.Fatal("Write with its version folder linked outside succeeded")
	}
	// A page linked to a file outside: refused, the file untouched.
	secret := filepath.Join(outside, "secret.html")
	if err := os.WriteFile(secret, []byte("the person's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	relSecret, err := filepath.Rel(filepath.Dir(w.Path("real")), secret)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(w.Path("real"))
	if err := os.Symlink(relSecret, w.Path("real")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write("real", page(2), VersionInfo{Source: SourceEdit}); err == nil {
		t.Fatal("Write over a page linked outside succeeded")
	}
	if b, _ := os.ReadFile(secret); string(b) != "the person's file" {
		t.Fatalf("the file outside changed: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("something was written outside: %v", entries)
	}
	if _, ok := w.Owns(filepath.Join(evilHome, "index.html")); ok {
		t.Fatal("Owns a page in a linked home")
	}
}

func TestWorkshopOwns(t *testing.T) {
	w, data := openTest(t)
	mustWrite(t, w, "clock", page(1), VersionInfo{Source: SourceCreate})
	if err := os.MkdirAll(filepath.Join(data, SandboxDir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, SandboxDir, "mine", "index.html"), page(1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		slug string
	}{
		{w.Path("clock"), "clock"},
		{filepath.Join(data, SandboxDir, "x", "..", "clock", "index.html"), "clock"},
		{filepath.Join(data, SandboxDir, "mine", "index.html"), ""}, // put there by hand: no versions
		{filepath.Join(data, SandboxDir, "clock", "other.html"), ""},
		{filepath.Join(data, "versions", "clock", "0001.html"), ""},
		{filepath.Join(data, SandboxDir, "clock", "sub", "index.html"), ""},
		{filepath.Join(SandboxDir, "clock", "index.html"), ""}, // relative
		{filepath.Join(t.TempDir(), SandboxDir, "clock", "index.html"), ""},
	}
	for _, tc := range tests {
		slug, ok := w.Owns(tc.path)
		if slug != tc.slug || ok != (tc.slug != "") {
			t.Errorf("Owns(%q) = %q, %v; want %q", tc.path, slug, ok, tc.slug)
		}
	}
	// Through a link to the data folder, too.
	link := filepath.Join(t.TempDir(), "data")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	wl, err := OpenWorkshop(link)
	if err != nil {
		t.Fatal(err)
	}
	if slug, ok := wl.Owns(w.Path("clock")); !ok || slug != "clock" {
		t.Errorf("Owns through the resolved data folder = %q, %v", slug, ok)
	}
}

func TestWorkshopIndexIsWrittenAtomically(t *testing.T) {
	w, data := openTest(t)
	mustWrite(t, w, "clock", page(1), VersionInfo{Source: SourceCreate})
	mustWrite(t, w, "clock", page(2), VersionInfo{Source: SourceEdit})
	before, _ := w.Versions("clock")
	vdir := filepath.Join(data, "versions", "clock")

	// A write of the list cut short (a crash, a full disk): half of it reaches the temporary file.
	cutIndex := func(r *os.Root, name string, b []byte) error {
		if name != indexName {
			return atomicfile.WriteIn(r, name, b, 0o644)
		}
		tmp, _ := atomicfile.TempName(name)
		r.WriteFile(tmp, b[:len(b)/2], 0o644)
		return errors.New("disk full")
	}
	defer func(orig func(*os.Root, string, []byte) error) { writeAtomic = orig }(writeAtomic)
	writeAtomic = cutIndex
	if _, err := w.Write("clock", page(3), VersionInfo{Source: SourceEdit}); err == nil {
		t.Fatal("a write whose list was cut short reported success")
	}
	if after, err := w.Versions("clock"); err != nil || !reflect.DeepEqual(before, after) {
		t.Fatalf("the old list is not readable after a torn write: %v, %v", after, err)
	}
	if !bytes.Equal(onDisk(t, w, "clock"), page(2)) {
		t.Fatal("the page changed although its version was not recorded")
	}
	// The next write clears the leftovers (the torn temporary file, the unlisted version file).
	writeAtomic = func(r *os.Root, name string, b []byte) error { return atomicfile.WriteIn(r, name, b, 0o644) }
	if n := mustWrite(t, w, "clock", page(3), VersionInfo{Source: SourceEdit}); n != 3 {
		t.Fatalf("number %d after a torn write, want 3", n)
	}
	files, _ := os.ReadDir(vdir)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	if !slices.Equal(names, []string{"0001.html", "0002.html", "0003.html", "index.json"}) {
		t.Fatalf("version folder = %v", names)
	}

	// Control: written in place, the same cut leaves a list nobody can read.
	writeAtomic = func(r *os.Root, name string, b []byte) error {
		if name == indexName {
			r.WriteFile(name, b[:len(b)/2], 0o644)
			return errors.New("disk full")
		}
		return atomicfile.WriteIn(r, name, b, 0o644)
	}
	w.Write("clock", page(4), VersionInfo{Source: SourceEdit})
	if _, err := w.Versions("clock"); err == nil {
		t.Fatal("control: a list torn in place still reads, so this test could not tell")
	}
	// And a write refuses to replace a list it cannot read (it would lose the history).
	writeAtomic = func(r *os.Root, name string, b []byte) error { return atomicfile.WriteIn(r, name, b, 0o644) }
	if _, err := w.Write("clock", page(5), VersionInfo{Source: SourceEdit}); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("Write over an unreadable list: %v", err)
	}
}

func TestWorkshopAppsAreStorePages(t *testing.T) {
	w, data := openTest(t)
	slug, _ := w.NewSlug("Chess clock")
	clock := []byte(clockPage)
	mustWrite(t, w, slug, clock, VersionInfo{Source: SourceCreate})
	mustWrite(t, w, slug, bytes.Replace(clock, []byte("1rem"), []byte("2rem"), 1), VersionInfo{Source: SourceEdit})
	s, err := store.Open(store.Roots{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries := s.List()
	if len(entries) != 1 {
		t.Fatalf("the store lists %d entries, want the written app alone (no version): %+v", len(entries), entries)
	}
	e := entries[0]
	if e.StoragePath != w.Path(slug) || e.Kind != store.KindPage || e.Source != store.SourceSandbox || e.Sandbox != slug || e.Title != "Chess clock" {
		t.Fatalf("entry = %+v", e)
	}
	if got, ok := w.Owns(e.StoragePath); !ok || got != slug {
		t.Fatalf("Owns(the store's path) = %q, %v", got, ok)
	}
}
