package world

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/schema"
)

// Segment is a share of a run: segment I of N (0 ≤ I < N). The zero value, like 0/1, is the
// whole run.
//
// A segment owns the messages whose Kafka key hashes into it: (murmur2(key) & 0x7fffffff) mod
// N, the function Kafka's default partitioner applies with N partitions ([schema.PartitionForKey]).
// So every message of a key (a cookie's hits, an order's rows) is sent by one segment, in the
// order of the whole run, and when a topic's partition count is a multiple of N, segment I
// writes only to the partitions p with p mod N = I. A message without a key (a malformed
// message whose key is missing) belongs to the segment of the clean message it derives from,
// or to segment 0 when it derives from none.
//
// A segment's messages are a subsequence of the whole run's: the same bytes, keys and
// partitions, in the same relative order. The N segments of a run partition its messages, so
// their union is exactly the unsegmented run. Segments change which messages a process renders
// and sends, never their bytes: the world's version does not depend on them.
type Segment struct {
	I, N int
}

// Whole reports whether s is the whole run (N ≤ 1).
func (s Segment) Whole() bool { return s.N <= 1 }

// Validate says what is wrong with s, if anything, as a *field.Error named segment.
func (s Segment) Validate() error {
	if s.N == 0 && s.I == 0 {
		return nil
	}
	if s.N < 1 || s.I < 0 || s.I >= s.N {
		return s.refused("want I/N with 0 ≤ I < N")
	}
	if s.N > maxSegments {
		return s.refused(fmt.Sprintf("at most %d segments", maxSegments))
	}
	return nil
}

func (s Segment) refused(why string) error {
	return &field.Error{Field: "segment", Value: strconv.Itoa(s.I) + "/" + strconv.Itoa(s.N), Err: errors.New(why)}
}

// maxSegments bounds N: more segments than this share a day's serial model too thinly to pay.
const maxSegments = 1024

// String returns "I/N", or "0/1" for the whole run.
func (s Segment) String() string {
	if s.Whole() {
		return "0/1"
	}
	return strconv.Itoa(s.I) + "/" + strconv.Itoa(s.N)
}

// Set parses "I/N" (pflag.Value).
func (s *Segment) Set(v string) error { return s.UnmarshalText([]byte(v)) }

// Type names the flag's value (pflag.Value).
func (s *Segment) Type() string { return "I/N" }

// MarshalText returns [Segment.String].
func (s Segment) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses "I/N", e.g. "2/4", I and N decimal integers as every integer a user
// types is read (field.Decimal: " 0/2" is refused as " 5" is for a day); "" is the whole
// run, and so is "0/1", but "0/0" is refused (it used to play the whole world).
func (s *Segment) UnmarshalText(b []byte) error {
	v := string(b)
	if v == "" {
		*s = Segment{}
		return nil
	}
	is, ns, ok := strings.Cut(v, "/")
	di, err1 := field.Decimal(is)
	dn, err2 := field.Decimal(ns)
	i, err3 := strconv.Atoi(di)
	n, err4 := strconv.Atoi(dn)
	if !ok || errors.Join(err1, err2, err3, err4) != nil {
		return &field.Error{Field: "segment", Value: strconv.Quote(v), Err: errors.New("want I/N in decimal digits, e.g. 0/4")}
	}
	seg := Segment{I: i, N: n}
	if n == 0 { // the zero Segment is the whole run, but "0/0" names no segment
		return seg.refused("want I/N with 0 ≤ I < N")
	}
	if err := seg.Validate(); err != nil {
		return err
	}
	*s = seg
	return nil
}

// Owner returns the segment of N that owns a message with key (non-nil).
func (s Segment) owner(key []byte) int {
	if s.Whole() {
		return 0
	}
	return int(schema.PartitionForKey(key, int32(s.N)))
}

// OwnsKey reports whether s owns the messages keyed key (non-nil).
func (s Segment) OwnsKey(key []byte) bool { return s.Whole() || s.owner(key) == s.I }

// segShare is a segment's view of a sequence of n clean messages: rank[i] is the number of
// owned messages among 0 … i−1 (len n+1), so message i is owned when rank[i+1] > rank[i].
// A nil segShare owns everything.
type segShare struct {
	rank []int32
}

func (sh *segShare) owns(i int) bool { return sh == nil || sh.rank[i+1] > sh.rank[i] }

// index maps a whole-run message index (0 … n) to the segment's.
func (sh *segShare) index(i int) int {
	if sh == nil {
		return i
	}
	return int(sh.rank[i])
}

// len is the number of owned messages.
func (sh *segShare) len() int { return int(sh.rank[len(sh.rank)-1]) }

// newShare builds a share of n messages from owns.
func newShare(n int, owns func(i int) bool) *segShare {
	sh := &segShare{rank: make([]int32, n+1)}
	r := int32(0)
	for i := range n {
		if owns(i) {
			r++
		}
		sh.rank[i+1] = r
	}
	return sh
}

// shareOf returns s's share of the day's events (nil for the whole run, or a day that is the
// share already). A cookie's visits all
// carry its ClientID, so ownership is decided once per visit.
func (day *Day) shareOf(s Segment) *segShare {
	if s.Whole() || day.seg == s {
		return nil // the day holds the share only (World.SegmentDay)
	}
	owned := make([]bool, len(day.visits))
	var buf [20]byte
	for v := range day.visits {
		owned[v] = s.OwnsKey(strconv.AppendUint(buf[:0], day.visits[v].clientID, 10))
	}
	return newShare(len(day.events), func(i int) bool { return owned[day.events[i].visit] })
}

// shareExtras keeps the extras s owns, renumbering After and Source into the share's clean
// messages (a Source the segment does not own becomes −1). Relative order is kept: an extra
// that went right before clean message j now goes before the first owned message at or after j.
func shareExtras(s Segment, sh *segShare, extras []Extra) []Extra {
	if sh == nil {
		return extras
	}
	out := make([]Extra, 0, len(extras)/max(1, s.N)+1)
	for _, e := range extras {
		var mine bool
		switch {
		case e.Key != nil:
			mine = s.OwnsKey(e.Key)
		case e.Source >= 0:
			mine = sh.owns(e.Source)
		default:
			mine = s.I == 0
		}
		if !mine {
			continue
		}
		if e.Source >= 0 {
			if sh.owns(e.Source) {
				e.Source = sh.index(e.Source)
			} else {
				e.Source = -1
			}
		}
		e.After = sh.index(e.After)
		out = append(out, e)
	}
	return out
}
