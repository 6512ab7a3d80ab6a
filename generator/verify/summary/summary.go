// Package summary is the one vocabulary verification speaks, whatever its source: per unit
// kind (a topic's messages, a table's rows or keys) and in total, what was planned, what is
// present of it and what is missing, what is there unplanned, what changed, the copies, and
// what belongs to other runs. Each source fills it from its own, detailed result
// (topics.Result.SummaryCounts, store.Result.SummaryCounts), which it keeps; what a source
// counts that no word holds is kept under a name of its own ([Counts.Extra]), never folded
// into a word.
//
// The words, for every source:
//
//   - planned: the items the range plans for the unit (messages sent, rows or keys the store
//     must hold);
//   - present: the planned items found, whatever else is wrong with them (changed,
//     misclassified, in another partition: their word or extra says so); planned = present +
//     missing, unless an extra (expired) says where the rest went;
//   - missing: the planned items not found;
//   - unplanned: items found that match nothing planned and belong to the range;
//   - changed: planned items found with other contents than planned (counted in present
//     too);
//   - copies: further copies of an item beyond what was planned of it;
//   - other runs: items of a model day or date outside the range: counted, not judged.
//
// A source that cannot tell two words apart says so in its SummaryCounts' comment, and
// counts the item under the word it can tell, never an estimate.
package summary

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/internal/columns"
)

// Counts counts one unit kind, or all of them, in the vocabulary's words. Each count is of
// what its line's Of names (messages, rows, WatchIDs, order_ids).
type Counts struct {
	Planned   int `json:"planned"`
	Present   int `json:"present"`
	Missing   int `json:"missing"`
	Unplanned int `json:"unplanned"`
	Changed   int `json:"changed"`
	Copies    int `json:"copies"`
	OtherRuns int `json:"other_runs"`
	// Extra counts, by name, what the source tells apart and no word holds (a Kafka message
	// in another partition, a raw row removed by the table's retention); the names a source
	// always fills are listed, 0 or not, the others (a table that could not be read) when
	// they apply.
	Extra map[string]int `json:"extra,omitempty"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Planned += o.Planned
	c.Present += o.Present
	c.Missing += o.Missing
	c.Unplanned += o.Unplanned
	c.Changed += o.Changed
	c.Copies += o.Copies
	c.OtherRuns += o.OtherRuns
	for k, n := range o.Extra {
		if c.Extra == nil {
			c.Extra = map[string]int{}
		}
		c.Extra[k] += n
	}
}

// Line is one unit kind: Unit names it ("hits", "events"), Table the table read (for a
// store), Of what one count is ("messages", "rows", "WatchIDs", "order_ids").
type Line struct {
	Unit  string `json:"unit"`
	Table string `json:"table,omitempty"`
	Of    string `json:"of"`
	Counts
}

// Summary is a verification in the vocabulary: Source says what was read ("topics",
// "store"), Lines the unit kinds in the source's order, Total their sum (counts of different
// things, as the lines' Of say: a total of differences, not of one kind of item).
type Summary struct {
	Source string `json:"source"`
	Lines  []Line `json:"lines"`
	Total  Counts `json:"total"`
}

// New is the summary of source's lines, with their total.
func New(source string, lines ...Line) Summary {
	s := Summary{Source: source, Lines: lines}
	for _, l := range lines {
		s.Total.Add(l.Counts)
	}
	return s
}

// Words is the vocabulary's counts of c as text, in the order of the words, then the
// extras that are not 0 by name: "planned 10, present 9, missing 1, unplanned 0, changed 0,
// copies 2, other runs 0; expired 1".
func (c Counts) Words() string {
	var b strings.Builder
	for i, w := range []struct {
		name string
		n    int
	}{{"planned", c.Planned}, {"present", c.Present}, {"missing", c.Missing}, {"unplanned", c.Unplanned},
		{"changed", c.Changed}, {"copies", c.Copies}, {"other runs", c.OtherRuns}} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w.name + " " + strconv.Itoa(w.n))
	}
	sep := "; "
	for _, k := range slices.Sorted(maps.Keys(c.Extra)) {
		if n := c.Extra[k]; n != 0 {
			b.WriteString(sep + strings.ReplaceAll(k, "_", " ") + " " + strconv.Itoa(n))
			sep = ", "
		}
	}
	return b.String()
}

// Head is the heading of [Summary.Write]'s table: the vocabulary's words, in order.
var Head = []string{"summary", "planned", "present", "missing", "unplanned", "changed", "copies", "other runs"}

// Write writes s as a table (cut to fit columns.Width): a row per unit kind, labelled with
// what one count is, then the total; then, when some extra is not 0, a line naming them:
//
//	summary            planned  present  missing  unplanned  changed  copies  other runs
//	hits (messages)    1239     1238     1        1          1        1       1
//	orders (messages)  0        0        0        0          0        0       0
//	total              1239     1238     1        1          1        1       1
//	  extra: hits wrong partition 1
func (s Summary) Write(w io.Writer) error {
	row := func(label string, c Counts) []string {
		r := []string{label}
		for _, n := range []int{c.Planned, c.Present, c.Missing, c.Unplanned, c.Changed, c.Copies, c.OtherRuns} {
			r = append(r, strconv.Itoa(n))
		}
		return r
	}
	t := columns.Table{Head: Head}
	var extra []string
	for _, l := range s.Lines {
		t.Rows = append(t.Rows, row(l.Unit+" ("+l.Of+")", l.Counts))
		for _, k := range slices.Sorted(maps.Keys(l.Extra)) {
			if n := l.Extra[k]; n != 0 {
				extra = append(extra, fmt.Sprintf("%s %s %d", l.Unit, strings.ReplaceAll(k, "_", " "), n))
			}
		}
	}
	t.Rows = append(t.Rows, row("total", s.Total))
	var b strings.Builder
	if err := t.Write(&b, columns.Width); err != nil {
		return err
	}
	if len(extra) > 0 {
		b.WriteString("  " + columns.Wrap("extra: "+strings.Join(extra, ", "), columns.Width-2, "    ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
