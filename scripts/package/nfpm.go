package main

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	"github.com/goreleaser/nfpm/v2/rpm"

	"github.com/voicebox/voicebox/backend/programs"
)

const (
	packageName = "voicebox"
	binaryName  = programs.Front
)

// windowDest is where the window's program goes: /usr/lib/voicebox, where voicebox looks for it
// (backend/programs).
const windowDest = "/usr/lib/voicebox/" + programs.Window

// format is one kind of package and what differs between them: the names of the runtime libraries.
type format struct {
	name     string
	packager nfpm.Packager
	// depends are the runtime packages of WebKitGTK 4.1 and GTK 3 that the window's program links; never -dev.
	depends []string
	// synopsis: the description's first line is the summary (Debian); an rpm has a Summary tag instead.
	synopsis bool
}

var formats = []format{
	{name: "deb", packager: deb.Default, depends: []string{"libwebkit2gtk-4.1-0", "libgtk-3-0"}, synopsis: true},
	// Fedora's names for the same libraries.
	{name: "rpm", packager: rpm.DefaultRPM, depends: []string{"webkit2gtk4.1", "gtk3"}},
}

// layout is what goes into the package, from where.
type layout struct {
	bin    string // voicebox (cmd/voicebox)
	window string // voicebox-desktop, beside it
	meta   metainfo
	icons  map[int]string
	man    string
}

// contents places every file where a desktop looks for it. Nothing else is installed: in particular no
// mimeapps.list, so "Open with Voicebox" is offered for HTML without Voicebox becoming its default handler.
func (l layout) contents(mtime time.Time) files.Contents {
	file := func(src, dst string, mode os.FileMode) *files.Content {
		return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{
			Owner: "root", Group: "root", Mode: mode, MTime: mtime,
		}}
	}
	c := files.Contents{
		file(l.bin, "/usr/bin/"+binaryName, 0o755),
		file(l.window, windowDest, 0o755),
		file(l.meta.desktop, "/usr/share/applications/"+l.meta.ID+".desktop", 0o644),
		file(l.meta.path, "/usr/share/metainfo/"+l.meta.ID+".metainfo.xml", 0o644),
		file(l.man, "/usr/share/man/man1/"+binaryName+".1.gz", 0o644),
	}
	for _, n := range iconSizes {
		c = append(c, file(l.icons[n], fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/%s.png", n, n, binaryName), 0o644))
	}
	return c
}

// info describes the package for one format.
func info(f format, arch string, rel release, maintainer string, l layout) *nfpm.Info {
	return nfpm.WithDefaults(&nfpm.Info{
		Name:          packageName,
		Arch:          arch,
		Version:       rel.version,
		VersionSchema: "none", // packageVersion already wrote a version dpkg and rpm order correctly
		Section:       "utils",
		Priority:      "optional",
		Maintainer:    maintainer,
		Vendor:        strings.SplitN(maintainer, " <", 2)[0],
		Description:   l.meta.description(f.synopsis),
		MTime:         rel.date,
		Overridables: nfpm.Overridables{
			Depends:  f.depends,
			Contents: l.contents(rel.date),
			RPM:      nfpm.RPM{Summary: l.meta.Summary, Group: "Applications/Internet"},
		},
	})
}

// writePackage writes the package under its conventional name in dir, through a temporary file so that a
// failed build never leaves half a package behind.
func writePackage(f format, in *nfpm.Info, dir string) (string, error) {
	name := filepath.Join(dir, f.packager.ConventionalFileName(in))
	tmp, err := os.CreateTemp(dir, ".package-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if err := f.packager.Package(in, tmp); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return name, os.Rename(tmp.Name(), name)
}

// checkStripped refuses a binary that still carries its symbol table or DWARF.
func checkStripped(bin string) error {
	ef, err := elf.Open(bin)
	if err != nil {
		return fmt.Errorf("%s: %w", bin, err)
	}
	defer ef.Close()
	for _, s := range ef.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			return fmt.Errorf("%s: %w (has %s)", bin, errNotStripped, s.Name)
		}
	}
	return nil
}
