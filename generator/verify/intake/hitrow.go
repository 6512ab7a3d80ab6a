package intake

import "github.com/clickgen/clickgen/schema"

// HitRow is what the stand's typed event table holds of an accepted hit's identity, with the
// values ClickHouse reads (as [HitKey]): its WatchID, its ClientID and the EventDate it is
// filed under.
type HitRow struct {
	WatchID, ClientID uint64
	EventDate         schema.Date
}

// AcceptedHitRow returns the [HitRow] of a message the intake accepts into ods.event; ok is
// false for any message [ClassifyHit] does not accept. A store verifier lists a missing or
// unplanned row by it.
func AcceptedHitRow(raw []byte) (row HitRow, ok bool) {
	if len(raw) == 0 {
		return row, false
	}
	d, parsed := parseDocument(raw)
	if classifyHitDoc(&d, parsed) != "" {
		return row, false
	}
	w, _ := d.get(hitWatchID)
	row.WatchID, _ = extractUInt64(w)
	c, _ := d.get(hitClientID)
	row.ClientID, _ = extractUInt64(c)
	e, _ := d.get(hitEventDate)
	row.EventDate, _ = extractDate(e)
	return row, true
}
