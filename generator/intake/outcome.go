package intake

// What the intake does with a message besides giving its row an error class.
const (
	// Accepted: the message becomes a row of ods.event (ods.order).
	Accepted = "accepted"
	// NoRow: an empty value or a tombstone, which a RawBLOB table turns into no row at all.
	NoRow = "no_row"
)

// HitOutcomes and OrderOutcomes list everything the intake of each topic can do with a
// message, in the order tables list them: Accepted, the error classes in the order the intake
// checks them, NoRow.
var (
	HitOutcomes   = [...]string{Accepted, NotAnObject, KeysetMismatch, KeyFieldUnparsed, NoRow}
	OrderOutcomes = [...]string{Accepted, NotAnObject, KeysetMismatch, FieldInvalid, NoRow}
)

// The generator's garbage classes that are not error classes: they are named by what the
// intake does instead (stand.md: an impossible date or a lenient number still parses; an empty
// value leaves nothing). The other garbage classes are named by their error class.
const (
	// AcceptedBad (hits only): lands in ods.event, silently wrong.
	AcceptedBad = "accepted_bad"
	// Vanishing (hits only): an empty value or a tombstone.
	Vanishing = "vanishing"
)

// hitPromises and orderPromises map each class of message the generator makes on a topic to
// what the intake does with it. The key "" is a clean message (and its redeliveries).
var (
	hitPromises = map[string]string{
		"": Accepted, NotAnObject: NotAnObject, KeysetMismatch: KeysetMismatch, KeyFieldUnparsed: KeyFieldUnparsed,
		AcceptedBad: Accepted, Vanishing: NoRow,
	}
	orderPromises = map[string]string{
		"": Accepted, NotAnObject: NotAnObject, KeysetMismatch: KeysetMismatch, FieldInvalid: FieldInvalid,
	}
)

// HitOutcome says what the stand's intake of topic hits does with a message that the generator
// made as class: "" for a clean message or a redelivery, otherwise a garbage class. outcome is
// one of [HitOutcomes]; ok is false when hits carry no such class.
//
// This is the one statement of the mapping: the world's inventory counts what the stand must
// hold with it, and reconciliation holds [ClassifyHit]'s verdict on the sent bytes to it.
func HitOutcome(class string) (outcome string, ok bool) {
	outcome, ok = hitPromises[class]
	return outcome, ok
}

// OrderOutcome is [HitOutcome] for topic orders: outcome is one of [OrderOutcomes].
func OrderOutcome(class string) (outcome string, ok bool) {
	outcome, ok = orderPromises[class]
	return outcome, ok
}
