package topics

import "github.com/clickgen/clickgen/generator/verify/summary"

// The names of [summary.Counts.Extra] a topics result fills: its differences of a present
// message that no word of the vocabulary holds.
const (
	ExtraWrongPartition = DiffWrongPartition
	ExtraWrongKey       = DiffWrongKey
	ExtraMisclassified  = DiffMisclassified
)

// SummaryCounts is r in the vocabulary of verification ([summary]): a line of messages per
// topic, hits then orders, and their total. Every count is of messages, as they were sent:
// a redelivery the run sends on purpose is planned.
//
//   - planned: the messages sent (the units' Want); present: the sent messages that arrived,
//     under their key and in their partition or not (wrong_partition, wrong_key and
//     misclassified are extras of present messages); missing: the copies sent that did not
//     arrive, less the changed ones.
//   - changed: a missing message the intake accepts whose dedup id (a hit's WatchID; an
//     order's order_id in the same snapshot) arrived with other bytes instead. Topics hold
//     bytes: a message changed so that the intake refuses it, or changed in its id, cannot
//     be told from a missing one and an unplanned one, and is counted so.
//   - copies: the arrived messages equal to a sent one beyond the number sent (a broker's or
//     producer's redelivery); a copy of a message that was never sent is unplanned.
//   - unplanned: the other unexpected messages (not copies, not changed), of the run's days
//     or of none; other runs: the messages of a model day outside the run ([TopicResult.Other];
//     none when the check is strict: they are unplanned then).
func (r *Result) SummaryCounts() summary.Summary {
	return summary.New("topics", r.Hits.summaryLine(), r.Orders.summaryLine())
}

func (tr *TopicResult) summaryLine() summary.Line {
	missing := tr.Differences[DiffMissing] - tr.changed
	return summary.Line{Unit: tr.Topic, Of: "messages", Counts: summary.Counts{
		Planned:   tr.Want.Messages,
		Present:   tr.Want.Messages - missing,
		Missing:   missing,
		Unplanned: tr.Unexpected.Messages - tr.copies - tr.changed,
		Changed:   tr.changed,
		Copies:    tr.copies,
		OtherRuns: tr.Other.Messages,
		Extra: map[string]int{ExtraWrongPartition: tr.Differences[DiffWrongPartition], ExtraWrongKey: tr.Differences[DiffWrongKey],
			ExtraMisclassified: tr.Differences[DiffMisclassified]},
	}}
}
