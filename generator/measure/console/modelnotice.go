package console

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// modelNoticeEvery is how often a day's model that keeps going is told again, after the first
// notice a second in.
const modelNoticeEvery = 10 * time.Second

// modelNotice says on w what a day's model is doing when it lasts more than a second
// (world.WithModelProgress): a day is modelled whole before its first message, and at scale
// 1000 that took 53 s and 7.4 GB with nothing on the console but "0 sent" (issue 29 N16). It
// names the day and the phase, how far it is, and for the visitors, who are most of it, about
// how long is left. now is the clock.
type modelNotice struct {
	w   io.Writer
	now func() time.Time

	mu        sync.Mutex
	day       int
	started   time.Time // of the day's model; zero before the first report
	phase     string
	phaseAt   time.Time // when the phase started
	phaseDone int       // Done when the phase was first heard
	next      time.Time // when to tell next
}

// ModelNotice is what hears a day's model progress (world.WithModelProgress) and says it on
// w, now being the clock: nothing in the model's first second, then what it does, how far it
// is and about how long is left, and again every modelNoticeEvery.
func ModelNotice(w io.Writer, now func() time.Time) func(world.ModelProgress) {
	return newModelNotice(w, now).heard
}

func newModelNotice(w io.Writer, now func() time.Time) *modelNotice {
	return &modelNotice{w: w, now: now}
}

// heard takes one progress report.
func (m *modelNotice) heard(p world.ModelProgress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.started.IsZero() || p.Day != m.day {
		m.day, m.started, m.phase, m.next = p.Day, now, "", now.Add(time.Second)
	}
	if p.Phase != m.phase {
		m.phase, m.phaseAt, m.phaseDone = p.Phase, now, p.Done
	}
	last := p.Phase == world.ModelVisitors && p.Done == p.Total
	if now.Before(m.next) || last {
		if last {
			m.started = time.Time{} // the day is built
		}
		return
	}
	first := m.next.Equal(m.started.Add(time.Second))
	m.next = now.Add(modelNoticeEvery)
	took := now.Sub(m.started).Round(time.Second)
	what := fmt.Sprintf("%s %d of %d", p.Phase, p.Done, p.Total)
	if p.Done > m.phaseDone {
		left := time.Duration(float64(now.Sub(m.phaseAt)) * float64(p.Total-p.Done) / float64(p.Done-m.phaseDone))
		what += fmt.Sprintf(", about %v to go", left.Round(time.Second))
	}
	if p.Phase == world.ModelCohorts {
		what += ", then its visitors"
	}
	if first {
		fmt.Fprintf(m.w, "clickgen: modelling day %d, whole before any of it is sent: %s (%v so far; Ctrl-C stops)\n", p.Day, what, took)
		return
	}
	fmt.Fprintf(m.w, "clickgen: modelling day %d: %s (%v so far)\n", p.Day, what, took)
}
