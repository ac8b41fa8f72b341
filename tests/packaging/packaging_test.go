// Package packaging checks the Linux packages `make package` builds (scripts/package, with nfpm): what they
// install and how, what they depend on, that desktops and software centres accept their files
// (desktop-file-validate, appstreamcli), that the man page says what `voicebox --help` says, and that the
// packaged binary runs. It packages the binary `make test` already built (VOICEBOX_BIN) instead of building
// another. Each check also runs on a spoiled copy (a -dev dependency, a missing icon, a maintainer script, a
// broken entry, a usage line the man page lacks) that it must refuse, so a check that cannot fail fails here.
package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"errors"
	"fmt"
	"image/png"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/cli"
	"github.com/voicebox/voicebox/tests/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

const appID = "dev.voicebox.Voicebox" // the AppStream id, which names the desktop entry and the metainfo file

var (
	// debDepends are the runtime packages of the two libraries the binary is built against; never -dev.
	debDepends = []string{"libwebkit2gtk-4.1-0", "libgtk-3-0"}
	// rpmDepends are Fedora's names for the same two.
	rpmDepends = []string{"webkit2gtk4.1", "gtk3"}
	// linkedLibs are the sonames of those libraries, which the window's program must link and debDepends must
	// provide.
	linkedLibs = []string{"libwebkit2gtk-4.1.so.0", "libgtk-3.so.0"}
	iconSizes  = []int{16, 24, 32, 48, 64, 128, 256, 512}
)

