package world

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// Garbage classes, named by what the stand's intake records (stand.md). accepted_bad and
// vanishing are opt-in: they are used only when a [Mix] names them. Everything else the
// generator knows of a class is its row of the garbage table (garbageClasses).
const (
	GarbageNotAnObject    = intake.NotAnObject
	GarbageKeysetMismatch = intake.KeysetMismatch
	GarbageKeyUnparsed    = intake.KeyFieldUnparsed // hits only
	GarbageAcceptedBad    = "accepted_bad"          // hits only: lands in ods.event, silently wrong
	GarbageVanishing      = "vanishing"             // hits only: an empty value or a tombstone, no row anywhere
	GarbageFieldInvalid   = intake.FieldInvalid     // orders only
)

// The topic kinds: what a topic carries, and so which garbage classes apply to it.
const (
	KindHits   = "hits"
	KindOrders = "orders"
)

// garbageClass is one row of the garbage table: everything the generator knows of a class of
// malformed message. Adding a class is adding a row (and its makers): the class lists, the
// default mix, the validation of a mix, the inventory's counts and reconciliation's promises
// are all read from the table.
type garbageClass struct {
	// name spells the class in the inventory, a Mix, --class and reports.
	name string
	// weight is the class's weight in the default mix (a nil Mix); 0 makes it opt-in, made only
	// when a Mix names it.
	weight int
	// outcome is what the stand's intake does with every message of the class, on whichever
	// topic carries it: intake.Accepted (a row of ods.event, with a fresh WatchID), one of the
	// topic's error classes (intake.HitClasses, intake.OrderClasses), or intake.NoRow.
	outcome string
	// hit and order make one message of the class for topic hits and topic orders; nil when
	// the topic does not carry the class. A maker's draws from its stream, and their order,
	// are part of the world's bytes: change them only with a version bump.
	hit   hitMaker
	order maker
}

// maker derives one malformed message from a clean one and returns what exactly is wrong with
// it (Extra.Kind) and its bytes (nil: a tombstone).
type maker func(m defect) (kind string, value []byte)

// hitMaker is a maker of malformed hits: it makes every draw of its message, and returns its
// bytes, or the edit of the clean event that makes them ([defect.applyHit], which draws
// nothing). A day's edits are so applied after every draw, in the order of the events they
// derive from: rendered in that order, events find their visits and pages in the cache.
type hitMaker func(m defect) (kind string, value []byte, edit hitEdit)

// hitEdit is how a malformed hit is made of its clean event, under its fresh WatchID.
type hitEdit struct {
	op   hitOp
	k    int        // editSet: the field
	raw  string     // editSet: its new raw value
	kind string     // editTime: the respelling, a kind of key_field_unparsed
	ks   keysetEdit // editKeyset
}

type hitOp uint8

const (
	editNone   hitOp = iota // the maker returned the bytes
	editSet                 // field k's value becomes raw
	editTime                // UTCEventTime respelled as kind
	editDate                // EventDate respelled as accepted_bad does ([acceptedBadDate])
	editKeyset              // ks
	editArray               // the object in an array
)

// defect is what a maker derives a malformed message from.
type defect struct {
	s     *stream         // the DEFECTS substream, positioned for this message
	faker *gofakeit.Faker // seeded from s
	// clean is the clean message: a hit's event bytes, or an order row (never nil: a snapshot
	// without rows gets a plausible one, see orderDefect). A hit's may instead be given as
	// event source of from, rendered when the maker first reads it ([defect.event]): a maker
	// that never does costs no rendering.
	clean  []byte
	from   *Day
	source int
	fresh  uint64 // hits: the WatchID of the malformed copy, unique in its day
	day    int    // orders: the day of the snapshot
	// sc, if not nil, is memory the maker may reuse from one message to the next (it never
	// returns bytes that alias it, but for the messages it carves out of sc.out). It is
	// required with from.
	sc *defectScratch
}

// defectScratch is the memory one maker of malformed messages reuses from message to message.
type defectScratch struct {
	out []byte // the makers' messages, carved one after the other
	// chunks, if not nil, makes out of memory used again ([freeChunks]) and records each
	// piece of it, to be handed back once nothing refers to the messages.
	chunks *[][]byte
	// marks are where the parts of the clean event begin (when it was rendered for this
	// message), and shift how far they moved in its object (by the fresh WatchID's length).
	marks  eventMarks
	marked bool
	shift  int
	// dateOf and date remember accepted_bad's spelling of the last EventDate it was asked for:
	// a day's events share one date.
	dateOf []byte
	date   dateSpelling
}

