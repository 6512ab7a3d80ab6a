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
// checks them, NoRow. Which of them the generator's garbage classes get is the garbage table's
// word (world.GarbageOutcome), held to the classifier message by message by the world's tests.
var (
	HitOutcomes   = [...]string{Accepted, NotAnObject, KeysetMismatch, KeyFieldUnparsed, NoRow}
	OrderOutcomes = [...]string{Accepted, NotAnObject, KeysetMismatch, FieldInvalid, NoRow}
)
