package world

import "context"

// The phases of a day's model, as [ModelProgress] names them.
const (
	// ModelCohorts computes the cohorts of the day's audience: the first day of a run needs
	// every cohort of the prehistory (91), a later day one.
	ModelCohorts = "cohorts"
	// ModelVisitors plans the day of each active visitor (cookie): its visits, pages,
	// baskets and purchases.
	ModelVisitors = "visitors"
)

// ModelProgress is how far the model of Day has got: Done of Total items of Phase
// ([ModelCohorts], then [ModelVisitors]). A day is modelled whole before its first message
// is rendered (its events are in time order across every visitor): at scale 1000 that is
// tens of seconds, which a program says rather than look hung.
type ModelProgress struct {
	Day         int
	Phase       string
	Done, Total int
}

type progressKey struct{}

// WithModelProgress returns a copy of ctx whose day models ([World.DayContext],
// [World.SegmentDay], and the days [World.Play] and [World.Units] build, snapshots' included)
// tell f how far they have got: at the start and end of each phase, and every few thousand
// items between. f is called from the goroutine building the day and must return at once.
// It is told counts only: what is built does not depend on it.
func WithModelProgress(ctx context.Context, f func(ModelProgress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// progressOf returns ctx's progress function, or one that does nothing.
func progressOf(ctx context.Context) func(ModelProgress) {
	if f, ok := ctx.Value(progressKey{}).(func(ModelProgress)); ok && f != nil {
		return f
	}
	return func(ModelProgress) {}
}
