package topics

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/summary"
)

// brokenTopics is the canonical fixture's messages with one of each way a topic can differ:
// on hits a clean message of day 1 lost, one of day 0 changed in a byte (its WatchID kept),
// one redelivered by the broker once more, one in the other partition, a message nothing sent
// and one of a model day outside the run; on orders one row changed (same order_id and
// snapshot) and one under another key.
func brokenTopics(t *testing.T, f *fixture) (hm, om []Message) {
	t.Helper()
	hm, om = slices.Clone(f.hitMsgs), slices.Clone(f.orderMsgs)
	lost := len(hm) - 10
	for !isClean(hm[lost]) {
		lost--
	}
	changed := 5000
	for !isClean(hm[changed]) {
		changed++
	}
	v := bytes.Clone(hm[changed].Value)
	j := bytes.Index(v, []byte(`"Referer":"`)) + len(`"Referer":"`)
	v[j] ^= 0x01
	hm[changed].Value = v
	moved := 100
	for !isClean(hm[moved]) {
		moved++
	}
	hm[moved].Partition = 1 - hm[moved].Partition
	copied := hm[200]
	other := hm[300]
	other.Value = bytes.Replace(bytes.Clone(other.Value), []byte(`"EventDate":"`+world.DayDate(0).String()), []byte(`"EventDate":"`+world.DayDate(9).String()), 1)
	if bytes.Equal(other.Value, hm[300].Value) {
		t.Fatal("hit 300 is not of day 0")
	}
	hm = append(slices.Delete(hm, lost, lost+1), copied, other,
		Message{Partition: 0, Offset: 1 << 40, Key: []byte("1234567890"), Value: []byte(`{"WatchID":1}`)})

	ov := bytes.Clone(om[5].Value)
	k := bytes.Index(ov, []byte(`"updated_at":"`)) + len(`"updated_at":"2026-06-01T15:03:4`)
	ov[k] ^= 0x01
	om[5].Value = ov
	om[7].Key = []byte("19700101-0001")
	return hm, om
}

// TestSummaryCounts: a topics result with one of each difference says each in its word of
// the vocabulary, exactly: a lost message is missing, one changed in a byte changed (not
// missing and unplanned), a broker's extra copy a copy, a message nothing sent unplanned, one
// of another model day another run's; the other differences of a present message are extras.
func TestSummaryCounts(t *testing.T) {
	f := canonicalFixture(t)
	hm, om := brokenTopics(t, f)
	r := f.e.Check(hm, om)
	wantDiff(t, r, map[string]int{DiffMissing: 3, DiffUnexpected: 4, DiffWrongPartition: 1, DiffWrongKey: 1}, DiffMissing)
	nh, no := len(f.hitMsgs), len(f.orderMsgs)
	want := summary.Summary{Source: "topics", Lines: []summary.Line{
		{Unit: TopicHits, Of: "messages", Counts: summary.Counts{Planned: nh, Present: nh - 1, Missing: 1, Unplanned: 1, Changed: 1, Copies: 1, OtherRuns: 1,
			Extra: map[string]int{ExtraWrongPartition: 1, ExtraWrongKey: 0, ExtraMisclassified: 0}}},
		{Unit: TopicOrders, Of: "messages", Counts: summary.Counts{Planned: no, Present: no, Changed: 1,
			Extra: map[string]int{ExtraWrongPartition: 0, ExtraWrongKey: 1, ExtraMisclassified: 0}}},
	}, Total: summary.Counts{Planned: nh + no, Present: nh + no - 1, Missing: 1, Unplanned: 1, Changed: 2, Copies: 1, OtherRuns: 1,
		Extra: map[string]int{ExtraWrongPartition: 1, ExtraWrongKey: 1, ExtraMisclassified: 0}}}
	if got := r.SummaryCounts(); mustJSON(t, got) != mustJSON(t, want) {
		t.Errorf("SummaryCounts =\n%s\nwant\n%s\n%s", mustJSON(t, got), mustJSON(t, want), table(t, r))
	}

	// The clean run: everything planned present, nothing else.
	r = f.e.Check(f.hitMsgs, f.orderMsgs)
	s := r.SummaryCounts()
	if tot := s.Total; tot.Planned != nh+no || tot.Present != tot.Planned || tot.Missing+tot.Unplanned+tot.Changed+tot.Copies+tot.OtherRuns != 0 {
		t.Errorf("clean run: %s; want all %d present and nothing else", tot.Words(), nh+no)
	}
	// Nothing arrived: all missing; a message whose changed bytes arrived twice is changed
	// once and unplanned once (its id is one message's).
	r = f.e.Check(nil, nil)
	if tot := r.SummaryCounts().Total; tot.Missing != nh+no || tot.Present != 0 || tot.Changed != 0 {
		t.Errorf("nothing arrived: %s; want %d missing", tot.Words(), nh+no)
	}
	twice := slices.Clone(f.hitMsgs)
	i := 5000
	for !isClean(twice[i]) {
		i++
	}
	v := bytes.Clone(twice[i].Value)
	v[bytes.Index(v, []byte(`"Referer":"`))+len(`"Referer":"`)] ^= 0x01
	twice[i].Value = v
	twice = append(twice, twice[i])
	if h := f.e.Check(twice, f.orderMsgs).SummaryCounts().Lines[0]; h.Changed != 1 || h.Missing != 0 || h.Unplanned != 1 || h.Copies != 0 {
		t.Errorf("a changed message twice: %s; want changed 1, unplanned 1", h.Words())
	}
}

// TestSummaryJSON: the summary marshals in the vocabulary's words, every word present.
func TestSummaryJSON(t *testing.T) {
	f := canonicalFixture(t)
	b, err := json.Marshal(f.e.Check(f.hitMsgs, f.orderMsgs).SummaryCounts())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"source":"topics"`, `"unit":"hits"`, `"of":"messages"`, `"planned":`, `"present":`, `"missing":`, `"unplanned":`,
		`"changed":`, `"copies":`, `"other_runs":`, `"total":`} {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("summary JSON lacks %s: %s", w, b)
		}
	}
}
