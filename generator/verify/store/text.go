package store

import (
	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/schema"
)

// Bounds of the store's text in a result: a value, a key, a class, a column name or an error
// shown on the console or written in the report is cut after this many bytes (its length
// said) and its control characters escaped, whatever the store holds.
const (
	maxStoreText = 200
	maxValueText = 120
	maxErrorText = 800
)

// storeText is one of the store's strings (an order_id, an error class, a column name) as a
// result shows it: cut, escaped, one line.
func storeText(b []byte) string { return chtype.Escape(b, maxStoreText) }

// errText is an error as a result shows it: the server's message may quote the store.
func errText(err error) string { return chtype.Escape([]byte(err.Error()), maxErrorText) }

// The contract's names of the columns verify keys its reads on.
var (
	hitWatchID      = schema.HitColumns[0].Name
	hitClientID     = schema.HitColumns[2].Name
	hitEventDate    = schema.HitColumns[4].Name
	orderIDKey      = schema.OrderKeys[0].Name
	snapshotDateKey = schema.OrderKeys[10].Name
)