// wantFiles is every regular file the packages install, with its mode. Nothing else: in particular no
// mimeapps.list or defaults.list, which would make Voicebox the default for HTML instead of one choice.
func wantFiles() map[string]os.FileMode {
	w := map[string]os.FileMode{
		"/usr/bin/voicebox":                              0o755,
		"/usr/lib/voicebox/voicebox-desktop":             0o755,
		"/usr/share/applications/" + appID + ".desktop":  0o644,
		"/usr/share/metainfo/" + appID + ".metainfo.xml": 0o644,
		"/usr/share/man/man1/voicebox.1.gz":              0o644,
	}
	for _, n := range iconSizes {
		w[fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/voicebox.png", n, n)] = 0o644
	}
	return w
}

// built is one run of the packager, shared by the subtests.
type built struct {
	bin      string // the binary that was packaged
	window   string // the window's program beside it
	describe string // its version, as it prints it after "voicebox "
	deb, rpm string
	root     string            // the .deb extracted (dpkg-deb -x)
	control  map[string]string // its control fields (dpkg-deb -e)
	scripts  []string          // the files of its control archive
	members  []*tar.Header     // its data archive, as dpkg would unpack it
}

func TestLinuxPackages(t *testing.T) {
	testbin.Need(t, map[string]string{"go": "golang (Go 1.26)", "dpkg-deb": "dpkg", "rpm": "rpm",
		"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream", "groff": "groff-base"})
	b := buildPackages(t)

	t.Run("control", func(t *testing.T) {
		if err := checkControl(b.control, b); err != nil {
			t.Fatal(err)
		}
		t.Logf("control:\n%s", run(t, "dpkg-deb", "-f", b.deb))
		for _, spoil := range []func(map[string]string){
			func(c map[string]string) { c["Depends"] += ", libwebkit2gtk-4.1-dev" },
			func(c map[string]string) { c["Depends"] = "libwebkit2gtk-4.1-0" },
			func(c map[string]string) { c["Architecture"] = "all" },
			func(c map[string]string) { delete(c, "Maintainer") },
		} {
			c := maps.Clone(b.control)
			spoil(c)
			if err := checkControl(c, b); err == nil {
				t.Errorf("control run: checkControl accepted %v", c)
			}
		}
		if err := checkScripts(b.scripts); err != nil {
			t.Fatal(err)
		}
		if checkScripts(append(slices.Clone(b.scripts), "postinst")) == nil {
			t.Error("control run: checkScripts accepted a postinst")
		}
	})

	t.Run("files", func(t *testing.T) {
		if err := checkMembers(b.members); err != nil {
			t.Fatal(err)
		}
		without48 := slices.DeleteFunc(slices.Clone(b.members), func(h *tar.Header) bool {
			return strings.Contains(h.Name, "/48x48/")
		})
		withDefault := append(slices.Clone(b.members), &tar.Header{Name: "./usr/share/applications/mimeapps.list",
			Typeflag: tar.TypeReg, Mode: 0o644})
		writable := slices.Clone(b.members)
		for i, h := range writable {
			if h.Name == "./usr/bin/voicebox" {
				c := *h
				c.Mode = 0o777
				writable[i] = &c
			}
		}
		for name, spoiled := range map[string][]*tar.Header{"no 48x48 icon": without48,
			"a mimeapps.list": withDefault, "a world-writable binary": writable} {
			if checkMembers(spoiled) == nil {
				t.Errorf("control run: checkMembers accepted the package with %s", name)
			}
		}
	})

	t.Run("binary", func(t *testing.T) {
		packaged := filepath.Join(b.root, "usr/bin/voicebox")
		if got, want := strings.TrimSpace(run(t, packaged, "--version")), "voicebox "+b.describe; got != want {
			t.Fatalf("packaged binary --version = %q, want %q", got, want)
		}
		if sum(t, packaged) != sum(t, b.bin) {
			t.Fatalf("the packaged binary is not %s", b.bin)
		}
		if err := checkFront(packaged); err != nil {
			t.Fatal(err)
		}
		window := filepath.Join(b.root, "usr/lib/voicebox/voicebox-desktop")
		if sum(t, window) != sum(t, b.window) {
			t.Fatalf("the packaged window's program is not %s", b.window)
		}
		if err := checkLinks(window); err != nil {
			t.Fatal(err)
		}
		if checkFront(window) == nil {
			t.Error("control run: checkFront accepted the window's program")
		}
	})

	// voicebox runs tool check in the window's program, which it finds in ../lib/voicebox: the package's
	// layout works as installed. Control: the same program alone cannot.
	t.Run("layout", func(t *testing.T) {
		packaged := filepath.Join(b.root, "usr/bin/voicebox")
		if out := run(t, packaged, "tool", "check", "--help"); !strings.Contains(out, "voicebox tool check") {
			t.Fatalf("voicebox tool check --help through the package's layout printed %q", out)
		}
		alone := filepath.Join(t.TempDir(), "voicebox")
		if err := os.WriteFile(alone, readFile(t, packaged), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(alone, "tool", "check", "--help").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the window's program is missing") {
			t.Fatalf("control run: voicebox without the window's program beside it ran tool check (%v): %s", err, out)
		}
	})

	t.Run("desktop entry", func(t *testing.T) {
		entry := filepath.Join(b.root, "usr/share/applications", appID+".desktop")
		if out, err := validate("desktop-file-validate", entry); err != nil || out != "" {
			t.Fatalf("desktop-file-validate: %v\n%s", err, out)
		}
		keys := desktopKeys(t, entry)
		for k, want := range map[string]string{"Type": "Application", "Exec": "voicebox %F", "Icon": "voicebox",
			"MimeType": "text/html;", "Terminal": "false"} {
			if keys[k] != want {
				t.Errorf("%s=%q, want %q", k, keys[k], want)
			}
		}
		broken := spoilFile(t, entry, "Type=Application\n", "")
		if _, err := validate("desktop-file-validate", broken); err == nil {
			t.Error("control run: desktop-file-validate accepted an entry without Type")
		}
	})

	t.Run("metainfo", func(t *testing.T) {
		meta := filepath.Join(b.root, "usr/share/metainfo", appID+".metainfo.xml")
		if out, err := validate("appstreamcli", "validate", "--no-net", meta); err != nil {
			t.Fatalf("appstreamcli validate: %v\n%s", err, out)
		}
		// The installed tree as a whole: the metainfo, the desktop entry it launches and its icon together.
		if out, err := validate("appstreamcli", "validate-tree", "--no-net", b.root); err != nil {
			t.Fatalf("appstreamcli validate-tree: %v\n%s", err, out)
		}
		notRDNS := spoilFile(t, meta, "<id>"+appID+"</id>", "<id>voicebox</id>")
		if _, err := validate("appstreamcli", "validate", "--no-net", notRDNS); err == nil {
			t.Error("control run: appstreamcli accepted an id that is not reverse-DNS")
		}
	})

	t.Run("icons", func(t *testing.T) {
		for _, n := range iconSizes {
			p := filepath.Join(b.root, fmt.Sprintf("usr/share/icons/hicolor/%dx%d/apps/voicebox.png", n, n))
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width != n || cfg.Height != n {
				t.Errorf("%s: %dx%d, %v; want a %dx%d PNG", p, cfg.Width, cfg.Height, err, n, n)
			}
		}
	})

	t.Run("man page", func(t *testing.T) {
		page := renderMan(t, filepath.Join(b.root, "usr/share/man/man1/voicebox.1.gz"))
		if err := coversUsage(page, cli.Usage); err != nil {
			t.Fatalf("%v\nthe page:\n%s", err, page)
		}
		if coversUsage(page, cli.Usage+"  voicebox frobnicate --all\n") == nil {
			t.Error("control run: coversUsage accepted a page without a usage line")
		}
	})

	t.Run("rpm", func(t *testing.T) {
		q := strings.Fields(run(t, "rpm", "-qp", "--qf", "%{NAME} %{VERSION} %{ARCH}", b.rpm))
		if want := []string{"voicebox", b.control["Version"], rpmArch()}; !slices.Equal(q, want) {
			t.Errorf("rpm name, version, arch = %q, want %q", q, want)
		}
		var requires []string // rpmlib(…) lines are rpm's own features, not packages
		for _, l := range strings.Split(strings.TrimSpace(run(t, "rpm", "-qp", "--requires", b.rpm)), "\n") {
			if !strings.HasPrefix(l, "rpmlib(") {
				requires = append(requires, l)
			}
		}
		if !sameSet(requires, rpmDepends) {
			t.Errorf("rpm requires %q, want exactly %q", requires, rpmDepends)
		}
		files := strings.Fields(run(t, "rpm", "-qlp", b.rpm))
		if want := slices.Sorted(maps.Keys(wantFiles())); !sameSet(files, want) {
			t.Errorf("rpm files %q, want %q", files, want)
		}
	})
}

// buildPackages runs the packager as `make package` does, on the binary `make test` built, and unpacks the
// .deb with dpkg's own tools.
func buildPackages(t *testing.T) *built {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	window, err := testbin.Window()
	if err != nil {
		t.Fatal(err)
	}
	b := &built{bin: bin, window: window}
	version := strings.TrimSpace(run(t, bin, "--version"))
	b.describe = strings.TrimPrefix(version, "voicebox ")
	root, err := testbin.Root()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("go", "-C", filepath.Join(root, "scripts", "package"), "run", ".",
		"-bin", bin, "-version", b.describe, "-out", out, "-root", root)
	paths, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/package: %v\n%s", err, stderrOf(err))
	}
	for _, p := range strings.Fields(string(paths)) {
		switch filepath.Ext(p) {
		case ".deb":
			b.deb = p
		case ".rpm":
			b.rpm = p
		}
	}
	if b.deb == "" || b.rpm == "" {
		t.Fatalf("scripts/package wrote %q, want a .deb and an .rpm", paths)
	}

	b.root = t.TempDir()
	run(t, "dpkg-deb", "-x", b.deb, b.root)
	ctl := t.TempDir()
	run(t, "dpkg-deb", "-e", b.deb, ctl)
	entries, err := os.ReadDir(ctl)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b.scripts = append(b.scripts, e.Name())
	}
	b.control = parseControl(t, filepath.Join(ctl, "control"))

	tr := tar.NewReader(strings.NewReader(run(t, "dpkg-deb", "--fsys-tarfile", b.deb)))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.members = append(b.members, h)
	}
	return b
}