// garbageClasses is the garbage table, in the order the inventory lists classes. The order of
// each topic's classes (the rows with its maker) is also the order of its pick table, so a row
// is appended, never inserted, unless the world's version changes.
var garbageClasses = [...]garbageClass{
	{name: GarbageNotAnObject, weight: 1, outcome: intake.NotAnObject, hit: hitNotAnObject, order: orderNotAnObject},
	{name: GarbageKeysetMismatch, weight: 1, outcome: intake.KeysetMismatch, hit: hitKeysetMismatch, order: orderKeysetMismatch},
	{name: GarbageKeyUnparsed, weight: 1, outcome: intake.KeyFieldUnparsed, hit: hitKeyUnparsed},
	{name: GarbageAcceptedBad, outcome: intake.Accepted, hit: hitAcceptedBad},
	{name: GarbageVanishing, outcome: intake.NoRow, hit: hitVanishing},
	{name: GarbageFieldInvalid, weight: 1, outcome: intake.FieldInvalid, order: orderFieldInvalid},
}

// HitGarbageClasses and OrderGarbageClasses are the classes each topic can carry, in the
// order the inventory lists them: the rows of the garbage table with a maker for the topic.
var (
	HitGarbageClasses   = classNames(func(c *garbageClass) bool { return c.hit != nil })
	OrderGarbageClasses = classNames(func(c *garbageClass) bool { return c.order != nil })
	// defaultMix weighs the classes that are not opt-in.
	defaultMix = func() map[string]int {
		m := map[string]int{}
		for _, c := range garbageClasses {
			if c.weight > 0 {
				m[c.name] = c.weight
			}
		}
		return m
	}()
)

// classNames lists the names of the rows keep keeps, in table order.
func classNames(keep func(*garbageClass) bool) []string {
	var out []string
	for i := range garbageClasses {
		if keep(&garbageClasses[i]) {
			out = append(out, garbageClasses[i].name)
		}
	}
	return out
}

// AllGarbageClasses lists every class name once, in table order (hits' first).
func AllGarbageClasses() []string { return classNames(func(*garbageClass) bool { return true }) }

// GarbageClassesFor returns the garbage classes topic kind ([KindHits] or [KindOrders]) can
// carry, nil for an unknown kind.
func GarbageClassesFor(kind string) []string {
	switch kind {
	case KindHits:
		return slices.Clone(HitGarbageClasses)
	case KindOrders:
		return slices.Clone(OrderGarbageClasses)
	}
	return nil
}

// garbageClassNamed returns the row of class, nil for a name that is no class.
func garbageClassNamed(class string) *garbageClass {
	for i := range garbageClasses {
		if garbageClasses[i].name == class {
			return &garbageClasses[i]
		}
	}
	return nil
}

// GarbageOutcome says what the stand's intake of a topic of kind ([KindHits] or [KindOrders])
// does with a message the generator made as class: "" is a clean message or a redelivery, any
// other a garbage class. outcome is one of [intake.HitOutcomes] or [intake.OrderOutcomes]; ok
// is false when the topic carries no such class.
//
// This is the one statement of the mapping (the garbage table's): the inventory counts what
// the stand must hold with it, and reconciliation holds the intake's verdict on the sent bytes
// to it.
func GarbageOutcome(kind, class string) (outcome string, ok bool) {
	if kind != KindHits && kind != KindOrders {
		return "", false
	}
	if class == "" {
		return intake.Accepted, true
	}
	c := garbageClassNamed(class)
	if c == nil || (kind == KindHits && c.hit == nil) || (kind == KindOrders && c.order == nil) {
		return "", false
	}
	return c.outcome, true
}

// hitDefect derives a malformed hit of class from the clean event bytes, with WatchID fresh.
func hitDefect(s *stream, faker *gofakeit.Faker, class string, clean []byte, fresh uint64) (string, []byte) {
	m := defect{s: s, faker: faker, clean: clean, fresh: fresh}
	kind, value, edit := makeHit(class, m)
	if edit.op != editNone {
		kind, value = m.applyHit(kind, edit)
	}
	return kind, value
}

