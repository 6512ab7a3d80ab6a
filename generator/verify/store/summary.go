package store

import "github.com/clickgen/clickgen/generator/verify/summary"

// The names of [summary.Counts.Extra] a store result fills: what its tables tell apart that
// no word of the vocabulary holds.
const (
	ExtraExpired           = "expired"            // planned raw rows removed by the table's retention, not lost
	ExtraMisclassified     = KindMisclassified    // planned error rows found under another error_class (present)
	ExtraStale             = KindStale            // planned orders whose FINAL version is an older one (present)
	ExtraNewer             = "newer"              // planned orders superseded by a later run's snapshot (present, not judged)
	ExtraUnplannedVersions = "unplanned_versions" // order versions of the range's dates its snapshots did not carry
	ExtraOnShards          = KindOnShards         // ids held on more than one shard of a cluster
	ExtraLayout            = "layout_problems"    // the table's layout problems, each a difference
	ExtraUnreadable        = "unreadable"         // 1: the table could not be read, so nothing of it is counted
)

// SummaryCounts is r in the vocabulary of verification ([summary]): a line per table read,
// in the order events, raw, errors, orders, order errors, and their total. The marts view is
// judged by class counts, not by items, and has no line; its differences stay in its
// section.
//
// What each table counts, and how its counts map:
//
//   - events (WatchIDs, as FINAL collapses them): the table's own words; present counts the
//     changed ones too. Only the range's dates are read, so other runs is 0. A row beyond a
//     WatchID's first is a copy, whoever planned it (the stand collapses redeliveries), an
//     unplanned WatchID's too.
//   - raw and error tables (rows, matched by the SipHash64 of their bytes): planned counts
//     redeliveries; present counts the misclassified rows (found under another class: an
//     extra); the expired raw rows are an extra, neither present nor missing. A row is
//     known by its bytes only: a changed row cannot be told from a missing one and an
//     unplanned one, and is counted so (changed is 0). Other runs are the rows naming a
//     date outside the range.
//   - orders (order_ids): present is every planned order found, whatever version FINAL
//     keeps (stale, newer and a version of a date its snapshots did not carry are extras);
//     changed counts versions (order_id, snapshot_date) whose values differ; other runs the
//     order_ids whose versions are all of dates outside the range.
//
// A table that could not be read has a line with the extra unreadable and no counts.
func (r *Result) SummaryCounts() summary.Summary {
	var lines []summary.Line
	if e := r.Events; e != nil {
		c := e.Total
		lines = append(lines, tableLine(RoleEvents, &e.TableHead, "WatchIDs", summary.Counts{Planned: c.Planned, Present: c.Present, Missing: c.Missing,
			Unplanned: c.Unplanned, Changed: c.Changed, Copies: c.Copies, Extra: map[string]int{ExtraOnShards: c.OnShards}}))
	}
	for _, d := range []struct {
		role string
		r    *DigestResult
	}{{RoleRaw, r.Raw}, {RoleErrors, r.Errors}} {
		if d.r != nil {
			lines = append(lines, digestLine(d.role, d.r))
		}
	}
	if o := r.Orders; o != nil {
		c := o.Total
		lines = append(lines, tableLine(RoleOrders, &o.TableHead, "order_ids", summary.Counts{Planned: c.Planned, Present: c.Planned - c.Missing,
			Missing: c.Missing, Unplanned: c.Unplanned, Changed: c.Changed, Copies: c.Copies, OtherRuns: c.OtherDates,
			Extra: map[string]int{ExtraStale: c.Stale, ExtraNewer: c.Newer, ExtraUnplannedVersions: c.UnplannedVersions, ExtraOnShards: c.OnShards}}))
	}
	if r.OrderErrors != nil {
		lines = append(lines, digestLine(RoleOrderErrors, r.OrderErrors))
	}
	return summary.New("store", lines...)
}

// digestLine is a raw or error table's line (see [Result.SummaryCounts]).
func digestLine(role string, d *DigestResult) summary.Line {
	c := d.Total
	extra := map[string]int{ExtraMisclassified: c.Misclassified}
	if role == RoleRaw {
		extra = map[string]int{ExtraExpired: c.Expired}
	}
	return tableLine(role, &d.TableHead, "rows", summary.Counts{Planned: c.Planned, Present: c.Present + c.Misclassified, Missing: c.Missing,
		Unplanned: d.Unplanned, Copies: c.Copies, OtherRuns: d.OtherDates, Extra: extra})
}

// tableLine is the line of table h counting of: c, or, when the table could not be read,
// nothing but that; its layout problems are an extra.
func tableLine(role string, h *TableHead, of string, c summary.Counts) summary.Line {
	if h.Error != "" {
		c = summary.Counts{Extra: map[string]int{ExtraUnreadable: 1}}
	}
	if len(h.Problems) > 0 {
		c.Extra[ExtraLayout] = len(h.Problems)
	}
	return summary.Line{Unit: role, Table: h.Table, Of: of, Counts: c}
}