// checkControl holds the .deb's control fields to what a Debian system expects of this package.
func checkControl(c map[string]string, b *built) error {
	if c["Package"] != "voicebox" {
		return fmt.Errorf("Package = %q", c["Package"])
	}
	v := c["Version"]
	if err := exec.Command("dpkg", "--validate-version", v).Run(); err != nil || v == "" {
		return fmt.Errorf("Version %q is not a valid dpkg version", v)
	}
	if commit := describedCommit(b.describe); !strings.Contains(v, commit) {
		return fmt.Errorf("Version %q does not name the commit %q the binary was built from", v, commit)
	}
	if want := "voicebox_" + v + "_" + c["Architecture"] + ".deb"; filepath.Base(b.deb) != want {
		return fmt.Errorf("file name %s, want %s", filepath.Base(b.deb), want)
	}
	if arch, _ := exec.Command("dpkg", "--print-architecture").Output(); c["Architecture"] != strings.TrimSpace(string(arch)) {
		return fmt.Errorf("Architecture = %q, this machine is %s", c["Architecture"], arch)
	}
	deps := strings.Split(c["Depends"], ", ")
	for _, d := range deps {
		if strings.HasSuffix(strings.Fields(d + " x")[0], "-dev") {
			return fmt.Errorf("Depends on a development package: %q", d)
		}
	}
	if !sameSet(deps, debDepends) {
		return fmt.Errorf("Depends = %q, want exactly %q", c["Depends"], debDepends)
	}
	if !regexp.MustCompile(`^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$`).MatchString(c["Maintainer"]) {
		return fmt.Errorf("Maintainer = %q, want \"Name <email>\"", c["Maintainer"])
	}
	synopsis, long, _ := strings.Cut(c["Description"], "\n")
	if synopsis != metainfoSummary(b.root) || len(strings.TrimSpace(long)) < 80 {
		return fmt.Errorf("Description %q: want the AppStream summary, then a long description", c["Description"])
	}
	return nil
}

