package recovery

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// How the watchdog judges and paces (docs/sandbox.md, "Watchdog").
const (
	// Probation is how long the room waits after an app it reopens one at a time is ready before it
	// reopens the next: if the room stops meanwhile, that app is the newcomer.
	Probation = 5 * time.Second
	// detectSlack is how much later the tracker hears of a hang than it began: the guard restarts a
	// spinning process after 1 s of its CPU time, a stuck one after 2 s (docs/performance.md,
	// "Watchdog"). A loaded machine can make that later: the newcomer is then let go, never blamed.
	detectSlack = 3 * time.Second
	// Window: hangs further apart are unrelated; the watchdog forgets its suspicions after one.
	Window = 3 * time.Minute
	// MaxHangs within Window and the watchdog stops reopening apps and asks the person. An app that
	// spins only beside others needs at most three hangs to be found among three apps.
	MaxHangs = 4
	// MaxFailures: after this many crashes or memory failures within Window the watchdog reopens nothing
	// and offers the apps to the person: nothing it can see of a failure is evidence against an app open
	// beside others, so a third round would only cost every app its state again (issue 28).
	MaxFailures = 2
	// HeavyMemory: a web process that stops answering while it holds this much or more is judged as one
	// that ran out of memory. WebKit's limit is the machine's RAM, at most 3 GB, and it purges its caches
	// from a third of that on; a room with two small apps holds about 200 MB (measured: 196 MB), and one
	// app filling memory stalled it at 2.4 to 2.7 GB before it could crash (tests/desktop, bomb.html).
	HeavyMemory = 1 << 30
)

// restart is one recovery as the guard reported it.
type restart struct {
	reason string
	memory int64 // the web process's resident set just before, bytes (0: not known)
	// failed: it crashed, ran out of memory, or stopped answering while it held HeavyMemory or more.
	// Memory adds up over time, so when and beside what it failed says nothing about which app filled it.
	failed bool
}

type evidence int

const (
	noEvidence   evidence = iota
	aloneOpen             // it was the only app open
	inCall                // it was running a tool call
	newcomer              // reopened one at a time, it stopped the room after the others had run together
	newcomerPair          // the same with one other app back: either of the two could have waited for the other
)

// verdict is what the evidence says about a hang.
type verdict struct {
	kind   evidence
	app    *app   // the app the evidence points at
	before []*app // newcomer, newcomerPair: the apps that were back before it
	again  bool   // newcomer: a second time, after a newcomerPair
}

func (v verdict) closes() bool {
	return v.kind == aloneOpen || v.kind == inCall || v.kind == newcomer
}

// judge weighs the apps of a dead process (those it ran; not the ones owed by an earlier plan). After a
// failure (restart.failed) only "it was the only app open" is evidence: an app can fill memory slowly or
// late, while another works or is being reopened.
func judge(alive []*app, now time.Time, failed bool) verdict {
	switch {
	case len(alive) == 0:
		return verdict{}
	case len(alive) == 1:
		return verdict{kind: aloneOpen, app: alive[0]}
	case failed:
		return verdict{}
	}
	var running *app
	var first uint64
	for _, a := range alive {
		for _, s := range a.calls {
			if running == nil || s < first {
				running, first = a, s
			}
		}
	}
	if running != nil {
		return verdict{kind: inCall, app: running}
	}
	// The newcomer: the app the plan reopened last, while still loading or on probation. The room is
	// frozen from the moment the hang began, so it launched nothing after.
	var x *app
	for _, a := range alive {
		if a.probation && (x == nil || a.launched > x.launched) {
			x = a
		}
	}
	if x == nil || (!x.readyAt.IsZero() && now.Sub(x.readyAt) > Probation+detectSlack) {
		return verdict{}
	}
	var before []*app
	for _, o := range alive {
		if o == x {
			continue
		}
		if o.readyAt.IsZero() || !o.readyAt.Before(x.launchedAt) {
			return verdict{} // another app came (or reloaded) meanwhile: no one to single out
		}
		before = append(before, o)
	}
	if len(before) >= 2 {
		return verdict{kind: newcomer, app: x, before: before}
	}
	return verdict{kind: newcomerPair, app: x, before: before}
}

