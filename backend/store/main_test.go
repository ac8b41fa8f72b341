package store

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		runCrashChild(dir) // never returns
	}
	code := m.Run()
	cleanupBenchTree()
	os.Exit(code)
}