// makeHit makes a malformed hit of class from m, or the edit of its clean event that does.
func makeHit(class string, m defect) (string, []byte, hitEdit) {
	c := garbageClassNamed(class)
	if c == nil || c.hit == nil {
		panic("generator: hit garbage class " + class)
	}
	return c.hit(m)
}

// applyHit makes the malformed hit of kind that edit makes of m's clean event, under its fresh
// WatchID: its kind (accepted_bad's date respelling names its own) and its bytes. It draws
// nothing.
func (m defect) applyHit(kind string, edit hitEdit) (string, []byte) {
	obj := m.hitObject()
	switch edit.op {
	case editSet:
		return kind, m.setHitField(obj, edit.k, edit.raw)
	case editTime:
		_, val, end := m.locate(obj, 5)
		t := string(bytes.Trim(obj[val:end], `"`)) // 2026-06-01T12:34:56Z
		switch edit.kind {
		case "time_fraction":
			t = strings.TrimSuffix(t, "Z") + ".123Z"
		case "time_offset":
			t = strings.TrimSuffix(t, "Z") + "+00:00"
		default:
			t = strings.Replace(strings.TrimSuffix(t, "Z"), "T", " ", 1)
		}
		return kind, m.replace(obj, val, end, []byte(quoted(t)))
	case editDate:
		// The kind was drawn as impossible_date; the value depends on the event's own date only.
		_, val, end := m.locate(obj, 4)
		date := m.acceptedBadDate(obj[val:end])
		return date.name, m.replace(obj, val, end, []byte(date.raw))
	case editKeyset:
		return kind, edit.ks.applyToHit(m, obj)
	case editArray:
		if n := len(obj); m.inRoom(obj) && cap(obj) >= n+2 { // in place: obj moves by one
			obj = obj[:n+2]
			copy(obj[1:], obj[:n])
			obj[0], obj[n+1] = '[', ']'
			return kind, m.keep(obj)
		}
		return kind, append(append(append(make([]byte, 0, len(obj)+2), '['), obj...), ']')
	}
	panic("generator: no edit of a malformed hit")
}

// orderDefect derives a malformed order row of class from a clean row of snapshot d (nil when
// the snapshot has none).
func orderDefect(s *stream, faker *gofakeit.Faker, class string, clean []byte, d int) (string, []byte) {
	c := garbageClassNamed(class)
	if c == nil || c.order == nil {
		panic("generator: order garbage class " + class)
	}
	if clean == nil {
		// An empty snapshot has no row to derive from: start from a plausible one.
		o := schema.Order{OrderID: orderID(d, 1), UserID: 1, Status: schema.StatusCreated, Items: []schema.OrderItem{{SKU: "HOME-0001", Qty: 1, Price: 100}},
			ItemsTotal: 100, Total: 100, SnapshotDate: DayDate(d), CreatedAt: snapshotEdge(d) - 1000, UpdatedAt: snapshotEdge(d) - 1000}
		clean, _ = schema.AppendOrder(nil, &o)
	}
	return c.order(defect{s: s, faker: faker, clean: clean, day: d})
}

// hitKeys and orderKeys are the contract's keys, in order, for the makers, which only read
// them (a copy per message cost an allocation).
var (
	hitKeys   = schema.HitKeys()
	orderKeys = schema.OrderKeyNames()
)

// event returns m's clean message (m.clean: a hit given by its day has none).
func (m defect) event() []byte { return m.clean }

// hitRoom is the memory before a clean event rendered for a maker: room for a longer WatchID.
const hitRoom = 32

