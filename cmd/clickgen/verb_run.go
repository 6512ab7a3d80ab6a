package main

import (
	"context"
	"time"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/session"
	"github.com/clickgen/clickgen/profiles"
)

const runHelp = `Play a profile: a bundle of world, days, topics, pacing, garbage and a stop condition, kept
in an embedded YAML file ('clickgen profiles list', 'clickgen profiles show NAME') or in your
own (--profile-file). PROFILE defaults to fill. Flags override the profile's fields.

  fill     the stand's starting world: hits of days 0-7, snapshots of days 0-6
  live     one model day paced by model time (x60), then its snapshot of the day before
  stress   model days back to back at --scale, paced by --rate, until --duration/--messages
  garbage  a model day with a high share of every garbage class, opt-in ones included
  smoke    a small controlled batch with exact expected counts (a 10-second check)

Messages go to topics hits and orders. With --brokers (or env KAFKA_BOOTSTRAP_SERVERS) they go
to that cluster, and the profile's expected counts are checked against what it acknowledged.
Without either (or with --embedded, whatever the environment says), clickgen starts an embedded
Kafka-compatible broker in-process, plays into it,
reads everything back and prints, on stdout, what arrived against the inventory: per day and
snapshot, per intake class, per partition (or, for a run cut short by a stop condition, that
every acknowledged message is in the topics). The console says which.

Pacing (--pace): none sends as fast as the sink takes them; replay sends each hit
(t - t0)/--speed after the start, t being its model time; rate releases every message when
the rate shape --rate says (open loop: a late message goes at once and counts its lag; its
latency is measured from its intended time). Shapes:
  20000/s                        constant
  ramp:1000/s-20000/s:30s        linear from 1000/s to 20000/s over 30 s, then 20000/s
  steps:1000/s@10s,5000/s@10s    each rate for its duration, the last one after that
  sine:10000/s±5000/s:60s        10000/s + 5000/s·sin(2πt/60s) ("+-" may replace "±")
A rate run prints a line every --interval (records, records/sec, MB/sec, latency avg/max,
errors, the shape's target) and at the end p50/p95/p99/p99.9/max; --report adds the
intervals to the JSON report, finer for short runs: a sixtieth of --duration in whole
seconds, between 1s and 5s and never longer than --interval (a 15s run: 15 intervals of 1s);
--interval without --duration. With --follow-group each interval also holds, per group, the
pipeline latency (p50, p99, max) of the messages the group took in it and its lag at its end.

--duration bounds the sending: a rate run releases messages for --duration, and when the
brokers cannot keep up, one due before the end but still waiting goes until 1 % later (50 ms
to 1 s) at most; the rest is not sent. What is in flight then is flushed, within
--flush-timeout: the last line splits the total time into the sending and that final flush,
as the report does (stress.sending_s, stress.final_flush_s).

A flag given (or its variable set) overrides the profile's field; a flag not given leaves
the profile's value, which is why no default is shown for those below.`

func runRun(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, true); err != nil {
		return err
	}
	p, segment, err := b.runProfile(ctx)
	if err != nil {
		return err
	}
	if err := b.checkGiven(); err != nil {
		return err
	}
	v := b.v
	c := b.session(sio, p, segment)
	c.Files = withProfile(append(b.sinkPaths(), fileio.Input("--profile-file", v.profileFile), fileio.Input(b.name("world.catalog"), p.World.Catalog)))
	// The first line names where the brokers came from, and, from a variable, the flag that
	// plays into the embedded broker instead.
	c.Interval, c.BrokersFrom = v.interval, b.source("brokers")
	if c.BrokersFrom != "--brokers" {
		c.BrokersFrom += "; --embedded plays into an embedded broker instead"
	}
	if p.Pacing.Mode == profiles.PaceReplay && !b.set("interval") {
		c.ReplayEvery = time.Minute
	}
	return session.Run(ctx, c)
}
