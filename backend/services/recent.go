package services

import (
	"github.com/voicebox/voicebox/backend/recent"
	"github.com/voicebox/voicebox/backend/store"
)

// RecentService is the tray's memory (backend/recent): the store's apps that ran lately, with the tools
// each declared the last time it ran, for the list of recent apps and an app's tools before it opens.
type RecentService struct {
	list  *recent.List
	store *store.Store
}

// NewRecentService serves list, keeping to what st still has.
func NewRecentService(list *recent.List, st *store.Store) *RecentService {
	return &RecentService{list: list, store: st}
}

// List returns the apps that ran lately, most recently opened first: only those the store still has,
// under the title the store gives them now.
func (s *RecentService) List() ([]recent.App, error) {
	out := []recent.App{}
	for _, a := range s.list.Apps() {
		if e, ok := Known(s.store, a.AppID); ok {
			a.Title = e.Title
			out = append(out, a)
		}
	}
	return out, nil
}

// Known says whether appID is an entry of st by that exact id (an opened file or a dropped page has no
// id that lasts). A function, not a method, so that it is not bound to the room.
func Known(st *store.Store, appID string) (store.Entry, bool) {
	e, err := st.Resolve(appID)
	return e, err == nil && e.AppID == appID
}