// checkScripts: the control archive holds the fields and checksums only. A maintainer script would run as
// root at install; nothing here needs one (dpkg's triggers refresh the desktop, icon and man databases), and
// `xdg-mime default` in one would take HTML away from the person's browser.
func checkScripts(names []string) error {
	if !sameSet(names, []string{"control", "md5sums"}) {
		return fmt.Errorf("control archive holds %q, want only control and md5sums", names)
	}
	return nil
}

// checkMembers compares the data archive with wantFiles: the same regular files, owned by root, with their
// modes, and only directories besides.
func checkMembers(members []*tar.Header) error {
	want := wantFiles()
	got := map[string]bool{}
	for _, h := range members {
		name := strings.TrimPrefix(h.Name, ".")
		if h.Uid != 0 || h.Gid != 0 {
			return fmt.Errorf("%s is owned by %d:%d, want root", name, h.Uid, h.Gid)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if os.FileMode(h.Mode).Perm() != 0o755 {
				return fmt.Errorf("directory %s has mode %o", name, h.Mode)
			}
		case tar.TypeReg:
			mode, ok := want[name]
			if !ok {
				return fmt.Errorf("unexpected file %s", name)
			}
			if os.FileMode(h.Mode).Perm() != mode {
				return fmt.Errorf("%s has mode %o, want %o", name, h.Mode, mode)
			}
			got[name] = true
		default:
			return fmt.Errorf("%s: unexpected member type %q", name, h.Typeflag)
		}
	}
	for name := range want {
		if !got[name] {
			return fmt.Errorf("%s is missing", name)
		}
	}
	return nil
}

// checkLinks: the binary is stripped, links the two libraries the package depends on, and on this system
// those libraries belong to exactly the packages in debDepends (dpkg -S), so the names are the runtime ones.
// checkFront: voicebox is stripped and links no library at all (built without cgo), so it never loads
// GTK or WebKitGTK (docs/architecture.md, "Two programs").
func checkFront(bin string) error {
	needed, err := strippedImports(bin)
	if err != nil {
		return err
	}
	if len(needed) > 0 {
		return fmt.Errorf("%s links %q; voicebox must link nothing", bin, needed)
	}
	return nil
}

// strippedImports are the libraries bin links, once it is found stripped.
func strippedImports(bin string) ([]string, error) {
	ef, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	for _, s := range ef.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") {
			return nil, fmt.Errorf("the packaged %s is not stripped: it has %s", filepath.Base(bin), s.Name)
		}
	}
	return ef.ImportedLibraries()
}

