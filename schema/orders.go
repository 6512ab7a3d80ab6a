package schema

// Order statuses as they appear in the status key.
const (
	StatusCreated   = "created"
	StatusPaid      = "paid"
	StatusCancelled = "cancelled"
)

// JSON types of order keys.
const (
	JSONString  = "string"
	JSONInteger = "integer"
	JSONArray   = "array"
	JSONObject  = "object"
)

// Patterns the stand's strict order intake applies to string keys.
const (
	PatternMoney     = `^\d+\.\d{2}$`
	PatternMillis    = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`
	PatternDate      = `^\d{4}-\d{2}-\d{2}$`
	PatternDateTimeZ = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`
)

// Key describes one key of an order row or of an order line.
type Key struct {
	Name    string // key on the wire
	JSON    string // JSON type on the wire
	Type    string // ClickHouse type the stand parses it into
	Pattern string // regular expression a string value must match at intake, "" if none
	Comment string
}

// NumOrderKeys is the number of top-level keys in every order message.
const NumOrderKeys = 11

// OrderKeys is the order contract: every message on topic `orders` carries exactly these keys,
// in this order. [Order] has one field per key, in the same order.
var OrderKeys = [NumOrderKeys]Key{
	{"order_id", JSONString, "String", "", "Order number YYYYMMDD-NNNN, equal to the purchase event's purchaseID[1]; Kafka key of the message."},
	{"user_id", JSONInteger, "UInt64", "", "The person behind the buying cookie (never in the clickstream); the same for both cookies of a two-cookie buyer."},
	{"status", JSONString, "LowCardinality(String)", "", "State at the snapshot boundary: created, paid or cancelled."},
	{"created_at", JSONString, "DateTime64(3, 'UTC')", PatternMillis, "Row creation in the backend: the purchase event's second plus a millisecond; identical in every snapshot."},
	{"updated_at", JSONString, "DateTime64(3, 'UTC')", PatternMillis, "Last change as of the boundary; created_at if nothing happened yet; never decreases across snapshots."},
	{"items_total", JSONString, "Decimal(18, 2)", PatternMoney, "Sum of price × qty over items."},
	{"discount", JSONString, "Decimal(18, 2)", PatternMoney, "Coupon discount, floor(items_total × percent / 100)."},
	{"delivery", JSONString, "Decimal(18, 2)", PatternMoney, "Delivery price: 0.00, 299.00 or 590.00."},
	{"total", JSONString, "Decimal(18, 2)", PatternMoney, "items_total − discount + delivery."},
	{"items", JSONArray, "String", "", "Order lines, a JSON array (not a string) of {sku, qty, price}; never empty."},
	{"snapshot_date", JSONString, "Date", PatternDate, "Date of the finished model day whose state the snapshot captures, not the send date."},
}

// OrderItemKeys are the keys of one element of items[], in wire order.
var OrderItemKeys = [3]Key{
	{"sku", JSONString, "String", "", "Catalog SKU."},
	{"qty", JSONInteger, "UInt32", "", "Pieces, > 0."},
	{"price", JSONString, "Decimal(18, 2)", PatternMoney, "Catalog unit price (not price × qty)."},
}

// OrderKeyNames returns the 11 order keys in wire order.
func OrderKeyNames() []string {
	keys := make([]string, len(OrderKeys))
	for i, k := range OrderKeys {
		keys[i] = k.Name
	}
	return keys
}

// Millis is a UTC instant in milliseconds since 1970-01-01T00:00:00Z. The order encoder
// accepts 0 … 253402300799999 (years 1970 … 9999).
type Millis int64

// MaxMillis is the last instant the order encoder accepts: 9999-12-31T23:59:59.999Z.
const MaxMillis Millis = 253402300799999

// OrderItem is one order line. Price is the catalog unit price in kopecks.
type OrderItem struct {
	SKU   string
	Qty   uint32
	Price int64 // kopecks
}

// Order holds the values of one order row, one field per key of [OrderKeys], in wire order.
// Money is integer kopecks; negative money is an error at encoding time.
type Order struct {
	OrderID      string
	UserID       uint64
	Status       string
	CreatedAt    Millis
	UpdatedAt    Millis
	ItemsTotal   int64 // kopecks
	Discount     int64 // kopecks
	Delivery     int64 // kopecks
	Total        int64 // kopecks
	Items        []OrderItem
	SnapshotDate Date
}
