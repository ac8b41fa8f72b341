package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The versions must sort as the history does: dpkg --compare-versions is the judge.
func TestPackageVersion(t *testing.T) {
	commits := func(hash string) (int, error) {
		if hash == "abc1234" {
			return 112, nil
		}
		return 0, errors.New("unknown commit")
	}
	for describe, want := range map[string]string{
		"v1.2.0":                  "1.2.0",
		"1.2.0":                   "1.2.0",
		"v1.2.0-rc1":              "1.2.0~rc1",
		"v1.2.0-5-gabc1234":       "1.2.0+git5.gabc1234",
		"v1.2.0-rc1-5-gabc1234":   "1.2.0~rc1+git5.gabc1234",
		"v1.2.0-5-gabc1234-dirty": "1.2.0+git5.gabc1234.dirty",
		"abc1234":                 "0~git112.gabc1234",
		"abc1234-dirty":           "0~git112.gabc1234+dirty",
		"dev":                     "0~dev",
	} {
		got, err := packageVersion(describe, commits)
		if err != nil || got != want {
			t.Errorf("packageVersion(%q) = %q, %v; want %q", describe, got, err, want)
		}
	}
	for _, bad := range []string{"", "feature/x", "v1.2.0 extra", "deadbeef0"} {
		if got, err := packageVersion(bad, commits); err == nil {
			t.Errorf("packageVersion(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Fatal("dpkg is missing (Debian's package manager judges the ordering)")
	}
	ordered := []string{"0~dev", "0~git112.gabc1234", "0~git112.gabc1234+dirty", "1.2.0~rc1",
		"1.2.0~rc1+git5.gabc1234", "1.2.0", "1.2.0+git5.gabc1234", "1.2.0+git5.gabc1234.dirty", "1.3.0"}
	for i := 1; i < len(ordered); i++ {
		if out, err := exec.Command("dpkg", "--compare-versions", ordered[i-1], "lt", ordered[i]).CombinedOutput(); err != nil {
			t.Errorf("dpkg does not sort %s before %s: %v %s", ordered[i-1], ordered[i], err, strings.TrimSpace(string(out)))
		}
	}
}
