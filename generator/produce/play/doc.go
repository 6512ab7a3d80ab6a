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
//     (the stand's rule: a day is delivered whole or reported as incomplete). Within a day
//     the run holds the rendered batches the sink still refers to: a sink that keeps holds
//     ([sink.HoldKeeper], Kafka) gets each batch back as it acknowledges it, without a
//     flush; any other sink is flushed whenever [FlushWindow] bytes are held.
//   - Snapshots (topic [Plan.Orders]) follow the hits of the same run days: run day X sends
//     the snapshot of day X−1. They are not sent when a stop condition cut the hits short.
//   - Stop conditions end a run cleanly, with [Result.Stopped] saying which: a message
//     limit ([Stop.Messages]), a wall-clock duration ([Stop.Duration]), or a rate schedule
//     that ends ([StopSchedule]); an endless plan also stops after the last model day
//     ([StopLastDay]). A cancelled ctx is not a stop condition: Run returns the
//     context's error and the caller decides how to flush and report.
//   - Latency is measured by the sink from each message's intended send time ([sink.Message.Due],
//     set from the pacer), so a sender that falls behind shows in the percentiles;
//     generator/measure turns it into figures and the report.
//
// Run renders on [Plan.Workers] goroutines and sends from the calling goroutine. The
// caller chooses the worker count: a Kafka sink wants a core of its own for compression
// (see [Workers]).
//
// # Observing a run
//
// Everything that listens to a run is an [Observer] of it, attached the same way: the
// console, the measurement that makes the report (generator/measure), Prometheus
// (generator/measure/prom), the report file, a program's own. The sink only sends; nothing
// wraps it. Every observer hears the run start ([Observer.RunStarted]: the plan, and the
// sink's counters to read from any goroutine) and end ([Observer.RunEnded]); as franz-go's
// plugins implement the kgo hooks they want, an observer implements the hooks of the other
// events it wants: each unit start and end ([HookUnitStarted], [HookUnitDone]), each malformed
// message and re-send ([HookExtraSent]), a stop condition ([HookStopped]), the waits of the
// end ([HookWaiting]), each acknowledgement ([HookAcked], fed by the sink: an event nobody
// hooks costs nothing per message), the sink's Kafka client ([HookKafka]: kprom's metrics)
// and the published end ([HookReport]). The run's events are called on the sending goroutine,
// between messages. [Observers] makes a list of them, and [SinkOpts] what the list needs of
// the sink the caller opens for the run.
//
// Run prints nothing and ends nothing: [Finish] ends a run in the shutdown order. Pacing has
// stopped when Run returns; what an interrupted or failed run queued is flushed with a fresh
// flush timeout (announced to the observers as a wait); then every observer's RunEnded at
// once, with the run's context (so a signal ends their waits), where each does its own end
// work and adds what it measured to the end ([End.Add]); then each [HookReport]'s
// RunReported, which reads those results ([Get]) and publishes them; then the sink is
// closed. No observer reads another, so the order of a list changes nothing but the order
// in which they hear the events. A program that wants the report and no console attaches a
// measure.Run and reads its report after Finish, or the measure.Outcome it added ([Get]) in an
// observer's RunReported.
package play