// hitObject returns m's clean event with the fresh WatchID in place of its own: every
// malformed hit derived from an event starts so. A hit given by its day is rendered straight
// into m's memory for messages, where the makers edit it in place ([defect.replace]) and keep
// it: splitting the event into its 47 fields and joining them back cost two thirds of a
// malformed hit, and copying the event twice a tenth.
func (m defect) hitObject() []byte {
	marker := hitKeyset.markers[0]
	var digits [20]byte
	prefix := strconv.AppendUint(append(append(digits[:0:0], '{'), marker...), m.fresh, 10)
	if m.from == nil { // given bytes: a copy, no marks
		if m.sc != nil {
			m.sc.marked = false
		}
		comma := m.watchIDEnd(m.clean)
		obj := make([]byte, 0, len(prefix)+len(m.clean)-comma)
		return append(append(obj, prefix...), m.clean[comma:]...)
	}
	b := m.room(8 << 10)[:hitRoom] // a purchase of 16 lines is about 4 KB
	m.sc.marks = eventMarks{}
	b = m.from.appendEvent(b, m.source, nil, nil, &m.sc.marks)
	m.sc.marked = true
	comma := hitRoom + m.watchIDEnd(b[hitRoom:])
	start := comma - len(prefix) // ≥ 0: hitRoom ≥ 20 digits + 1 − 1 digit
	copy(b[start:], prefix)
	m.sc.shift = hitRoom - start
	return b[start:]
}

// watchIDEnd returns the offset of the comma after clean event's WatchID.
func (m defect) watchIDEnd(clean []byte) int {
	comma := bytes.IndexByte(clean, ',') // WatchID's value is digits
	if len(clean) == 0 || clean[0] != '{' || !bytes.HasPrefix(clean[1:], hitKeyset.markers[0]) || comma < 0 {
		panic("generator: a clean event that does not start with its WatchID")
	}
	return comma
}

// locate finds field k of hit object obj ([keyset.locate]) from the mark of its part in the
// clean event, when it was rendered for this message.
func (m defect) locate(obj []byte, k int) (key, val, end int) {
	from := 0
	if m.sc != nil && m.sc.marked && k > 0 {
		if at := m.sc.marks.before(k); at > 0 {
			from = at + m.sc.shift
		}
	}
	return hitKeyset.locate(obj, k, from)
}

// setHitField returns hit object obj with field k's value replaced by raw.
func (m defect) setHitField(obj []byte, k int, raw string) []byte {
	_, val, end := m.locate(obj, k)
	return m.replace(obj, val, end, []byte(raw))
}

// hitNotAnObject: the event's root is not a JSON object, or not JSON at all.
func hitNotAnObject(m defect) (string, []byte, hitEdit) {
	kind, value, array := notAnObject(m, m.hitObject)
	if array {
		return kind, nil, hitEdit{op: editArray}
	}
	return kind, value, hitEdit{}
}

// hitKeysetMismatch: the event's key set differs from the contract's.
func hitKeysetMismatch(m defect) (string, []byte, hitEdit) {
	e := drawKeysetEdit(m.s, m.faker, hitKeys)
	if e.kind == "empty_object" {
		return e.kind, []byte("{}"), hitEdit{}
	}
	return e.kind, nil, hitEdit{op: editKeyset, ks: e}
}

var (
	keyUnparsedKinds = []string{"id_text", "id_negative", "id_null", "id_object", "date_dotted", "time_fraction", "time_offset", "time_space"}
	acceptedBadKinds = []string{"impossible_date", "id_numeric_string", "id_fraction", "wrong_type"}
	// wrongTypes are accepted_bad's non-key columns of the wrong type: ClientTimeZone, Sign,
	// ScreenWidth, GoalsReached.
	wrongTypes = []struct {
		col int
		val string
	}{{6, `"UTC+4"`}, {8, `"one"`}, {27, `"wide"`}, {34, `"42150001"`}}
)

// hitKeyUnparsed: WatchID, VisitID or ClientID, EventDate or UTCEventTime reads as NULL.
func hitKeyUnparsed(m defect) (string, []byte, hitEdit) {
	s := m.s
	kind := pickOf(s, keyUnparsedKinds)
	id := s.Int(3) // WatchID, VisitID or ClientID
	switch kind {
	case "id_text":
		return kind, nil, hitEdit{op: editSet, k: id, raw: `"abc"`}
	case "id_negative":
		return kind, nil, hitEdit{op: editSet, k: id, raw: "-1"}
	case "id_null":
		return kind, nil, hitEdit{op: editSet, k: id, raw: "null"}
	case "id_object":
		return kind, nil, hitEdit{op: editSet, k: id, raw: `{"value":1}`}
	case "date_dotted":
		return kind, nil, hitEdit{op: editSet, k: 4, raw: `"01.06.2026"`}
	}
	return kind, nil, hitEdit{op: editTime, kind: kind}
}

