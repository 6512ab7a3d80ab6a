package intake

import (
	"slices"
	"testing"
)

// TestOutcomes pins the class → outcome table: an error class lands in itself, accepted_bad
// in ods.event, vanishing nowhere, a clean message in ods.event; each topic refuses the
// classes it cannot carry; every outcome is listed in its topic's table.
func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		topic    string
		outcome  func(string) (string, bool)
		outcomes []string
		want     map[string]string // class → outcome; "-" means refused
	}{
		{"hits", HitOutcome, HitOutcomes[:], map[string]string{
			"": Accepted, NotAnObject: NotAnObject, KeysetMismatch: KeysetMismatch, KeyFieldUnparsed: KeyFieldUnparsed,
			AcceptedBad: Accepted, Vanishing: NoRow, FieldInvalid: "-", "bogus": "-"}},
		{"orders", OrderOutcome, OrderOutcomes[:], map[string]string{
			"": Accepted, NotAnObject: NotAnObject, KeysetMismatch: KeysetMismatch, FieldInvalid: FieldInvalid,
			KeyFieldUnparsed: "-", AcceptedBad: "-", Vanishing: "-"}},
	} {
		for class, want := range tc.want {
			got, ok := tc.outcome(class)
			if !ok {
				got = "-"
			}
			if got != want {
				t.Errorf("%s: class %q lands in %q, want %q", tc.topic, class, got, want)
			}
			if ok && !slices.Contains(tc.outcomes, got) {
				t.Errorf("%s: outcome %q of class %q is not among %v", tc.topic, got, class, tc.outcomes)
			}
		}
	}
}
