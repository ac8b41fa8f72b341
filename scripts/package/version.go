package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// release is the version the binary reports (git describe) and the one the package carries.
type release struct {
	describe string    // as `voicebox --version` prints it
	version  string    // dpkg/rpm version, ordered like the history
	date     time.Time // the commit's time: every file's mtime and the man page's date, so builds repeat
}

var (
	// v1.2.0, v1.2.0-rc1, v1.2.0-5-gabc1234 (5 commits after the tag)
	tagDescribe = regexp.MustCompile(`^v?([0-9][0-9A-Za-z.]*)(?:-([0-9A-Za-z.]+))?(?:-([0-9]+)-g([0-9a-f]{4,}))?$`)
	// no tag yet: the abbreviated commit alone
	hashDescribe = regexp.MustCompile(`^[0-9a-f]{4,}$`)
)

// packageVersion turns `git describe --always --dirty` into a version dpkg and rpm sort like the history:
//
//	v1.2.0            → 1.2.0
//	v1.2.0-rc1        → 1.2.0~rc1                (before 1.2.0)
//	v1.2.0-5-gabc1234 → 1.2.0+git5.gabc1234      (after 1.2.0)
//	abc1234, no tag   → 0~git<commits>.gabc1234  (before any release; commits counts the history)
//	…-dirty           → …+dirty (or .dirty after a +git part)
//	dev               → 0~dev                    (built outside git)
//
// commits returns how many commits lead to a hash; it is asked only when there is no tag.
func packageVersion(describe string, commits func(hash string) (int, error)) (string, error) {
	d, dirty := strings.CutSuffix(describe, "-dirty")
	var v string
	switch {
	case d == "dev":
		v = "0~dev"
	case hashDescribe.MatchString(d):
		n, err := commits(d)
		if err != nil {
			return "", err
		}
		v = fmt.Sprintf("0~git%d.g%s", n, d)
	default:
		m := tagDescribe.FindStringSubmatch(d)
		if m == nil {
			return "", fmt.Errorf("version %q is not what git describe --always --dirty prints", describe)
		}
		v = m[1]
		if m[2] != "" {
			v += "~" + m[2]
		}
		if m[3] != "" {
			v += "+git" + m[3] + ".g" + m[4]
		}
	}
	if dirty {
		if strings.Contains(v, "+") {
			v += ".dirty"
		} else {
			v += "+dirty"
		}
	}
	return v, nil
}

// releaseOf asks git (in root) what packageVersion needs, and the commit's time.
func releaseOf(root, describe string) (release, error) {
	r := release{describe: describe}
	var err error
	r.version, err = packageVersion(describe, func(hash string) (int, error) {
		out, err := git(root, "rev-list", "--count", hash)
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(out)
	})
	if err != nil {
		return release{}, err
	}
	r.date = time.Unix(0, 0).UTC()
	if describe != "dev" {
		// git reads its own describe output (tag, tag-N-gHASH or HASH) as a revision.
		out, err := git(root, "log", "-1", "--format=%ct", strings.TrimSuffix(describe, "-dirty"))
		if err != nil {
			return release{}, err
		}
		secs, err := strconv.ParseInt(out, 10, 64)
		if err != nil {
			return release{}, fmt.Errorf("git log %s: %w", describe, err)
		}
		r.date = time.Unix(secs, 0).UTC()
	}
	return r, nil
}

func git(root string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