func checkLinks(bin string) error {
	needed, err := strippedImports(bin)
	if err != nil {
		return err
	}
	var owners []string
	for _, lib := range linkedLibs {
		if !slices.Contains(needed, lib) {
			return fmt.Errorf("the binary does not link %s (it links %q)", lib, needed)
		}
		out, err := exec.Command("dpkg", "-S", "*/"+lib).Output()
		if err != nil {
			return fmt.Errorf("dpkg -S %s: %v", lib, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, _, _ := strings.Cut(line, ":")
			if !slices.Contains(owners, pkg) {
				owners = append(owners, pkg)
			}
		}
	}
	if !sameSet(owners, debDepends) {
		return fmt.Errorf("%q belong to %q on this system, but the package depends on %q", linkedLibs, owners, debDepends)
	}
	return nil
}

// coversUsage: every line of the CLI's usage text appears in the rendered page (spacing aside); a closing
// "Label: text" line may appear as a section headed LABEL.
func coversUsage(page, usage string) error {
	flat := strings.Join(strings.Fields(page), " ")
	for _, l := range strings.Split(usage, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		label, text, _ := strings.Cut(l, ": ")
		if l != "" && !strings.Contains(flat, l) && !strings.Contains(flat, strings.ToUpper(label)+" "+text) {
			return fmt.Errorf("the man page lacks the usage line %q", l)
		}
	}
	return nil
}

// renderMan formats the page as man(1) would, wide enough that no line wraps; groff's warnings fail.
func renderMan(t *testing.T, gz string) string {
	t.Helper()
	raw := readFile(t, gz)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", gz, err)
	}
	src, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("groff", "-man", "-Tascii", "-ww", "-rLL=300n", "-P-cbou")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("groff: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// validate runs a validator and returns what it printed; err is its failure.
func validate(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// spoilFile writes a copy of path (same base name, in a temporary folder) with old replaced by with.
func spoilFile(t *testing.T, path, old, with string) string {
	t.Helper()
	raw := readFile(t, path)
	if !bytes.Contains(raw, []byte(old)) {
		t.Fatalf("%s has no %q to spoil", path, old)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(p, bytes.Replace(raw, []byte(old), []byte(with), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFile reads path; a file that cannot be read fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func desktopKeys(t *testing.T, path string) map[string]string {
	t.Helper()
	raw := readFile(t, path)
	keys := map[string]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			keys[k] = v
		}
	}
	return keys
}

// parseControl reads deb-control(5) fields; continuation lines join their field with a newline.
func parseControl(t *testing.T, path string) map[string]string {
	t.Helper()
	raw := readFile(t, path)
	fields := map[string]string{}
	var last string
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if strings.HasPrefix(l, " ") && last != "" {
			fields[last] += "\n" + strings.TrimPrefix(l, " ")
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("%s: bad line %q", path, l)
		}
		last = k
		fields[k] = strings.TrimSpace(v)
	}
	return fields
}

// metainfoSummary is the <summary> of the packaged AppStream file.
func metainfoSummary(root string) string {
	raw, _ := os.ReadFile(filepath.Join(root, "usr/share/metainfo", appID+".metainfo.xml"))
	m := regexp.MustCompile(`<summary>([^<]*)</summary>`).FindSubmatch(raw)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// describedCommit is the part of `git describe` output that names the commit: the hash after "-g", a bare
// hash, or a tag (whose "-rc1" dpkg writes "~rc1", to sort before the release).
func describedCommit(describe string) string {
	d := strings.TrimSuffix(describe, "-dirty")
	if m := regexp.MustCompile(`-g([0-9a-f]+)$`).FindStringSubmatch(d); m != nil {
		return m[1]
	}
	return strings.ReplaceAll(strings.TrimPrefix(d, "v"), "-", "~")
}

func rpmArch() string {
	return map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	raw := readFile(t, path)
	return sha256.Sum256(raw)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderrOf(err))
	}
	return string(out)
}

func stderrOf(err error) []byte {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.Stderr
	}
	return nil
}