// hitAcceptedBad: a hit the intake accepts although it is wrong (a date it rolls over, a
// lenient id, a non-key column of the wrong type), under its fresh WatchID.
func hitAcceptedBad(m defect) (string, []byte, hitEdit) {
	s := m.s
	kind := pickOf(s, acceptedBadKinds)
	switch kind {
	case "impossible_date":
		return kind, nil, hitEdit{op: editDate}
	case "id_numeric_string":
		return kind, nil, hitEdit{op: editSet, k: 0, raw: quoted(strconv.FormatUint(m.fresh, 10))}
	case "id_fraction":
		return kind, nil, hitEdit{op: editSet, k: 0, raw: strconv.FormatUint(m.fresh, 10) + ".5"}
	}
	// A non-key column of the wrong type: the intake extracts it with default-on-failure.
	c := pickOf(s, wrongTypes)
	return kind, nil, hitEdit{op: editSet, k: c.col, raw: c.val}
}

// acceptedBadDate is [acceptedBadDate], remembered in m's scratch for the last date.
func (m defect) acceptedBadDate(raw []byte) dateSpelling {
	if m.sc == nil {
		return acceptedBadDate(raw)
	}
	if m.sc.dateOf == nil || !bytes.Equal(m.sc.dateOf, raw) {
		m.sc.dateOf = append(m.sc.dateOf[:0], raw...)
		m.sc.date = acceptedBadDate(raw)
	}
	return m.sc.date
}

// hitVanishing: an empty value or a tombstone, which leaves no row anywhere. It does not look at
// the event.
func hitVanishing(m defect) (string, []byte, hitEdit) {
	if m.s.Int(2) == 0 {
		return "empty_value", []byte{}, hitEdit{}
	}
	return "tombstone", nil, hitEdit{}
}

// orderNotAnObject: the row's root is not a JSON object, or not JSON at all.
func orderNotAnObject(m defect) (string, []byte) {
	kind, value, array := notAnObject(m, m.event)
	if array {
		value = append(append(append(make([]byte, 0, len(m.clean)+2), '['), m.clean...), ']')
	}
	return kind, value
}

// orderKeysetMismatch: the row's key set differs from the contract's.
func orderKeysetMismatch(m defect) (string, []byte) {
	fs := fields(m.clean, orderKeys)
	e := drawKeysetEdit(m.s, m.faker, orderKeys)
	return e.kind, e.applyToFields(m, fs)
}

// orderFieldInvalid: a key of the row has the wrong JSON type or a value the strict intake
// refuses.
func orderFieldInvalid(m defect) (string, []byte) {
	s := m.s
	keys := orderKeys
	fs := fields(m.clean, keys)
	kinds := []string{"money_negative", "money_number", "money_three_decimals", "time_no_millis", "time_offset",
		"user_id_string", "items_not_array", "snapshot_date_bad"}
	kind := pickOf(s, kinds)
	money := keys[5+s.Int(4)] // items_total, discount, delivery, total
	when := keys[3+s.Int(2)]  // created_at, updated_at
	raw := func(key string) string {
		for _, f := range fs {
			if string(f[0]) == key {
				return string(f[1])
			}
		}
		return ""
	}
	switch kind {
	case "money_negative":
		setField(fs, money, `"-`+strings.Trim(raw(money), `"`)+`"`)
	case "money_number":
		setField(fs, money, strings.Trim(raw(money), `"`))
	case "money_three_decimals":
		setField(fs, money, `"`+strings.Trim(raw(money), `"`)+`0"`)
	case "time_no_millis":
		t := strings.Trim(raw(when), `"`)
		setField(fs, when, quoted(t[:19]+"Z"))
	case "time_offset":
		t := strings.Trim(raw(when), `"`)
		setField(fs, when, quoted(strings.TrimSuffix(t, "Z")+"+00:00"))
	case "user_id_string":
		setField(fs, keys[1], quoted(raw(keys[1])))
	case "items_not_array":
		setField(fs, keys[9], quoted(raw(keys[9])))
	default:
		setField(fs, keys[10], pickOf(s, []string{`"01.06.2026"`, `"2026-02-30"`, `"2026-6-1"`, `20260601`}))
	}
	return kind, m.join(fs)
}
