package documents

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/voicebox/voicebox/backend/store"
)

// tempPage writes content to a file called name in a new folder, and returns the folder and the file.
func tempPage(t *testing.T, name, content string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestOpenAndRead(t *testing.T) {
	dir, page := tempPage(t, "calc.html", "<title>Calc</title>")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder.html"), 0o755)

	tab := NewTable()
	docs, errs := tab.Open(dir, []string{"calc.html", "notes.txt", "missing.html", "folder.html", page})
	if len(docs) != 2 || docs[0].ID != docs[1].ID {
		t.Fatalf("got docs %+v, want calc.html twice with one id", docs)
	}
	if len(errs) != 3 || !errors.Is(errs[0], ErrNotHTML) || !errors.Is(errs[1], fs.ErrNotExist) || !errors.Is(errs[2], store.ErrNotAppFolder) {
		t.Fatalf("got errors %v, want not-html, not-exist, not-an-app-folder", errs)
	}
	if got := tab.List(); len(got) != 1 || got[0].Path != page || got[0].Content != "" || got[0].Title != "Calc" {
		t.Fatalf("List() = %+v, want one entry for %s, titled Calc, without content", got, page)
	}
	os.WriteFile(page, []byte("<title>Calc 2</title>"), 0o644)
	d, err := tab.Read(docs[0].ID)
	if err != nil || d.Content != "<title>Calc 2</title>" {
		t.Fatalf("Read = %+v, %v; want the current content", d, err)
	}
	if _, err := tab.Read("doc_nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read(unknown) error = %v, want ErrNotFound", err)
	}
}

func TestOpenRefusesLargeFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.html")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, errs := NewTable().Open(dir, []string{big}); len(errs) != 1 || !errors.Is(errs[0], ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", errs)
	}
}

// A folder opened (named on the command line, dropped, picked with File › Open Folder as App…) is its
// index.html marked Folder: the person made it an app. The same index.html opened as a file is not marked,
// until its folder is opened too; a folder with no index.html is refused.
func TestOpenFolderAsApp(t *testing.T) {
	dir, page := tempPage(t, "index.html", "<title>Game</title>")
	os.WriteFile(filepath.Join(dir, "game.js"), []byte("1"), 0o644)
	empty := t.TempDir()
	tab := NewTable()
	docs, errs := tab.Open("", []string{page})
	if len(errs) != 0 || len(docs) != 1 || docs[0].Folder {
		t.Fatalf("the page opened as a file: %+v %v", docs, errs)
	}
	again, errs := tab.Open(filepath.Dir(dir), []string{filepath.Base(dir), empty})
	if len(again) != 1 || again[0].ID != docs[0].ID || !again[0].Folder || again[0].Path != page || again[0].Title != "Game" {
		t.Fatalf("the folder opened: %+v", again)
	}
	if len(errs) != 1 || !errors.Is(errs[0], store.ErrNotAppFolder) {
		t.Fatalf("a folder without index.html: %v", errs)
	}
	if d, err := tab.Read(docs[0].ID); err != nil || !d.Folder {
		t.Fatalf("Read = %+v, %v: want the folder mark kept", d, err)
	}
	if d, _ := tab.Open("", []string{page}); !d[0].Folder {
		t.Fatalf("the page opened as a file again lost the mark: %+v", d)
	}
}
