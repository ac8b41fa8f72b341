package services

import (
	"encoding/json"

	"github.com/voicebox/voicebox/backend/activity"
	"github.com/voicebox/voicebox/backend/events"
)

// ActivityService is the room's door to the activity log Go keeps (backend/activity): the lines so far, at
// boot; the room's own lines (its launches, closes, console calls, apps' errors), added as they happen; and
// Clear. New lines reach every room as "activity" events.
type ActivityService struct {
	log *activity.Log
	bus *events.Bus
}

// NewActivityService serves log; lines added go out on bus (which stamps them into log).
func NewActivityService(log *activity.Log, bus *events.Bus) *ActivityService {
	return &ActivityService{log: log, bus: bus}
}

// List returns the log, oldest line first.
func (s *ActivityService) List() ([]activity.Line, error) { return s.log.List(), nil }

// RoomLine is a line the room adds: it is numbered and timed here.
type RoomLine struct {
	Who     string          `json:"who"`
	What    string          `json:"what"`
	Input   json.RawMessage `json:"input,omitempty"`
	Outcome json.RawMessage `json:"outcome,omitempty"`
	Failed  bool            `json:"failed,omitempty"`
	Ms      *int64          `json:"ms,omitempty"`
	Room    string          `json:"room"`
	Key     string          `json:"key"`
}

// Add records one of the room's own lines (texts cut, data summarised past the log's bounds) and sends it
// to every room.
func (s *ActivityService) Add(l RoomLine) error {
	if blank(l.What) {
		return BadRequest("a line needs what was done")
	}
	if l.Ms != nil && *l.Ms < 0 {
		return BadRequest("a duration cannot be negative")
	}
	s.bus.Publish(activity.EventLine, activity.Line{Who: l.Who, What: l.What, Input: l.Input, Outcome: l.Outcome,
		Failed: l.Failed, Ms: l.Ms, Room: l.Room, Key: l.Key})
	return nil
}

// Clear empties the log for every room.
func (s *ActivityService) Clear() error {
	s.log.Clear()
	s.bus.Publish(activity.EventCleared, nil)
	return nil
}