// history is what the watchdog remembers across restarts: the recent hangs and what they suggested,
// the apps it closed (held until the person opens them) and the apps rooms have opened.
type history struct {
	hangs     []time.Time    // every restart within Window
	failures  []time.Time    // the crashes and memory failures among them
	suspicion map[string]int // app → how often it was among those open when the room stopped unexplained
	strikes   map[string]int // app → newcomerPair verdicts against it
	held      map[string]string
	seen      map[string]bool
}

func newHistory() history {
	return history{suspicion: map[string]int{}, strikes: map[string]int{}, held: map[string]string{}, seen: map[string]bool{}}
}

func (h *history) forgetOld(now time.Time) {
	for len(h.hangs) > 0 && now.Sub(h.hangs[0]) > Window {
		h.hangs = h.hangs[1:]
	}
	for len(h.failures) > 0 && now.Sub(h.failures[0]) > Window {
		h.failures = h.failures[1:]
	}
	if len(h.hangs) == 0 {
		h.suspicion, h.strikes = map[string]int{}, map[string]int{}
	}
}

// weigh adds the verdict to the suspicions; a second newcomerPair verdict against an app closes it.
func (h *history) weigh(v verdict, alive []*app) verdict {
	switch v.kind {
	case noEvidence:
		for _, a := range alive {
			h.suspicion[a.id]++
		}
	case newcomerPair:
		if h.strikes[v.app.id] > 0 {
			return verdict{kind: newcomer, app: v.app, before: v.before, again: true}
		}
		h.strikes[v.app.id]++
		h.suspicion[v.app.id] += 2
		for _, o := range v.before {
			h.suspicion[o.id] += 2
		}
	}
	return v
}

func (h *history) hold(id, why string) {
	if len(h.held) < maxRemembered {
		h.held[id] = why
	}
}

// launched notes a launch: the person opening an app lifts the watchdog's hold on it.
func (h *history) launched(id, by string) {
	if by == "" || by == ByPerson {
		delete(h.held, id)
	}
	if len(h.seen) < maxRemembered {
		h.seen[id] = true
	}
}

func (h *history) mayLaunch(id, by string) string {
	if why, ok := h.held[id]; ok && by != "" && by != ByPerson {
		return "the watchdog closed it (" + why + ") and only you can open it again"
	}
	if by == ByBoot && h.seen[id] {
		return "it was open before the room restarted; the watchdog's plan reopens what it can"
	}
	return ""
}

