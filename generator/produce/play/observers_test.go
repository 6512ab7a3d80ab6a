package play_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// extraLog is an Observer counting extras by topic and class, and the extras its units
// announce.
type extraLog struct {
	unitLog
	byClass   map[string]int
	announced int
}

func (l *extraLog) UnitStarted(u play.Unit) { l.announced += u.Extras; l.unitLog.UnitStarted(u) }
func (l *extraLog) ExtraSent(topic, class string) {
	if l.byClass == nil {
		l.byClass = map[string]int{}
	}
	l.byClass[topic+"/"+class]++
}

// TestObserversFanOut: Observers tells every observer the same units in the same order, and
// ExtraSent too; the extras heard by class add up to the
// extras the units announced, re-sends included (class "").
func TestObserversFanOut(t *testing.T) {
	w := smallWorld(t)
	var plain unitLog
	var extras extraLog
	g := world.Garbage{Rate: 0.05, Redeliver: 0.02}
	_, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 3, Days: 2, Garbage: g}, Hits: "hits", Orders: "orders"},
		discard(t), play.Observers(&plain, nil, &extras))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plain.lines) != fmt.Sprint(extras.lines) || len(plain.lines) != 8 {
		t.Errorf("observers heard different runs:\n%q\n%q", plain.lines, extras.lines)
	}
	total := 0
	for k, n := range extras.byClass {
		total += n
		if n <= 0 {
			t.Errorf("%s: %d", k, n)
		}
	}
	if total != extras.announced || total == 0 {
		t.Errorf("ExtraSent heard %d extras %v, units announced %d", total, extras.byClass, extras.announced)
	}
	for _, k := range []string{"hits/", "orders/", "hits/" + world.GarbageNotAnObject} {
		if extras.byClass[k] == 0 {
			t.Errorf("no extras of %q in %v", k, extras.byClass)
		}
	}
}
