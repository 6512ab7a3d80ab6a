// Package play is clickgen's engine: it plays a [Plan] — which model days of which world,
// with what garbage (the plan's [world.Range], the value the inventory and verify take too),
// which topics, paced how, stopped when — into any [sink.Sink], and tells an [Observer] what
// it does. The command line is one caller of it; a Go program that wants clickgen's world in
// its own pipeline is another:
//
//	w, _ := world.NewWorld(world.Params{})             // the canonical world
//	res, err := play.Run(ctx, play.Plan{
//		World: w, Range: world.Range{From: 0, Days: 1}, // day 0 …
//		Hits: "hits",                                   // … its hits, unpaced
//	}, mySink, nil)
//
// # What Run promises
//
//   - The bytes, keys and order of every message are those the world defines: Run only
//     decides when they go. Malformed messages and re-sends of the range's Garbage are added to
//     the clean stream at the positions the world gives them; they never replace a clean
//     message.
//   - Days are sent in order. Unless the plan is paced by a rate shape ([Pacing.ByCount]),
//     the sink is flushed after every day and after every snapshot, with
//     [Plan.FlushTimeout] of its own, so a failure names the unit that is incomplete
//     (the stand's rule: a day is delivered whole or reported as incomplete).
//   - Snapshots (topic [Plan.Orders]) follow the hits of the same run days: run day X sends
//     the snapshot of day X−1. They are not sent when a stop condition cut the hits short.
//   - Stop conditions end a run cleanly, with [Result.Stopped] saying which: a message
//     limit ([Stop.Messages]), a wall-clock duration ([Stop.Duration]), or a rate schedule
//     that ends ([StopSchedule]); an endless plan also stops after the last model day
//     ([StopLastDay]). A cancelled ctx is not a stop condition: Run returns the
//     context's error and the caller decides how to flush and report.
//   - Latency is measured by the sink from each message's intended send time ([sink.Message.Due],
//     set from the pacer), so a sender that falls behind shows in the percentiles.
//
// Run renders on [Plan.Workers] goroutines and sends from the calling goroutine. The
// caller chooses the worker count: a Kafka sink wants a core of its own for compression
// (see [Workers]).
//
// # Observing a run
//
// The [Observer] is called on the sending goroutine, between messages: when a unit (a day's
// hits or a snapshot) starts, when it is done (and flushed), and when a stop condition ends
// the run. Progress between those events is the sink's [sink.Sink.Stats], safe to read from
// any goroutine. [Observers] tells several observers the same run, side by side.
//
// Run prints nothing. What a run reports is collected by observers, each with one job: a
// [Collector] keeps the report's line of every unit (generator/report's report.Unit), and
// [NewReport] reads the sink's counters at the end, so a program has a run's report without
// any console (the command writes it to a file). The command's progress and per-unit lines
// are another observer of its own (cmd/clickgen/internal/console), and its Prometheus series
// another (generator/prom). A rate-paced (stress) run is measured by a [Meter]: interval
// lines and the extended report.
package play
