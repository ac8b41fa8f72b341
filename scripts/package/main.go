// Command package builds Voicebox's Linux packages from the two built programs (voicebox and the window's
// voicebox-desktop beside it: backend/programs) and the files under build/linux:
// a .deb and an .rpm, written by nfpm. `make package` runs it; tests/packaging checks what it writes.
//
// It is a module of its own so that nfpm (and the newer golang.org/x modules it needs) never enters the app's
// build graph: `go list -deps .` at the repository root does not change.
//
//	go -C scripts/package run . -bin build/bin/voicebox -version "$(git describe --always --dirty)" -out build
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/voicebox/voicebox/backend/programs"
)

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "the voicebox program to package, voicebox-desktop beside it (both stripped, as make build builds them)")
	flag.StringVar(&o.describe, "version", "", "the binary's version as it prints it (git describe --always --dirty)")
	flag.StringVar(&o.out, "out", "", "folder the packages are written to")
	flag.StringVar(&o.root, "root", "../..", "the repository's root")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "GOARCH of the binary")
	flag.Parse()
	if o.bin == "" || o.describe == "" || o.out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	paths, err := build(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "package: %v\n", err)
		os.Exit(1)
	}
	for _, p := range paths {
		fmt.Println(p)
	}
}

type options struct {
	bin, describe, out, root, arch string
}

// build stages the generated files (icons, man page), then writes one package per format into o.out and
// returns their paths.
func build(o options) ([]string, error) {
	meta, err := readMetainfo(filepath.Join(o.root, "build", "linux"))
	if err != nil {
		return nil, err
	}
	window, err := programs.WindowPath(o.bin)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{o.bin, window} {
		if err := checkStripped(p); err != nil {
			return nil, err
		}
	}
	rel, err := releaseOf(o.root, o.describe)
	if err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp("", "voicebox-package-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	icons, err := writeIcons(filepath.Join(o.root, "build", "appicon.png"), stage)
	if err != nil {
		return nil, err
	}
	man := filepath.Join(stage, binaryName+".1.gz")
	if err := writeManPage(man, rel); err != nil {
		return nil, err
	}
	layout := layout{bin: o.bin, window: window, meta: meta, icons: icons, man: man}
	maintainer, err := maintainerOf(o.root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range formats {
		p, err := writePackage(f, info(f, o.arch, rel, maintainer, layout), o.out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		written = append(written, p)
	}
	return written, nil
}

// errNotStripped: the package ships the binary as built, so the build must strip it (`make build` passes
// -ldflags "-s -w").
var errNotStripped = errors.New("binary is not stripped (build it with -ldflags \"-s -w\", as make build does)")
