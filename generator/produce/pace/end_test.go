package pace

import (
	"testing"
	"time"
)

// TestEnd: the due time of a shape's last message, of its first messages when counted, and
// no end for a shape that goes on.
func TestEnd(t *testing.T) {
	c, _ := Constant(1000)
	cut, _ := Until(c, 10*time.Second)
	steps, _ := ParseShape("steps:100/s@2s,0/s@1s")
	for _, tc := range []struct {
		name     string
		p        Pacer
		messages uint64
		end      time.Duration
		ok       bool
	}{
		{"constant, 5000 messages", c, 5000, 4999 * time.Millisecond, true},
		{"cut at 10s", cut, 0, 9999 * time.Millisecond, true},
		{"cut at 10s, more messages than it sends", cut, 20000, 9999 * time.Millisecond, true},
		{"steps ending at zero", steps, 0, 1990 * time.Millisecond, true},
	} {
		end, ok := End(tc.p, tc.messages)
		if end != tc.end || ok != tc.ok {
			t.Errorf("%s: End = %v, %v; want %v, %v", tc.name, end, ok, tc.end, tc.ok)
		}
	}
	if end, ok := End(c, 0); ok && end < 100*365*24*time.Hour {
		t.Errorf("a constant rate without a count ends at %v", end)
	}
}
