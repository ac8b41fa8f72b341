package store

import (
	"encoding/json"
	"strconv"
	"time"
)

// metaNames are what a shelf record (<slug>.meta.json) says of its app: its id and title, and the
// workspace file it was saved from.
type metaNames struct {
	AppID         string `json:"appId"`
	Title         string `json:"title"`
	WorkspacePath string `json:"workspacePath,omitempty"`
	WorkspaceRoot string `json:"workspaceRoot,omitempty"`
	SourcePath    string `json:"sourcePath,omitempty"`
}

// metaRec is a parsed <slug>.meta.json.
type metaRec struct {
	metaNames
	CreatedAt time.Time
	UpdatedAt time.Time
}

// metaFile is the on-disk form of a shelf record. Its times are read leniently (parseJSONTime) and
// written as RFC 3339 strings.
type metaFile struct {
	metaNames
	CreatedAt json.RawMessage `json:"createdAt,omitempty"`
	UpdatedAt json.RawMessage `json:"updatedAt,omitempty"`
}

func parseMeta(b []byte) (*metaRec, error) {
	var mf metaFile
	if err := json.Unmarshal(b, &mf); err != nil {
		return nil, err
	}
	mf.Title = displayTitle(mf.Title) // a record on disk may have been written by anyone
	return &metaRec{metaNames: mf.metaNames, CreatedAt: parseJSONTime(mf.CreatedAt), UpdatedAt: parseJSONTime(mf.UpdatedAt)}, nil
}

func encodeMeta(m *metaRec) []byte {
	b, _ := json.MarshalIndent(metaFile{m.metaNames, jsonTime(m.CreatedAt), jsonTime(m.UpdatedAt)}, "", "  ")
	return append(b, '\n')
}

func jsonTime(t time.Time) json.RawMessage {
	b, _ := json.Marshal(t.UTC().Format(time.RFC3339Nano))
	return b
}

// parseJSONTime accepts an RFC 3339 string or a number of milliseconds since
// the epoch (what a JavaScript Date.now() record holds).
func parseJSONTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
		return time.Time{}
	}
	if ms, err := strconv.ParseFloat(string(raw), 64); err == nil && ms > 0 {
		return time.UnixMilli(int64(ms)).UTC()
	}
	return time.Time{}
}

const metaSuffix = ".meta.json"
