package store

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
)

func hasHTMLExt(name string) bool {
	return len(name) > 5 && strings.EqualFold(name[len(name)-5:], ".html")
}

func trimHTMLExt(name string) string {
	if hasHTMLExt(name) {
		return name[:len(name)-5]
	}
	return name
}

func relJoin(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// isUnder reports whether p is root or inside it.
func isUnder(p, root string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// errPathEscapes recognises os.Root's refusal to leave its root.
func isEscape(err error) bool {
	var pe *fs.PathError
	for err != nil {
		if errors.As(err, &pe) {
			if pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
				return true
			}
			err = pe.Err
			continue
		}
		return false
	}
	return false
}

func containsNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// cleanRel validates a slash-or-OS relative path: no NUL, not absolute, no
// ".." element, no empty result. It returns the slash-cleaned form.
func cleanRel(p string) (string, error) {
	if p == "" || containsNUL(p) {
		return "", errInvalid("empty name or NUL byte")
	}
	sp := strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(sp, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", errOutside(p)
	}
	for _, el := range strings.Split(sp, "/") {
		if el == ".." {
			return "", errOutside(p)
		}
	}
	c := path.Clean(sp)
	if c == "." || c == "" {
		return "", errInvalid("empty name")
	}
	return c, nil
}

func statEntry(de fs.DirEntry) (int64, time.Time, error) {
	fi, err := de.Info()
	if err != nil {
		return 0, time.Time{}, err
	}
	return fi.Size(), fi.ModTime(), nil
}
