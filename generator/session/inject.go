package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Malformed are the malformed messages [Inject] sends ([world.World.Inject]): Count messages
// of garbage Class, breaking the contract of Kind (hits or orders; "": the topic's name),
// derived from model day Day.
type Malformed struct {
	Class, Kind string
	Count, Day  int
}

// KindFor checks m and returns the topic kind whose contract the messages break: Kind, or
// else the name of topic (the topic they are sent to) when that is hits or orders. The class
// must be one that kind carries, the count at most [world.MaxInject] and the day one the
// other entry points play (0 … [world.MaxDay]); each refusal names the field and the valid
// values.
func (m Malformed) KindFor(topic string) (string, error) {
	k := m.Kind
	if k == "" {
		k = topic
		if k != world.KindHits && k != world.KindOrders {
			return "", field.Sentence("cannot tell from topic %q which contract to break: give {Kind|kind} hits or {Kind|kind} orders", topic)
		}
	}
	classes := world.GarbageClassesFor(k)
	switch {
	case classes == nil:
		return "", &field.Error{Field: "Kind", Words: "kind", Value: strconv.Quote(k), Err: errors.New("want hits or orders")}
	case m.Class == "":
		return "", field.Sentence("{Class|a class} is required: for %s one of %s", k, strings.Join(classes, ", "))
	case !slices.Contains(world.AllGarbageClasses(), m.Class):
		return "", &unknownClass{&world.UnknownClassError{Name: m.Class}}
	case !slices.Contains(classes, m.Class):
		return "", fmt.Errorf("class %s does not apply to %s: want one of %s", m.Class, k, strings.Join(classes, ", "))
	case m.Count < 1 || m.Count > world.MaxInject:
		return "", &field.Error{Field: "Count", Words: "count", Value: strconv.Itoa(m.Count),
			Err: field.Sentence("want 1 to %d (inject is one message per flush; use {garbage.rate|a garbage rate} for volume)", world.MaxInject)}
	case m.Day < 0:
		return "", &field.Error{Field: "play.day", Value: strconv.Itoa(m.Day), Err: errors.New("model days start at 0")}
	case m.Day > world.MaxDay:
		// The other entry points' bound (world.CheckDays): day 2147483647 panicked, 29105 put
		// 1970 into UTCEventTime beside 2106 in EventDate.
		return "", &field.Error{Field: "play.day", Err: world.CheckDays(m.Day, 1)}
	}
	return k, nil
}

// unknownClass is a class of no topic: its refusal names the classes of each, and
// errors.As finds the world's *UnknownClassError (a caller suggests the nearest).
type unknownClass struct{ *world.UnknownClassError }

func (e *unknownClass) Error() string {
	return fmt.Sprintf("unknown class %q: for hits one of %s; for orders one of %s", e.Name,
		strings.Join(world.HitGarbageClasses, ", "), strings.Join(world.OrderGarbageClasses, ", "))
}

func (e *unknownClass) Unwrap() error { return e.UnknownClassError }

// Check refuses, before anything is read, what [Inject] cannot send to a sink of settings s:
// the settings themselves (sink.Settings.Validate), a Kafka topic not named, and the
// messages: their kind, class, count and day.
func (m Malformed) Check(s *sink.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if _, err := s.TopicOf(world.KindHits); errors.Is(err, sink.ErrNoTopic) { // a topic is named, whichever kind
		return err
	}
	_, err := m.KindFor(s.Topic)
	return err
}

// Inject sends the malformed messages m of the config's world (its profile's, without
// garbage) to the config's sink, one at a time, each flushed before the next, and says on
// Stdout (Stderr when the messages themselves go to stdout) where each landed. A delivery
// failure names the message that was not delivered.
func Inject(ctx context.Context, c Config, m Malformed) (err error) {
	if err := m.Check(&c.Sink); err != nil {
		return field.Refuse(err)
	}
	sk, _ := c.Sink.Kind()
	k, _ := m.KindFor(c.Sink.Topic)
	if err := c.check(sk); err != nil {
		return field.Refuse(err)
	}
	c.armReport()
	defer func() { err = c.rep.Finish(err, c.Names) }()
	p := c.Profile
	p.Garbage = world.Garbage{}
	w, err := c.newWorld(ctx, p, 0)
	if err != nil {
		return err
	}
	extras, err := w.Inject(k, m.Class, m.Day, m.Count)
	if err != nil {
		return err
	}
	topic := c.Sink.Topic
	if topic == "" {
		topic = k
	}
	s, err := c.listen(ctx, map[string]int32{c.Sink.Topic: sink.DefaultTopics()[k]}, listening{total: len(extras), noFollow: true})
	if err != nil {
		return err
	}
	// Data goes to stdout; when the messages themselves do, the lines go to stderr.
	out := c.Stdout
	if sk.Stdout {
		out = c.Stderr
	}
	err = injectAll(ctx, s, out, topic, k, m.Day, extras)
	return s.finish(ctx, play.Result{}, err)
}

// injectAll sends the extras one at a time, flushing each, and prints where each landed.
func injectAll(ctx context.Context, s *session, out io.Writer, topic, kind string, day int, extras []world.Extra) error {
	from := "day " + strconv.Itoa(day)
	if kind == world.KindOrders {
		from = "snapshot " + strconv.Itoa(day)
	}
	return play.Inject(ctx, s.snk, s.obs, topic, day, extras, s.cfg.Sink.FlushTimeout, func(i int, e *world.Extra, part int32) {
		where, key := "", "(none)"
		if part >= 0 {
			where = ", partition " + strconv.Itoa(int(part))
		}
		if e.Key != nil {
			key = string(e.Key)
		}
		fmt.Fprintf(out, "sent %d of %d to %s: %s %s (%s), key %s%s, %d bytes, derived from %s\n",
			i+1, len(extras), topic, kind, e.Class, e.Kind, key, where, len(e.Value), from)
	})
}
