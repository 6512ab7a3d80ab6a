// Package pace decides when bytes go: rate shapes, model-time replay, and the open-loop send
// loop that holds each message until it is due.
//
// # Two halves
//
// The first half is pure. A [Pacer] is a rate shape ([Constant], [Ramp], [Steps], [Sine],
// optionally cut off by [Until]) written as a function from a message's number to the elapsed
// time at which it is due: Due(n) is the exact inverse of the shape's cumulative count. A
// [Schedule] generalises that to messages that carry a model time: [ByCount] wraps a Pacer,
// [Replay] sends a message whose model time is m past the first message's at m/speed.
// [Scheduled] and [AllowedRate] go the other way, inverting Due: how many messages a shape has
// released by an elapsed time, and its mean rate over an interval (the target a progress line,
// a report or a gauge shows). None of this reads a clock, so it is tested by arithmetic alone,
// and [ParseRate] and [ParseShape] turn flag values such as "20000/s" or
// "ramp:1000/s-20000/s:30s" into these values.
//
// The second half has a clock. A [Runner] applies a Schedule in real time: [Runner.Wait]
// blocks until the next message is due (start + due) and returns its intended send time; [Run]
// is the loop over a sequence of messages built on it. Pacing is open-loop: a message that is
// already late is released at once and its lag is recorded, never absorbed by shifting later
// messages, so a slow sink shows up as lag and the schedule does not drift. An optional
// ceiling ([WithMaxRate]) is a golang.org/x/time/rate limiter on top of the schedule, and
// [Runner.Snapshot] lets a progress reporter in another goroutine read the counters.
//
// Pacing never changes which bytes are sent, only when: message bytes are the generator's
// business and are the same under any schedule.
package pace
