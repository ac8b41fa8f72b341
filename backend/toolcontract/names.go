package toolcontract

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"sync"
)

// AppTools is one open mini-app and its accepted tools.
type AppTools struct {
	AppID string
	// Slug prefixes the exposed names; AppID is used when empty.
	Slug  string
	Tools []*Tool
}

// Exposed maps an exposed function name back to the app and tool it stands
// for.
type Exposed struct {
	AppID string `json:"appId"`
	Tool  string `json:"tool"`
}

// MaxIdleNames bounds how many names of tools that are not open now a Namer
// remembers. Past it, the names that have been idle longest are forgotten and
// may be given again; names of open tools are never forgotten.
const MaxIdleNames = 1024

// Namer gives the open apps' tools their exposed names, the names a caller
// outside the room (a voice model, an MCP client) calls them by, and keeps
// each name with the (app, tool) that got it. See docs/tools.md.
//
// Names. A tool is exposed as <slug>__<tool>, where slug is the app's Slug
// (or AppID) with every byte outside [a-zA-Z0-9_-] replaced by '_' and
// prefixed with "app_" unless it starts with a letter ("app" when empty).
// That is valid for both providers: OpenAI ^[a-zA-Z0-9_-]{1,64}$, Gemini
// (must start with a letter or underscore; a-z A-Z 0-9 _ . : -; at most 64).
// When that name is longer than 64 bytes, or is held by another (app, tool),
// the tool gets the first 55 bytes of <slug>__<tool>, '_', and the first 8
// hex digits of SHA-256(AppID "\x00" tool) (more digits on the astronomically
// unlikely further clash).
//
// Ownership. A name, once given, stays with its (app, tool): while the app is
// open, after it closes and when it opens again. A newcomer whose slug and
// tool match a held name gets the suffixed name, so a caller that learned a
// name reaches the app it learned it for, or is refused once that app closed;
// never another app. Only MaxIdleNames bounds the memory: the names idle
// longest are forgotten first. New tools met in one Assign are named in
// (AppID, tool) order, so a fresh Namer gives the same names to the same apps
// whatever their order.
//
// A Namer is safe for concurrent use.
type Namer struct {
	mu     sync.Mutex
	holder map[string]Exposed // every remembered name → its (app, tool)
	name   map[Exposed]string // the reverse
	idle   map[Exposed]uint64 // remembered but not open now → the Assign it went idle in
	round  uint64
}

// NewNamer returns a Namer that has given no names yet.
func NewNamer() *Namer {
	return &Namer{holder: map[string]Exposed{}, name: map[Exposed]string{}, idle: map[Exposed]uint64{}}
}

// Assign names every tool of apps, the apps open now, and returns the name of
// each (app, tool). A repeated (app, tool) is named once; nil tools are
// skipped.
func (n *Namer) Assign(apps []AppTools) map[Exposed]string {
	slugs := map[Exposed]string{}
	for _, a := range apps {
		slug := a.Slug
		if slug == "" {
			slug = a.AppID
		}
		for _, t := range a.Tools {
			if t == nil {
				continue
			}
			key := Exposed{AppID: a.AppID, Tool: t.Name}
			if _, ok := slugs[key]; !ok {
				slugs[key] = sanitizeSlug(slug)
			}
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.round++
	for key := range n.name {
		_, open := slugs[key]
		_, idle := n.idle[key]
		switch {
		case open && idle:
			delete(n.idle, key)
		case !open && !idle:
			n.idle[key] = n.round
		}
	}
	var fresh []Exposed
	for key := range slugs {
		if _, ok := n.name[key]; !ok {
			fresh = append(fresh, key)
		}
	}
	sort.Slice(fresh, func(i, j int) bool {
		if fresh[i].AppID != fresh[j].AppID {
			return fresh[i].AppID < fresh[j].AppID
		}
		return fresh[i].Tool < fresh[j].Tool
	})
	for _, key := range fresh {
		name := n.free(slugs[key]+"__"+key.Tool, key)
		n.holder[name] = key
		n.name[key] = name
	}
	n.forgetIdle()
	out := make(map[Exposed]string, len(slugs))
	for key := range slugs {
		out[key] = n.name[key]
	}
	return out
}

// free returns base when no one holds it and it fits, else base cut short with a suffix that no one holds.
func (n *Namer) free(base string, key Exposed) string {
	if _, held := n.holder[base]; !held && len(base) <= MaxNameLength {
		return base
	}
	sum := sha256.Sum256([]byte(key.AppID + "\x00" + key.Tool))
	h := hex.EncodeToString(sum[:])
	for digits := 8; ; digits += 4 {
		name := base
		if keep := MaxNameLength - 1 - digits; len(name) > keep {
			name = name[:keep]
		}
		name += "_" + h[:digits]
		if _, held := n.holder[name]; !held || digits >= len(h)-4 {
			return name
		}
	}
}

// forgetIdle drops the names idle longest until at most MaxIdleNames idle names are left.
func (n *Namer) forgetIdle() {
	excess := len(n.idle) - MaxIdleNames
	if excess <= 0 {
		return
	}
	keys := make([]Exposed, 0, len(n.idle))
	for key := range n.idle {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if ri, rj := n.idle[keys[i]], n.idle[keys[j]]; ri != rj {
			return ri < rj
		}
		return keys[i].AppID < keys[j].AppID || keys[i].AppID == keys[j].AppID && keys[i].Tool < keys[j].Tool
	})
	for _, key := range keys[:excess] {
		delete(n.holder, n.name[key])
		delete(n.name, key)
		delete(n.idle, key)
	}
}

func sanitizeSlug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" {
		return "app"
	}
	if c := out[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		out = "app_" + out
	}
	return out
}