// plan records the hang and decides what the reloaded room reopens, in which order and how fast.
func (h *history) plan(r restart, v verdict, alive, carried []*app, now time.Time) Plan {
	h.forgetOld(now)
	h.hangs = append(h.hangs, now)
	if r.failed {
		h.failures = append(h.failures, now)
	}
	v = h.weigh(v, alive)
	p := Plan{Recovered: true, Reason: r.reason, Reopen: []Reopen{}, MemoryBytes: r.memory}
	if v.closes() {
		p.Closed = &AppRef{AppID: v.app.id, Title: v.app.title}
		p.Why = v.short(alive)
		h.hold(v.app.id, p.Why)
	}
	first := []string{v.notice(r, alive, now)}

	seen := map[string]bool{}
	if p.Closed != nil {
		seen[p.Closed.AppID] = true
	}
	var apps []*app
	for _, a := range append(append([]*app(nil), carried...), alive...) {
		if !seen[a.id] {
			seen[a.id] = true
			apps = append(apps, a)
		}
	}
	if len(h.hangs) >= MaxHangs && len(apps) > 0 {
		titles := titlesOf(apps)
		for _, a := range apps {
			h.hold(a.id, "the room kept stopping while it was open")
		}
		p.Notices = append(first, fmt.Sprintf("The room stopped responding %d times within %d minutes, so Voicebox stopped reopening apps: %s stay closed. Open them again yourself, one at a time, to find the one that stops the room.",
			len(h.hangs), int(Window.Minutes()), join(titles)))
		return p
	}
	if r.failed && len(h.failures) >= MaxFailures && len(apps) > 0 {
		// Bound the damage: the person chooses, with what was seen (issue 28).
		sort.SliceStable(apps, func(i, j int) bool { return apps[i].launched < apps[j].launched })
		for _, a := range apps {
			h.hold(a.id, "the room's web process failed again while it was open")
			p.Offer = append(p.Offer, Reopen{AppID: a.id, Title: a.title, Request: a.req})
		}
		why := " and closed none as guilty: nothing it saw shows which app did it"
		if p.Closed != nil {
			why = ""
		}
		p.Notices = append(first, fmt.Sprintf("The web process has failed %d times within %d minutes, so Voicebox stopped reopening apps%s. "+
			"%s stay closed: reopen the ones you trust, one at a time, here.",
			len(h.failures), int(Window.Minutes()), why, join(titlesOf(apps))))
		return p
	}
	unknown := !r.failed && ((v.kind == noEvidence && len(alive) > 1) || v.kind == newcomerPair)
	if !unknown {
		// Known, or nothing to go on: the others come back at once, in the order they were opened.
		sort.SliceStable(apps, func(i, j int) bool { return apps[i].launched < apps[j].launched })
	} else {
		// Unknown: one at a time, the least suspect first and, among equals, the newest first, so that
		// an app that waits for others to be open comes back after them and is the newcomer if it spins.
		sort.SliceStable(apps, func(i, j int) bool {
			si, sj := h.suspicion[apps[i].id], h.suspicion[apps[j].id]
			if si != sj {
				return si < sj
			}
			return apps[i].launched > apps[j].launched
		})
		if len(apps) > 0 {
			p.ProbationMS = int(Probation.Milliseconds())
		}
	}
	for _, a := range apps {
		p.Reopen = append(p.Reopen, Reopen{AppID: a.id, Title: a.title, Request: a.req})
	}
	p.Notices = first
	if n := len(apps); n > 0 {
		what := "Reopened %d %s (%s). They started over: what they held in memory was lost with the restart."
		if p.ProbationMS > 0 && n > 1 {
			what = "Reopening %d %s one at a time (%s). They start over: what they held in memory was lost with the restart."
		}
		line := fmt.Sprintf(what, n, plural(n, "app", "apps"), strings.Join(limit(titlesOf(apps), 8), ", "))
		if r.failed {
			line += fmt.Sprintf(" If the web process fails again within %d minutes, Voicebox will reopen nothing and ask you.", int(Window.Minutes()))
		}
		p.Notices = append(p.Notices, line)
	}
	return p
}

// short is the evidence, for the log and Plan.Why.
func (v verdict) short(alive []*app) string {
	switch v.kind {
	case aloneOpen:
		return "it was the only app open"
	case inCall:
		return "a tool call was in flight"
	case newcomer:
		if v.again {
			return "it stopped the room again while it was being reopened"
		}
		return fmt.Sprintf("it stopped the room while it was being reopened after %s had run without trouble", join(titlesOf(v.before)))
	case newcomerPair:
		return fmt.Sprintf("cannot tell %s from %s, which was back before it", v.app.title, join(titlesOf(v.before)))
	}
	if len(alive) == 0 {
		return "no app was open"
	}
	return "cannot tell which of " + join(titlesOf(alive))
}

