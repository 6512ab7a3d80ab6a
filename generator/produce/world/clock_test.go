package world

import (
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// The day's clock writes every second schema.DateTime writes, on the day's dates, the dates
// beside them (midnight and the second before it included) and past them (its fallback).
func TestDayClockIsSchemaDateTime(t *testing.T) {
	for _, d := range []int{-90, -1, 0, 1, 30, 59, 273, 365, 3650, 36500, 49710, 49711} {
		c := newDayClock(d)
		start := dayStartUTC(d)
		var ts []int64
		for x := start - 3*daySeconds; x < start+4*daySeconds; x += 997 {
			ts = append(ts, x)
		}
		for day := floorDiv(start, daySeconds) - 3; day <= floorDiv(start, daySeconds)+4; day++ {
			ts = append(ts, day*daySeconds-1, day*daySeconds, day*daySeconds+1, day*daySeconds+daySeconds/2)
		}
		for _, x := range ts {
			got, want := string(c.append(nil, x)), string(schema.DateTime(x).Append(nil))
			if got != want {
				t.Fatalf("day %d: second %d written %s, want %s", d, x, got, want)
			}
		}
	}
}
