package documents

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
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
	if len(errs) != 3 || !errors.Is(errs[0], ErrNotHTML) || !errors.Is(errs[1], fs.ErrNotExist) || !errors.Is(errs[2], ErrNotHTML) {
		t.Fatalf("got errors %v, want not-html, not-exist, not-html", errs)
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