// notice says what happened and what is known, no more: "stopped responding" is said of an app only when
// it was alone. After a failure it adds what was seen (facts).
func (v verdict) notice(r restart, alive []*app, now time.Time) string {
	reason := r.reason
	what := capitalize(describe(reason))
	if m := memoryText(r.memory); m != "" && r.failed {
		what += ", holding " + m + " of memory,"
	}
	if reason == ReasonNavigation {
		return what + " and was restarted."
	}
	if r.failed && v.kind == noEvidence && len(alive) > 1 {
		return fmt.Sprintf("%s while %s were open. Voicebox cannot tell which app did it, so it closed none. %s",
			what, join(titlesOf(alive)), facts(alive, now))
	}
	switch v.kind {
	case aloneOpen:
		if reason == ReasonHang {
			return fmt.Sprintf("%s stopped responding and was closed: it was the only app open.", v.app.title)
		}
		return fmt.Sprintf("%s while %s was the only app open, so %s was closed.", what, v.app.title, v.app.title)
	case inCall:
		return fmt.Sprintf("%s while %s was running a tool call, so %s was closed.", what, v.app.title, v.app.title)
	case newcomer:
		if v.again {
			return fmt.Sprintf("%s again while %s was being reopened, for the second time, so %s was closed.", what, v.app.title, v.app.title)
		}
		return fmt.Sprintf("%s again while %s was being reopened, after %s had run together without trouble, so %s was closed.",
			what, v.app.title, join(titlesOf(v.before)), v.app.title)
	case newcomerPair:
		return fmt.Sprintf("%s again while %s was being reopened, with %s already back. Voicebox cannot tell which of the two did it, so it closed neither: they come back apart.",
			what, v.app.title, join(titlesOf(v.before)))
	}
	if len(alive) == 0 {
		return what + " and was restarted."
	}
	return fmt.Sprintf("%s while %s %s open. Voicebox cannot tell which app did it, so it closed none: they come back one at a time, and one that stops the room again while it comes back will be closed.",
		what, join(titlesOf(alive)), plural(len(alive), "was", "were"))
}

// facts says what the watchdog saw of the apps open when the web process failed: which one was opened
// last and when, which were still loading, how long the others had been open. Facts, not evidence: an
// app that fills memory slowly looks like any other here.
func facts(alive []*app, now time.Time) string {
	apps := append([]*app(nil), alive...)
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].launched > apps[j].launched })
	parts := make([]string, 0, len(apps))
	for i, a := range limit8(apps) {
		ago := seconds(now.Sub(a.launchedAt))
		part := fmt.Sprintf("%s had been open %s", a.title, ago)
		if i == 0 {
			part = fmt.Sprintf("%s was opened last, %s before", a.title, ago)
		}
		if a.readyAt.IsZero() {
			part += " and was still loading"
		}
		parts = append(parts, part)
	}
	return "What Voicebox saw: " + strings.Join(parts, "; ") + "."
}

func limit8(apps []*app) []*app {
	if len(apps) > 8 {
		return apps[:8]
	}
	return apps
}

func seconds(d time.Duration) string {
	if d < time.Second {
		return "less than a second"
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
}

// memoryText says how much the web process held ("2.6 GB", "196 MB"; "" when not known).
func memoryText(memory int64) string {
	switch {
	case memory <= 0:
		return ""
	case memory >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(memory)/1e9)
	}
	return fmt.Sprintf("%d MB", (memory+5e5)/1e6)
}

func describe(reason string) string {
	switch reason {
	case ReasonHang:
		return "the room stopped responding"
	case ReasonCrash:
		return "the room's web process crashed"
	case ReasonMemory:
		return "the room's web process ran out of memory"
	case ReasonNavigation:
		return "the room was navigated away"
	}
	return "the room was restarted (" + reason + ")"
}

func titlesOf(apps []*app) []string {
	out := make([]string, 0, len(apps))
	for _, a := range apps {
		out = append(out, a.title)
	}
	return out
}

// join lists titles as a person would: "A", "A and B", "A, B and C" (at most 8).
func join(titles []string) string {
	if len(titles) > 8 {
		titles = append(append([]string(nil), titles[:7]...), fmt.Sprintf("%d more", len(titles)-7))
	}
	if len(titles) <= 1 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
