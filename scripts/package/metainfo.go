package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// metainfo is what the package takes from the AppStream file in build/linux: its id names the desktop entry
// and the metainfo file, and its summary and description become the package's, so the three never drift.
type metainfo struct {
	path, desktop string   // files in build/linux
	ID            string   `xml:"id"`
	Summary       string   `xml:"summary"`
	Paragraphs    []string `xml:"description>p"`
	Binaries      []string `xml:"provides>binary"`
}

// readMetainfo finds the one *.metainfo.xml in dir and the desktop entry named by its id.
func readMetainfo(dir string) (metainfo, error) {
	found, err := filepath.Glob(filepath.Join(dir, "*.metainfo.xml"))
	if err != nil || len(found) != 1 {
		return metainfo{}, fmt.Errorf("want exactly one *.metainfo.xml in %s, found %d", dir, len(found))
	}
	raw, err := os.ReadFile(found[0])
	if err != nil {
		return metainfo{}, err
	}
	var m metainfo
	if err := xml.Unmarshal(raw, &m); err != nil {
		return metainfo{}, fmt.Errorf("%s: %w", found[0], err)
	}
	m.path = found[0]
	if filepath.Base(m.path) != m.ID+".metainfo.xml" {
		return metainfo{}, fmt.Errorf("%s: file name must be its id %q + .metainfo.xml", m.path, m.ID)
	}
	if len(m.Binaries) != 1 || m.Binaries[0] != binaryName {
		return metainfo{}, fmt.Errorf("%s: must provide the one binary %q", m.path, binaryName)
	}
	if m.Summary == "" || len(m.Paragraphs) == 0 {
		return metainfo{}, fmt.Errorf("%s: needs a summary and a description", m.path)
	}
	m.desktop = filepath.Join(dir, m.ID+".desktop")
	if _, err := os.Stat(m.desktop); err != nil {
		return metainfo{}, fmt.Errorf("the desktop entry must be named after the AppStream id: %w", err)
	}
	return m, nil
}

// description is the package's long description: the AppStream paragraphs, wrapped for a terminal. A .deb
// also puts the summary on its first line (Debian's synopsis); an .rpm has a Summary tag of its own.
func (m metainfo) description(withSynopsis bool) string {
	var parts []string
	for _, p := range m.Paragraphs {
		parts = append(parts, wrap(strings.Fields(p), 72))
	}
	d := strings.Join(parts, "\n\n")
	if withSynopsis {
		d = strings.TrimSpace(m.Summary) + "\n" + d
	}
	return d
}

// wrap fills lines of at most width columns with the words.
func wrap(words []string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range words {
		if col > 0 && col+1+len(w) > width {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// maintainerOf is the author recorded in wails.json, the project's one statement of who makes it.
func maintainerOf(root string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "wails.json"))
	if err != nil {
		return "", err
	}
	var w struct {
		Author struct{ Name, Email string }
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return "", fmt.Errorf("wails.json: %w", err)
	}
	if w.Author.Name == "" || w.Author.Email == "" {
		return "", fmt.Errorf("wails.json: author needs a name and an email (the package's Maintainer)")
	}
	return fmt.Sprintf("%s <%s>", w.Author.Name, w.Author.Email), nil
}
