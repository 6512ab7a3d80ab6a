package topics

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable writes r as a short human table: a row per day (hits) and per snapshot (orders),
// an unexpected row and a total per topic, then the differences (at most [MaxExamples] lines,
// then counts) and a verdict line. Cells count arrived messages; where that differs from what
// was sent the cell reads "arrived≠sent".
func (r *Result) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	e := r.exp
	if e != nil {
		inv, rg := e.Inventory, e.Range
		fmt.Fprintf(ew, "seed %d, scale %g, %s\n", inv.Seed, inv.Scale, rg.Describe())
	}
	fmt.Fprintln(ew, "Cells count what arrived; \"a≠b\": a arrived, b were sent. Classes are the stand's intake's verdict on the arrived bytes.")
	for _, tr := range []*TopicResult{&r.Hits, &r.Orders} {
		fmt.Fprintln(ew)
		tr.writeTable(ew)
	}
	fmt.Fprintln(ew)
	total := 0
	for _, k := range DiffKinds {
		total += r.Differences[k]
	}
	if total > 0 {
		var parts []string
		for _, k := range DiffKinds {
			if n := r.Differences[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
			}
		}
		fmt.Fprintf(ew, "Differences (messages): %s\n", strings.Join(parts, ", "))
		shown := r.examplesToShow()
		for _, d := range shown {
			fmt.Fprintf(ew, "  %s\n", d)
		}
		if rest := total - countOf(shown); rest > 0 {
			fmt.Fprintf(ew, "  … and %d more (by kind above)\n", rest)
		}
	}
	switch {
	case r.OK:
		fmt.Fprintln(ew, "OK: every message sent arrived as often as it was sent, with its key, in its partition, and nothing else; the clean hashes match the inventory.")
	case total == 0:
		fmt.Fprintln(ew, "DIFFERS: the counts above disagree (see the cells marked ≠).")
	default:
		fmt.Fprintln(ew, "DIFFERS: see the differences above.")
	}
	return ew.err
}

// examplesToShow picks at most MaxExamples examples, sharing them fairly between the groups
// (kind, topic, day), in example order.
func (r *Result) examplesToShow() []Difference {
	var groups []exampleGroup
	by := map[exampleGroup][]Difference{}
	for _, d := range r.Examples {
		g := groupOf(&d)
		if _, ok := by[g]; !ok {
			groups = append(groups, g)
		}
		by[g] = append(by[g], d)
	}
	take := map[exampleGroup]int{}
	for n, round := 0, 0; n < MaxExamples; round++ {
		added := false
		for _, g := range groups {
			if round < len(by[g]) && n < MaxExamples {
				take[g]++
				n++
				added = true
			}
		}
		if !added {
			break
		}
	}
	var out []Difference
	for _, g := range groups {
		out = append(out, by[g][:take[g]]...)
	}
	return out
}

func countOf(ds []Difference) int {
	n := 0
	for _, d := range ds {
		n += d.Count
	}
	return n
}

func (tr *TopicResult) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	t := hits
	ods := "ods_events"
	if tr.Topic == TopicOrders {
		t, ods = orders, "ods_orders"
	}
	nparts := max(int(tr.Partitions), len(tr.Got.Partitions), len(tr.Want.Partitions))
	plural := "s"
	if tr.Partitions == 1 {
		plural = ""
	}
	head := []string{fmt.Sprintf("%s (%d partition%s)", tr.Topic, tr.Partitions, plural), "messages", "clean", "redelivered"}
	head = append(head, outcomes[t]...)
	head = append(head, "stg_rows", ods)
	for p := range nparts {
		head = append(head, "p"+strconv.Itoa(p))
	}
	head = append(head, "sha256")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	row := func(label string, want, got Tally, sw, sg Stand, last string) {
		cells := []string{label, cell(got.Messages, want.Messages), cell(got.Clean, want.Clean), cell(got.Redelivered, want.Redelivered)}
		for _, o := range outcomes[t] {
			cells = append(cells, cell(got.Classes[o], want.Classes[o]))
		}
		cells = append(cells, cell(sg.StgRows, sw.StgRows), cell(sg.ODS, sw.ODS))
		for p := range nparts {
			cells = append(cells, cell(at(got.Partitions, p), at(want.Partitions, p)))
		}
		cells = append(cells, last)
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if len(tr.Units) == 0 {
		fmt.Fprintln(tw, "(nothing sent)")
	}
	for _, u := range tr.Units {
		label := fmt.Sprintf("day %d %s", u.Day, u.Date)
		if t == orders {
			label = fmt.Sprintf("snapshot %d %s", u.Day, u.Date)
		}
		sha := "ok " + short(u.SHA256)
		if !u.SHA256OK {
			sha = fmt.Sprintf("DIFFERS: %d of %d clean missing", u.Want.Clean-u.Got.Clean, u.Want.Clean)
		}
		row(label, u.Want, u.Got, u.StandWant, u.StandGot, sha)
	}
	row("unexpected", newTally(t, tr.Partitions), tr.Unexpected, Stand{}, tr.UnexpectedStand, "")
	row("total", tr.Want, tr.Got, tr.StandWant, tr.StandGot, "")
	tw.Flush()
}

func cell(got, want int) string {
	if got == want {
		return strconv.Itoa(got)
	}
	return strconv.Itoa(got) + "≠" + strconv.Itoa(want)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
	return len(p), nil
}
