package sandbox

import (
	"fmt"
	"net"
	"time"
)

// A site is one origin the asset server answers on. Chromium runs the frames of one site in one renderer
// process, and a port does not make a new site but a loopback address does; so beside a served room each
// launch gets a site of its own and an app that spins stalls no other app (docs/sandbox.md, "A site per
// launch"). The desktop has one site: WebKitGTK runs every frame in one web process anyway.
type site struct {
	host   string // host:port, as a browser sends it in Host
	origin string // http://host:port
	ln     net.Listener
	used   uint64 // when a launch last got it: the least recently used site goes next
	// The app whose launch let it go last, and when: that app, opened again at once, gets it back.
	lastApp string
	freedAt time.Time
}

// reuseWindow is how soon after an app's launch let its site go that the same app, opened again, gets the
// site back: Chromium keeps a site's process a moment after its last frame goes, and reusing it spares
// starting two renderer processes (measured: launch-to-ready back to main's instead of 40–60 % slower).
// Only the same app: a closed app that still spins in that process delays its own reopening (until the
// window passes), never another app's.
const reuseWindow = 2 * time.Second

// letGo releases a launch whose token was just revoked and notes which app let its site go, and when.
// The caller holds s.mu.
func (s *Server) letGo(l *Launch) {
	l.release()
	if l.site != nil {
		l.site.lastApp, l.site.freedAt = l.AppID, s.now()
	}
}

func newSite(hostPort string, ln net.Listener) *site {
	return &site{host: hostPort, origin: "http://" + hostPort, ln: ln}
}

// firstSiteAddress is where the sites' loopback addresses start: 127.0.0.1 is left to the room.
const firstSiteAddress = 2

// listenSites opens n sites on the loopback addresses 127.0.0.2, 127.0.0.3, … (skipping avoid, the room's
// own address, which must stay a different site), each on a port of its own. It fails when the system does
// not route those addresses to the loopback interface (the caller then falls back to one site).
func listenSites(n int, avoid string) ([]*site, error) {
	var sites []*site
	for a := firstSiteAddress; len(sites) < n; a++ {
		if a > 254 {
			closeSites(sites)
			return nil, fmt.Errorf("sandbox: not enough loopback addresses for %d sites", n)
		}
		addr := fmt.Sprintf("127.0.0.%d", a)
		if addr == avoid {
			continue
		}
		ln, err := net.Listen("tcp4", addr+":0")
		if err != nil {
			closeSites(sites)
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		sites = append(sites, newSite(ln.Addr().String(), ln))
	}
	return sites, nil
}

func closeSites(sites []*site) {
	for _, s := range sites {
		if s.ln != nil {
			s.ln.Close()
		}
	}
}

// pickSite returns the site for a new launch of appID: one no live launch holds; the one this app let go
// within reuseWindow, else the least recently used. Not the one another app let go last: that app may
// still spin in its renderer, and the new app would wait behind it (measured: 14.8 s behind a 15 s spin).
// The caller holds s.mu and has made room (at most MaxLaunches launches, as many as there are sites).
func (s *Server) pickSite(appID string) *site {
	if len(s.sites) == 1 {
		return s.sites[0]
	}
	held := map[*site]bool{}
	for _, l := range s.launches {
		held[l.site] = true
	}
	var best *site
	for _, x := range s.sites {
		if held[x] {
			continue
		}
		if x.lastApp == appID && s.now().Sub(x.freedAt) < reuseWindow {
			best = x
			break
		}
		if best == nil || x.used < best.used {
			best = x
		}
	}
	if best == nil { // more launches than sites (not with MaxLaunches sites): share the oldest
		best = s.sites[0]
		for _, x := range s.sites {
			if x.used < best.used {
				best = x
			}
		}
	}
	s.siteClock++
	best.used = s.siteClock
	return best
}

// siteOf returns the site a request came to (by its Host header), or nil: a Host that is not one of ours
// is refused (DNS rebinding).
func (s *Server) siteOf(host string) *site {
	for _, x := range s.sites {
		if x.host == host {
			return x
		}
	}
	return nil
}

// Origins are the origins the server answers on: the room's frame-src lists them all.
func (s *Server) Origins() []string {
	out := make([]string, len(s.sites))
	for i, x := range s.sites {
		out[i] = x.origin
	}
	return out
}
