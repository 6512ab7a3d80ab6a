package intake

import (
	"regexp"
	"slices"

	"github.com/clickgen/clickgen/schema"
)

// Error classes, the values of error_class in ods.event_errors and ods.order_errors.
const (
	// NotAnObject: JSONType(raw) != 'Object'. Invalid JSON of any kind (truncated, bad UTF-8,
	// plain text) lands here, and so do valid scalars and arrays.
	NotAnObject = "not_an_object"
	// KeysetMismatch: the sorted key list differs from the sorted contract list (missing,
	// extra, renamed, mis-cased or duplicated key).
	KeysetMismatch = "keyset_mismatch"
	// KeyFieldUnparsed (hits only): WatchID, VisitID, ClientID, EventDate or UTCEventTime
	// parses to NULL.
	KeyFieldUnparsed = "key_field_unparsed"
	// FieldInvalid (orders only): a key has the wrong JSON type or a value the strict intake
	// refuses (pattern, calendar, Decimal(18, 2), UInt64).
	FieldInvalid = "field_invalid"
)

// HitClasses and OrderClasses list the error classes of each topic in the order the intake
// checks them; the first that matches wins.
var (
	HitClasses   = [...]string{NotAnObject, KeysetMismatch, KeyFieldUnparsed}
	OrderClasses = [...]string{NotAnObject, KeysetMismatch, FieldInvalid}
)

// sortedHitKeys and sortedOrderKeys are the contract key lists sorted bytewise, as
// arraySort sorts them.
var (
	sortedHitKeys   = sortedCopy(schema.HitKeys())
	sortedOrderKeys = sortedCopy(schema.OrderKeyNames())
)

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// keysetMatches is arraySort(JSONExtractKeys(raw)) = sorted contract keys, noting whether the
// members are the contract's keys in its order.
func (d *document) keysetMatches(sorted []string) bool {
	if d.ordered == 1 {
		return true // parseOrdered matched the contract's keys in order
	}
	d.ordered = 2
	if inOrder(d.members, sorted) {
		d.ordered = 1
		return true
	}
	return keysetMatches(d.members, sorted)
}

// keysetMatches is arraySort(JSONExtractKeys(raw)) = sorted contract keys.
func keysetMatches(members []member, sorted []string) bool {
	if len(members) != len(sorted) {
		return false
	}
	if inOrder(members, sorted) {
		return true
	}
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.key
	}
	slices.Sort(keys)
	return slices.Equal(keys, sorted)
}

// hitKeys and orderKeys are the contract's keys in wire order.
var (
	hitKeys   = schema.HitKeys()
	orderKeys = schema.OrderKeyNames()
)

// inOrder says whether members are exactly the contract's keys in the contract's order (the
// generator's own messages): then the key set matches without sorting.
func inOrder(members []member, sorted []string) bool {
	keys := hitKeys
	if len(sorted) == len(orderKeys) {
		keys = orderKeys
	}
	if len(keys) != len(members) {
		return false
	}
	for i, m := range members {
		if m.key != keys[i] {
			return false
		}
	}
	return true
}

// The key fields of a hit, by contract position, so their spelling comes from schema.
var (
	hitWatchID      = schema.HitColumns[0].Name
	hitVisitID      = schema.HitColumns[1].Name
	hitClientID     = schema.HitColumns[2].Name
	hitEventDate    = schema.HitColumns[4].Name
	hitUTCEventTime = schema.HitColumns[5].Name
)

// ClassifyHit tells what the stand's strict intake of topic hits does with one Kafka message
// value, exactly as ClickHouse 26.7 evaluates [HitClassSQL] (proven message by message on the
// real engine by this package's tests). row is false when the message produces no row at all: an empty value
// (or a tombstone) yields nothing in a RawBLOB table, so class is "" then. Otherwise class is
// the error_class the row gets in ods.event_errors, or "" when the row goes to ods.event.
//
// The first matching class of [HitClasses] wins. Quirks of the engine that it reproduces: a
// leading UTF-8 BOM and surrounding JSON whitespace are fine; duplicate keys are a keyset
// mismatch; ids accept 1.5 (→ 1), "123", "+1", "1e3", true (→ 1) and even "nan" (→ 2^63) but
// not -1, "abc", null, objects; EventDate accepts any 10-byte DDDD?DD?DD and short forms such
// as "2026-6-3" or "20260603", turning impossible dates into 1970-01-01 or rolling them over
// instead of failing; UTCEventTime must match %Y-%m-%dT%H:%i:%SZ, whose number fields are
// read without a digit check. The function is pure and safe for concurrent use; it never
// panics, whatever the bytes.
func ClassifyHit(raw []byte) (class string, row bool) {
	if len(raw) == 0 {
		return "", false
	}
	d, ok := parseDocument(raw)
	return classifyHitDoc(&d, ok), true
}

func classifyHitDoc(d *document, parsed bool) string {
	if !parsed || d.root.kind != kindObject {
		return NotAnObject
	}
	if !d.keysetMatches(sortedHitKeys) {
		return KeysetMismatch
	}
	for _, k := range [...]string{hitWatchID, hitVisitID, hitClientID} {
		v, _ := d.get(k)
		if _, ok := extractUInt64(v); !ok {
			return KeyFieldUnparsed
		}
	}
	if v, _ := d.get(hitEventDate); !isDate(v) {
		return KeyFieldUnparsed
	}
	if v, _ := d.get(hitUTCEventTime); !parseUTCEventTime(extractString(v)) {
		return KeyFieldUnparsed
	}
	return ""
}

