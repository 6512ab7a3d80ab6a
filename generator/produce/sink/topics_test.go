package sink_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	. "github.com/clickgen/clickgen/generator/produce/sink"
)

// leaderlessCluster is a three-broker kfake cluster whose brokers, once a topic has been
// created, answer every metadata request naming it with LEADER_NOT_AVAILABLE until release
// is called: a real cluster's brokers learn of a new topic and elect its leaders on their
// own schedule. With hang, they do not answer such a request at all until then (an
// unresponsive broker). asked counts the requests so answered.
type leaderlessCluster struct {
	addrs   []string
	asked   atomic.Int64
	release func()
}

func newLeaderlessCluster(t *testing.T, topic string) *leaderlessCluster {
	return newStalledCluster(t, topic, false)
}

func newStalledCluster(t *testing.T, topic string, hang bool) *leaderlessCluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	lc := &leaderlessCluster{addrs: c.ListenAddrs()}
	cl, err := kgo.NewClient(kgo.SeedBrokers(lc.addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	real, err := kmsg.NewPtrMetadataRequest().RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	var created, released atomic.Bool
	wake := make(chan struct{})
	var once sync.Once
	lc.release = func() { released.Store(true); once.Do(func() { close(wake) }) }
	t.Cleanup(lc.release)
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		created.Store(true)
		return nil, nil, false // observed only: the cluster creates it
	})
	c.ControlKey(int16(kmsg.Metadata), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.MetadataRequest)
		if !created.Load() || released.Load() || !slices.ContainsFunc(req.Topics, func(rt kmsg.MetadataRequestTopic) bool {
			return rt.Topic != nil && *rt.Topic == topic
		}) {
			return nil, nil, false
		}
		lc.asked.Add(1)
		if hang {
			c.SleepControl(func() { <-wake })
		}
		resp := req.ResponseKind().(*kmsg.MetadataResponse)
		resp.Brokers, resp.ControllerID = real.Brokers, real.ControllerID
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = kmsg.StringPtr(topic)
		rt.ErrorCode = kerr.LeaderNotAvailable.Code
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	return lc
}

// heard records what EnsureTopics tells OnCreate's functions.
type heard struct {
	mu      sync.Mutex
	created []Created
	waits   []LeaderWait
	waiting chan struct{} // closed at the first wait notice
}

func (h *heard) opt() Opt {
	h.waiting = make(chan struct{})
	return OnCreate(func(c Created) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.created = append(h.created, c)
	}, func(w LeaderWait) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.waits = append(h.waits, w)
		if len(h.waits) == 1 {
			close(h.waiting)
		}
	})
}

// TestCreatedTopicsWaitForLeaders is issue 29 N6: --create-topics on a three-node cluster
// failed a whole batch once in eleven runs with UNKNOWN_TOPIC_OR_PARTITION, the topics used
// before every broker knew a leader for each partition. EnsureTopics says what it created,
// then asks every broker until each knows a leader for every partition; a wait past a second
// is told, with its bound.
func TestCreatedTopicsWaitForLeaders(t *testing.T) {
	lc := newLeaderlessCluster(t, "hits")
	var h heard
	k := newKafka(t, lc.addrs, ConnectTimeout(30*time.Second), h.opt())
	go func() {
		<-h.waiting // the wait has lasted a second: the leaders come
		lc.release()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := k.EnsureTopics(context.Background(), true, map[string]int32{"hits": 2})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("EnsureTopics: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("EnsureTopics still waits 60 s later")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.created) != 1 || h.created[0].Topic != "hits" || h.created[0].Partitions != 2 || h.created[0].Replication < 1 {
		t.Errorf("created %+v, want hits with 2 partitions and its replication factor", h.created)
	}
	if len(h.waits) != 1 || !slices.Equal(h.waits[0].Topics, []string{"hits"}) || h.waits[0].Pending != 2 || h.waits[0].Bound != 30*time.Second {
		t.Errorf("wait notices %+v, want one for hits' 2 partitions, bound 30s", h.waits)
	}
	if n := lc.asked.Load(); n < 3 {
		t.Errorf("%d metadata requests answered without leaders, want at least the three brokers asked", n)
	}
	// Existing topics are neither announced nor waited for.
	h.created, h.waits = nil, nil
	if _, err := k.EnsureTopics(context.Background(), true, map[string]int32{"hits": 2}); err != nil || len(h.created)+len(h.waits) != 0 {
		t.Errorf("EnsureTopics of an existing topic = %v, heard %+v %+v; want nothing", err, h.created, h.waits)
	}
}

// TestLeaderWaitBounded: leaders that never come end the wait at the connect timeout, a
// *LeaderlessError naming the topics; a cancelled context ends it at once.
func TestLeaderWaitBounded(t *testing.T) {
	lc := newLeaderlessCluster(t, "hits")
	var h heard
	k := newKafka(t, lc.addrs, ConnectTimeout(1500*time.Millisecond), h.opt())
	_, err := k.EnsureTopics(context.Background(), true, map[string]int32{"hits": 2})
	var le *LeaderlessError
	if !errors.As(err, &le) || !slices.Equal(le.Topics, []string{"hits"}) || le.Pending != 2 || le.Waited < 1500*time.Millisecond {
		t.Errorf("EnsureTopics with leaders never elected = %v, want a *LeaderlessError for hits' 2 partitions after 1.5s", err)
	}
	if len(h.waits) != 1 || h.waits[0].Bound != 1500*time.Millisecond {
		t.Errorf("wait notices %+v, want one, bound 1.5s", h.waits)
	}

	lc = newLeaderlessCluster(t, "orders")
	h = heard{}
	k = newKafka(t, lc.addrs, ConnectTimeout(time.Minute), h.opt())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-h.waiting; cancel() }()
	done := make(chan error, 1)
	go func() {
		_, err := k.EnsureTopics(ctx, true, map[string]int32{"orders": 1})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("EnsureTopics cancelled while waiting = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled wait for leaders still waits 30 s later")
	}

	// Brokers that do not answer at all: the wait is told all the same after a second, with
	// every partition pending, and the first signal ends it.
	lc = newStalledCluster(t, "hits", true)
	h = heard{}
	k = newKafka(t, lc.addrs, ConnectTimeout(time.Minute), h.opt())
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-h.waiting; cancel() }()
	go func() {
		_, err := k.EnsureTopics(ctx, true, map[string]int32{"hits": 2})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || len(h.waits) != 1 || h.waits[0].Pending != 2 || h.waits[0].Bound != time.Minute {
			t.Errorf("EnsureTopics against brokers that never answer, cancelled at the notice = %v, notices %+v; want context.Canceled after one notice of 2 pending, bound 1m", err, h.waits)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a wait on brokers that never answer was neither told nor ended within 30 s")
	}
}
