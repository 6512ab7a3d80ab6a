package world

// WatchID returns the WatchID of the day's clean event i (0 ≤ i < Len), the one its rendered
// message carries ([Batch.WatchID]): a reader of a store lists a day's planned ids from the
// model without rendering the day.
func (day *Day) WatchID(i int) uint64 { return day.events[i].watchID }
