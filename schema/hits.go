package schema

// Event types: the values of the EventType column.
const (
	EventPageview  = "pageview"
	EventAddToCart = "add_to_cart"
	EventPurchase  = "purchase"
)

// EventTypes lists the event types in the order the contract names them.
var EventTypes = [...]string{EventPageview, EventAddToCart, EventPurchase}

// EventSet is a set of event types, one bit per entry of [EventTypes].
type EventSet uint8

// The event sets used by the emptiness rules.
const (
	OnPageview  EventSet = 1 << iota // pageview
	OnAddToCart                      // add_to_cart
	OnPurchase                       // purchase

	OnNone EventSet = 0
	OnAll           = OnPageview | OnAddToCart | OnPurchase
)

// Has reports whether the set contains the event type named t.
func (s EventSet) Has(t string) bool {
	for i, name := range EventTypes {
		if name == t {
			return s&(1<<i) != 0
		}
	}
	return false
}

// Group is a block of hit columns as the export description presents them.
type Group struct {
	Title string // heading in the export description
	From  int    // first column position (1-based, inclusive)
	To    int    // last column position (inclusive)
}

// HitGroups are the column blocks of the export description, in wire order.
var HitGroups = [...]Group{
	{"Identifiers and time", 1, 9},
	{"Page and attribution", 10, 20},
	{"Browser, device, geo", 21, 34},
	{"Arrays and params", 35, 36},
	{"Ecommerce", 37, 47},
}

// Column describes one hit column.
type Column struct {
	Name    string   // key on the wire (Yandex Metrica export spelling)
	Type    string   // ClickHouse type of the column
	Snake   string   // the stand's snake_case name in its typed layers
	Empty   EventSet // event types on which the column is always empty ([], "" or 0)
	Comment string   // what the column means and how the generator fills it
}

// Array reports whether the column is a ClickHouse array.
func (c Column) Array() bool { return len(c.Type) > 6 && c.Type[:6] == "Array(" }

// Elem is the ClickHouse type of the column's elements for arrays, and the type itself otherwise.
func (c Column) Elem() string {
	if c.Array() {
		return c.Type[6 : len(c.Type)-1]
	}
	return c.Type
}

// NumHitColumns is the number of keys in every hit message.
const NumHitColumns = 47

// HitColumns is the hit contract: every message on topic `hits` carries exactly these keys,
// in this order. [Hit] has one field per column, in the same order.
var HitColumns = [NumHitColumns]Column{
	{"WatchID", "UInt64", "watch_id", OnNone, "Hit id: unique within its model day, 1 ≤ id < 2^53 so JSON doubles keep it exact. Deterministic, so a replayed day dedupes on it."},
	{"VisitID", "UInt64", "visit_id", OnNone, "Visit (session) id drawn by the generator, < 2^53; shared by every event of the visit, trade events and duplicate copies included."},
	{"ClientID", "UInt64", "client_id", OnNone, "Anonymous cookie id, U[1, 2^53), fixed for the cookie's life. Kafka key of the message."},
	{"CounterID", "UInt32", "counter_id", OnNone, "Constant 42150607."},
	{"EventDate", "Date", "event_date", OnNone, "Model day in the counter time zone (UTC+4): 2026-06-01 + D, the same for every event of the day. Storage takes the day from here."},
	{"UTCEventTime", "DateTime", "utc_event_time", OnNone, "Event second in UTC, YYYY-MM-DDTHH:MM:SSZ; day D spans D−1 20:00:00Z … D 19:59:59Z."},
	{"ClientTimeZone", "Int16", "client_time_zone", OnNone, "Visitor's UTC offset in minutes (180, 240, 300 or 420), from the city."},
	{"EventType", "LowCardinality(String)", "event_type", OnNone, "pageview, add_to_cart or purchase (the stand's addition to the Metrica export)."},
	{"Sign", "Int8", "sign", OnNone, "Always 1."},
	{"URL", "String", "url", OnNone, "https://shop.example.com + path; the entry page of a visit carries the source's UTM query."},
	{"Referer", "String", "referer", OnNone, "Entry page: the source's referer (may be empty); later pages: the previous page's full URL; duplicate copies: their own URL."},
	{"Title", "String", "title", OnNone, "Page heading + \" — Дом и уют\"."},
	{"UTMSource", "String", "utm_source", OnNone, "utm_source of the visit's traffic source, \"\" when untagged."},
	{"UTMMedium", "String", "utm_medium", OnNone, "utm_medium of the visit's traffic source, \"\" when untagged."},
	{"UTMCampaign", "String", "utm_campaign", OnNone, "utm_campaign of the visit's traffic source, \"\" when untagged."},
	{"UTMContent", "String", "utm_content", OnNone, "utm_content of the visit's traffic source, \"\" when untagged."},
	{"UTMTerm", "String", "utm_term", OnNone, "utm_term of the visit's traffic source, \"\" when untagged."},
	{"LastTrafficSource", "String", "last_traffic_source", OnNone, "organic, direct, ad, social, email, referral or recommend; per visit."},
	{"HasGCLID", "UInt8", "has_gclid", OnNone, "1 for the Google Ads source only."},
	{"YCLID", "UInt64", "yclid", OnNone, "Yandex Direct click id, U[1, 10^13) per visit for the two Direct sources, else 0."},
	{"Browser", "String", "browser", OnNone, "From the cookie's device profile."},
	{"BrowserMajorVersion", "UInt16", "browser_major_version", OnNone, "From the cookie's device profile."},
	{"BrowserLanguage", "String", "browser_language", OnNone, "ru or en."},
	{"OperatingSystem", "String", "operating_system", OnNone, "Operating system with version, e.g. Windows 10, iOS 17.4."},
	{"OperatingSystemRoot", "String", "operating_system_root", OnNone, "Family: Windows, macOS, Linux, iOS, Android."},
	{"DeviceCategory", "UInt8", "device_category", OnNone, "1 desktop, 2 phone, 3 tablet (4 TV is never produced); a number, not Metrica's string."},
	{"MobilePhoneModel", "String", "mobile_phone_model", OnNone, "Phone model for phones, \"\" otherwise."},
	{"ScreenWidth", "UInt16", "screen_width", OnNone, "From the cookie's device profile."},
	{"ScreenHeight", "UInt16", "screen_height", OnNone, "From the cookie's device profile."},
	{"IPAddress", "String", "ip_address", OnNone, "Per visit, non-routable: phones in CGNAT 100.64/10, others in the city's documentation prefix."},
	{"RegionCountry", "String", "region_country", OnNone, "Always RU."},
	{"RegionCity", "String", "region_city", OnNone, "English city name from the cookie's passport."},
	{"RegionCountryID", "UInt32", "region_country_id", OnNone, "Always 225."},
	{"RegionCityID", "UInt32", "region_city_id", OnNone, "Yandex geobase id of the city."},
	{"GoalsReached", "Array(UInt32)", "goals_reached", OnPageview, "[42150001] on add_to_cart, [42150002] on purchase."},
	{"ParsedParamsKey1", "Array(String)", "parsed_params_key1", OnAll, "Always [] (the A/B variant is deferred upstream)."},
	{"purchaseID", "Array(String)", "purchase_id", OnPageview | OnAddToCart, "[\"YYYYMMDD-NNNN\"]: the order number, equal to the backend's order_id."},
	{"purchaseRevenue", "Array(Float64)", "purchase_revenue", OnPageview | OnAddToCart, "[kopecks/100]: exact basket sum without discount or delivery."},
	{"purchaseCurrency", "Array(String)", "purchase_currency", OnPageview | OnAddToCart, "[\"RUB\"]."},
	{"purchaseCoupon", "Array(String)", "purchase_coupon", OnPageview | OnAddToCart, "[code] or [\"\"] when no coupon was used."},
	{"productID", "Array(String)", "product_id", OnPageview, "Catalog SKUs, one per product line."},
	{"productName", "Array(String)", "product_name", OnPageview, "Catalog names (Russian)."},
	{"productCategory", "Array(String)", "product_category", OnPageview, "Catalog category names (Russian)."},
	{"productPrice", "Array(Int64)", "product_price", OnPageview, "Unit price in whole roubles, rounded half-up: (kopecks + 50) div 100. Lossy on purpose."},
	{"productQuantity", "Array(UInt64)", "product_quantity", OnPageview, "Pieces per line, 1–3."},
	{"productEventType", "Array(String)", "product_event_type", OnPageview, "add on add_to_cart, purchase on purchase."},
	{"ecommerce", "String", "ecommerce", OnPageview, "Raw Metrica-style JSON with brand, variant and exact prices; \"\" on pageviews."},
}

