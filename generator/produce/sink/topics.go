package sink

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Created is a topic [Kafka.EnsureTopics] created, with the partitions and replication
// factor the brokers gave it.
type Created struct {
	Topic       string
	Partitions  int32
	Replication int16
}

// LeaderWait is [Kafka.EnsureTopics] waiting, a second after it created Topics, until every
// broker knows a leader for each of their partitions: Pending partitions, counted on the
// broker that knows fewest, have none yet; it waits at most Bound in all.
type LeaderWait struct {
	Topics  []string
	Pending int
	Bound   time.Duration
}

// OnCreate sets the functions [Kafka.EnsureTopics] tells what it does when it creates topics,
// overriding the default of telling nobody: created hears each topic it created, waiting
// (once) that the wait for their leaders has lasted a second, and how long it lasts at most.
// Either may be nil. They are called from EnsureTopics' goroutine and must return at once.
func OnCreate(created func(Created), waiting func(LeaderWait)) Opt {
	return opt(func(c *cfg) { c.onCreated, c.onLeaderWait = created, waiting })
}

// leaderPoll is how often the brokers are asked whether created topics have leaders.
const leaderPoll = 100 * time.Millisecond

// LeaderlessError is [Kafka.EnsureTopics]' failure when the topics it created (Topics) still
// had Pending partitions without a leader on some broker after Waited.
type LeaderlessError struct {
	Topics  []string
	Pending int
	Waited  time.Duration
	Brokers string
	Err     error // the last error asking, if any
}

func (e *LeaderlessError) Error() string {
	s := fmt.Sprintf("sink: created topic(s) %s on %s, but %d of their partitions had no leader on every broker within %v",
		strings.Join(e.Topics, ", "), e.Brokers, e.Pending, e.Waited)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *LeaderlessError) Unwrap() error { return e.Err }

// waitLeaders waits until every broker, asked itself, knows each of topics with the partitions
// of want, each with a leader: a producer that asks a broker which does not know a topic yet
// is told UNKNOWN_TOPIC_OR_PARTITION, and after a few such answers fails its records (a whole
// batch failed once in eleven runs on a three-node cluster). It waits at most the connect
// timeout, or until ctx ends; after a second it tells the function of [OnCreate], from a
// timer, so a broker that does not answer at all is told of too.
func (k *Kafka) waitLeaders(ctx context.Context, topics []string, want map[string]int32) error {
	bound := k.cfg.connectTimeout
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var pending atomic.Int64
	for _, t := range topics {
		pending.Add(int64(want[t]))
	}
	var notice func()
	if f := k.cfg.onLeaderWait; f != nil {
		notice = func() { f(LeaderWait{Topics: topics, Pending: int(pending.Load()), Bound: bound}) }
	}
	defer noticeAfter(time.Second, notice)() // the notice is said before what follows the wait
	poll := time.NewTicker(leaderPoll)
	defer poll.Stop()
	start := time.Now()
	for {
		n, err := k.leaderless(wctx, topics, want)
		pending.Store(int64(n))
		if err == nil && n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sink: waiting for the leaders of created topic(s) %s: %w", strings.Join(topics, ", "), context.Cause(ctx))
		case <-wctx.Done():
			return &LeaderlessError{Topics: topics, Pending: n, Waited: time.Since(start).Round(time.Millisecond), Brokers: k.brokerList(), Err: err}
		case <-poll.C:
		}
	}
}

// leaderless asks every broker of the cluster for topics and returns how many of their
// partitions (by want) lack a leader on the broker that knows fewest; a topic a broker does
// not know counts all its partitions. An error is a broker that did not answer (counted as
// knowing nothing).
func (k *Kafka) leaderless(ctx context.Context, topics []string, want map[string]int32) (int, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	all := 0
	for _, t := range topics {
		all += int(want[t])
	}
	first, err := req.RequestWith(ctx, k.cl)
	if err != nil {
		return all, err
	}
	worst := missingLeaders(first, topics, want)
	var lastErr error
	for _, b := range first.Brokers {
		resp, err := k.cl.Broker(int(b.NodeID)).Request(ctx, req)
		if err != nil {
			worst, lastErr = all, err
			continue
		}
		worst = max(worst, missingLeaders(resp.(*kmsg.MetadataResponse), topics, want))
	}
	return worst, lastErr
}

// missingLeaders counts the partitions of topics (by want) that resp does not show with a
// leader.
func missingLeaders(resp *kmsg.MetadataResponse, topics []string, want map[string]int32) int {
	n := 0
	for _, t := range topics {
		i := slices.IndexFunc(resp.Topics, func(rt kmsg.MetadataResponseTopic) bool { return rt.Topic != nil && *rt.Topic == t })
		if i < 0 || kerr.ErrorForCode(resp.Topics[i].ErrorCode) != nil {
			n += int(want[t])
			continue
		}
		led := 0
		for _, p := range resp.Topics[i].Partitions {
			if p.ErrorCode == 0 && p.Leader >= 0 {
				led++
			}
		}
		n += max(0, int(want[t])-led)
	}
	return n
}
