// Package session runs the generator as a whole, the way the command line does, for any Go
// program: one call plays a profile with everything a run owns. A session builds the world
// and the plan (profiles.Profile.NewWorld, profiles.Profile.Plan), opens the sink the settings
// choose (sink.Settings) or, for [Run] without brokers, starts the embedded broker
// (generator/produce/broker) and reads the run back from it afterwards
// (generator/verify/topics), and listens to the run with the one list of observers: the
// measurement (generator/measure, with the followed consumer groups and the thresholds),
// the console (generator/measure/console), Prometheus (generator/measure/prom) and the report
// file. The entry points are [Run] (a profile into its topics), [Play] (a profile into one
// topic or a file: the stand's batch, live and snapshot), [Inject] and [Inventory].
//
// A session takes values, never flags, and names them, in its lines and errors, by the
// caller's names ([Config.Names], field.Names; the library's own words without them). What
// it refuses before anything is read or sent comes as a *field.Refusal, which a command line
// makes a usage error; any other error is a failure of the run.
//
// It sits above the three halves of generator/: it imports produce (world, play, pace, sink,
// broker), measure (the figures, the console, Prometheus, following groups) and
// verify/topics (the read-back of a run into the embedded broker); none of them imports it.
package session