// HitKeys returns the 47 hit keys in wire order.
func HitKeys() []string {
	keys := make([]string, len(HitColumns))
	for i, c := range HitColumns {
		keys[i] = c.Name
	}
	return keys
}

// HitColumn returns the column named name and its 0-based wire position.
func HitColumn(name string) (Column, int, bool) {
	for i, c := range HitColumns {
		if c.Name == name {
			return c, i, true
		}
	}
	return Column{}, -1, false
}

// Constant values of the hit contract.
const (
	CounterID       = 42150607
	Sign            = 1
	RegionCountry   = "RU"
	RegionCountryID = 225
	Currency        = "RUB"
	GoalCart        = 42150001
	GoalPurchase    = 42150002
	ProductAdd      = "add"      // productEventType of add_to_cart
	ProductPurchase = "purchase" // productEventType of purchase
)

// Date is a calendar day counted from 1970-01-01, like ClickHouse's Date (0 … 65535, years
// 1970 … 2149).
type Date uint16

// DateTime is a UTC second counted from 1970-01-01T00:00:00Z, like ClickHouse's DateTime
// (years 1970 … 2106).
type DateTime uint32

// Hit holds the values of one hit, one field per column of [HitColumns], in wire order.
//
// Slices of a group must have equal lengths (purchase* and product*); [AppendHit] writes what
// it is given and does not check that. Money is integer kopecks: PurchaseRevenue holds kopecks
// and is written as kopecks/100.
type Hit struct {
	WatchID        uint64
	VisitID        uint64
	ClientID       uint64
	CounterID      uint32
	EventDate      Date
	UTCEventTime   DateTime
	ClientTimeZone int16
	EventType      string
	Sign           int8

	URL               string
	Referer           string
	Title             string
	UTMSource         string
	UTMMedium         string
	UTMCampaign       string
	UTMContent        string
	UTMTerm           string
	LastTrafficSource string
	HasGCLID          uint8
	YCLID             uint64

	Browser             string
	BrowserMajorVersion uint16
	BrowserLanguage     string
	OperatingSystem     string
	OperatingSystemRoot string
	DeviceCategory      uint8
	MobilePhoneModel    string
	ScreenWidth         uint16
	ScreenHeight        uint16
	IPAddress           string
	RegionCountry       string
	RegionCity          string
	RegionCountryID     uint32
	RegionCityID        uint32

	GoalsReached     []uint32
	ParsedParamsKey1 []string

	PurchaseID       []string
	PurchaseRevenue  []int64 // kopecks
	PurchaseCurrency []string
	PurchaseCoupon   []string
	ProductID        []string
	ProductName      []string
	ProductCategory  []string
	ProductPrice     []int64 // whole roubles
	ProductQuantity  []uint64
	ProductEventType []string
	Ecommerce        string // raw JSON text, "" on pageviews
}
