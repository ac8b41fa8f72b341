package store

import (
	"encoding/json"
	"strconv"
	"time"
)

// metaRec is a parsed <slug>.meta.json.
type metaRec struct {
	AppID         string
	Title         string
	WorkspacePath string
	WorkspaceRoot string
	SourcePath    string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// metaFile is the on-disk form of a shelf record.
type metaFile struct {
	AppID         string          `json:"appId"`
	Title         string          `json:"title"`
	WorkspacePath string          `json:"workspacePath,omitempty"`
	WorkspaceRoot string          `json:"workspaceRoot,omitempty"`
	SourcePath    string          `json:"sourcePath,omitempty"`
	CreatedAt     json.RawMessage `json:"createdAt,omitempty"`
	UpdatedAt     json.RawMessage `json:"updatedAt,omitempty"`
}

func parseMeta(b []byte) (*metaRec, error) {
	var mf metaFile
	if err := json.Unmarshal(b, &mf); err != nil {
		return nil, err
	}
	return &metaRec{
		AppID:         mf.AppID,
		Title:         displayTitle(mf.Title), // a record on disk may have been written by anyone
		WorkspacePath: mf.WorkspacePath,
		WorkspaceRoot: mf.WorkspaceRoot,
		SourcePath:    mf.SourcePath,
		CreatedAt:     parseJSONTime(mf.CreatedAt),
		UpdatedAt:     parseJSONTime(mf.UpdatedAt),
	}, nil
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