func isDate(v value) bool {
	_, ok := extractDate(v)
	return ok
}

// HitKey is what ods.event's deduplication sees of an accepted hit, with the values
// ClickHouse reads, not the bytes on the wire: "123", 123.9 and true read as WatchIDs 123, 123
// and 1; EventDate "2024-02-30" reads as 2024-03-01.
//
// ods.event is a ReplacingMergeTree ordered by WatchID (stand.md: "key WatchID") and
// partitioned by EventDate (storage.md). Background merges collapse equal WatchIDs only within
// a partition, but count() FINAL collapses them across partitions: measured on 26.7, where
// do_not_merge_across_partitions_select_final = 0 and the partition key is not part of the
// sorting key, so FINAL merges all parts together. The number of rows FINAL leaves is
// therefore the number of distinct WatchIDs; EventDate says in which partition a row lands.
type HitKey struct {
	WatchID   uint64
	EventDate schema.Date // as ClickHouse reads it, 1970-01-01 … 2149-06-06
}

// HitDedupKey returns the [HitKey] of a message the intake accepts into ods.event; ok is false
// for any message [ClassifyHit] does not accept.
func HitDedupKey(raw []byte) (key HitKey, ok bool) {
	if len(raw) == 0 {
		return key, false
	}
	d, parsed := parseDocument(raw)
	if classifyHitDoc(&d, parsed) != "" {
		return key, false
	}
	w, _ := d.get(hitWatchID)
	key.WatchID, _ = extractUInt64(w)
	e, _ := d.get(hitEventDate)
	key.EventDate, _ = extractDate(e)
	return key, true
}

// Order keys by contract position.
var (
	orderID           = schema.OrderKeys[0].Name
	orderUserID       = schema.OrderKeys[1].Name
	orderStatus       = schema.OrderKeys[2].Name
	orderCreatedAt    = schema.OrderKeys[3].Name
	orderUpdatedAt    = schema.OrderKeys[4].Name
	orderItems        = schema.OrderKeys[9].Name
	orderSnapshotDate = schema.OrderKeys[10].Name
	orderMoney        = [...]string{schema.OrderKeys[5].Name, schema.OrderKeys[6].Name, schema.OrderKeys[7].Name, schema.OrderKeys[8].Name}

	reMillis = regexp.MustCompile(schema.PatternMillis)
	reMoney  = regexp.MustCompile(schema.PatternMoney)
	reDate   = regexp.MustCompile(schema.PatternDate)
)

// ClassifyOrder tells what the strict intake of topic orders does with one message value,
// exactly as ClickHouse 26.7 evaluates [OrderClassSQL]; row and class mean what they mean for
// [ClassifyHit], with [FieldInvalid] as the third class. A message is valid when order_id and
// status are JSON strings, user_id is a JSON integer in UInt64's range (-0 included), items is
// a JSON array, created_at and updated_at match YYYY-MM-DDTHH:MM:SS.mmmZ and name a real instant
// of the proleptic Gregorian calendar (any four-digit year, 0000 included), the four money keys
// match ^\d+\.\d{2}$ with at most 16 significant integer digits (Decimal(18, 2)), and
// snapshot_date matches YYYY-MM-DD and names a real day. Status values and money equalities are
// not checked. Pure, concurrency-safe, never panics.
func ClassifyOrder(raw []byte) (class string, row bool) {
	if len(raw) == 0 {
		return "", false
	}
	d, ok := parseDocument(raw)
	return classifyOrderDoc(&d, ok), true
}

func classifyOrderDoc(d *document, parsed bool) string {
	if !parsed || d.root.kind != kindObject {
		return NotAnObject
	}
	if !d.keysetMatches(sortedOrderKeys) {
		return KeysetMismatch
	}
	get := func(k string) value { v, _ := d.get(k); return v }
	if get(orderID).kind != kindString || get(orderStatus).kind != kindString {
		return FieldInvalid
	}
	if u := get(orderUserID); !(u.kind == kindUInt64 || u.kind == kindInt64 && u.i >= 0) {
		return FieldInvalid
	}
	if get(orderItems).kind != kindArray {
		return FieldInvalid
	}
	for _, k := range [...]string{orderCreatedAt, orderUpdatedAt} {
		v := get(k)
		if v.kind != kindString || !reMillis.MatchString(v.s) || !jodaValid(v.s, true) {
			return FieldInvalid
		}
	}
	for _, k := range orderMoney {
		v := get(k)
		if v.kind != kindString || !reMoney.MatchString(v.s) || !decimal18Fits(v.s) {
			return FieldInvalid
		}
	}
	if v := get(orderSnapshotDate); v.kind != kindString || !reDate.MatchString(v.s) || !jodaValid(v.s, false) {
		return FieldInvalid
	}
	return ""
}

// OrderDedupKey returns the order_id of a message the intake accepts into ods.order, the key
// FINAL collapses versions by (ReplacingMergeTree(snapshot_date) ordered by order_id; like
// ods.event, FINAL merges across the toDate(created_at) partitions, so distinct order_ids are
// what it leaves). ok is false for any message [ClassifyOrder] does not accept.
func OrderDedupKey(raw []byte) (id string, ok bool) {
	if len(raw) == 0 {
		return "", false
	}
	d, parsed := parseDocument(raw)
	if classifyOrderDoc(&d, parsed) != "" {
		return "", false
	}
	v, _ := d.get(orderID)
	return v.s, true
}
