package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentSavesAndDeletes hammers one store from many goroutines
// (run with -race) while the watcher is running, then checks the shelf.
func TestConcurrentSavesAndDeletes(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 8; i++ {
		write(t, filepath.Join(e.ws, fmt.Sprintf("p%d.html", i)), page(fmt.Sprintf("P%d", i)))
	}
	s := e.open(t)
	startWatch(t, s)

	// Many goroutines race for one name: exactly one wins.
	var wins, taken atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			_, err := s.SaveHTML("contested", page(fmt.Sprintf("C%d", g)))
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrNameTaken):
				taken.Add(1)
			default:
				t.Errorf("SaveHTML(contested): unexpected error %v", err)
			}
		}(g)
	}
	wg.Wait()
	if wins.Load() != 1 || taken.Load() != 15 {
		t.Fatalf("contested name: got %d wins and %d refusals, want 1 and 15", wins.Load(), taken.Load())
	}

	allowed := []error{ErrNameTaken, ErrNotFound}
	check := func(op string, err error) {
		if err == nil {
			return
		}
		for _, a := range allowed {
			if errors.Is(err, a) {
				return
			}
		}
		t.Errorf("%s: unexpected error %v", op, err)
	}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for i := 0; i < 40; i++ {
				switch rng.Intn(7) {
				case 0:
					_, err := s.SaveHTML(fmt.Sprintf("n%d", rng.Intn(6)), page(fmt.Sprintf("N g%d i%d", g, i)))
					check("SaveHTML", err)
				case 1:
					_, err := s.SaveRef(fmt.Sprintf("p%d.html", rng.Intn(8)))
					check("SaveRef", err)
				case 2:
					list := s.List()
					if len(list) > 0 {
						_, err := s.Delete(list[rng.Intn(len(list))].AppID)
						check("Delete", err)
					}
				case 3:
					_, err := s.Get(fmt.Sprintf("n%d", rng.Intn(6)))
					check("Get", err)
				case 4:
					_, err := s.Resolve(fmt.Sprintf("P%d", rng.Intn(8)))
					check("Resolve", err)
				case 5:
					if rng.Intn(4) == 0 {
						s.Rescan()
					}
					s.List()
				case 6:
					p := filepath.Join(e.ws, fmt.Sprintf("p%d.html", rng.Intn(8)))
					os.WriteFile(p+".tmp", []byte(page(fmt.Sprintf("P rewrite %d", i))), 0o644)
					os.Rename(p+".tmp", p)
				}
			}
		}(g)
	}
	wg.Wait()
	s.Rescan()
	checkShelfConsistent(t, s, e.shelf)
}

// checkShelfConsistent: ids unique, every listed entry readable, every shelf
// record parses, no temp file listed.
func checkShelfConsistent(t *testing.T, s *Store, shelf string) {
	t.Helper()
	seen := map[string]bool{}
	for _, en := range s.List() {
		if seen[en.AppID] {
			t.Errorf("duplicate id %s", en.AppID)
		}
		seen[en.AppID] = true
		if strings.HasPrefix(en.FileName, ".") || strings.Contains(en.FileName, ".tmp") {
			t.Errorf("temp file listed: %s", en.FileName)
		}
		if _, err := s.Get(en.AppID); err != nil {
			t.Errorf("Get(%s): %v", en.AppID, err)
		}
	}
	des, _ := os.ReadDir(shelf)
	for _, de := range des {
		if strings.HasSuffix(de.Name(), metaSuffix) && !strings.HasPrefix(de.Name(), ".") {
			b, _ := os.ReadFile(filepath.Join(shelf, de.Name()))
			if !json.Valid(b) {
				t.Errorf("half-written record %s: %q", de.Name(), b)
			}
		}
	}
}
