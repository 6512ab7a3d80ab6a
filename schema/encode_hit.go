package schema

import (
	"bytes"
	"strconv"
)

// hitKey[i] is the key of column i as it appears on the wire, with the separator before it:
// `{"WatchID":` for the first column and `,"Name":` for the others. Built from HitColumns so
// the encoder never spells a name of its own.
var hitKey = func() (keys [NumHitColumns]string) {
	for i, c := range HitColumns {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		keys[i] = sep + strconv.Quote(c.Name) + ":"
	}
	return keys
}()

// Column positions (0-based) where the segments of a hit begin. A hit is written as
// head (identifiers, time, page), visit (attribution, browser, device, geo) and tail
// (arrays and ecommerce), so a producer can encode the visit segment once per visit and
// copy it into every event of the visit.
const (
	visitFrom = 12 // UTMSource
	tailFrom  = 34 // GoalsReached
)

// AppendHit appends the canonical JSON of h: one compact object with all 47 keys in contract
// order and no trailing newline. It allocates only when dst must grow.
//
// AppendHit(dst, h) writes exactly AppendHitHead, AppendHitVisit and AppendHitTail in turn.
func AppendHit(dst []byte, h *Hit) []byte {
	dst = AppendHitHead(dst, h)
	dst = AppendHitVisit(dst, h)
	return AppendHitTail(dst, h)
}

// AppendHitHead appends the opening brace and columns 1–12 (WatchID … Title).
func AppendHitHead(dst []byte, h *Hit) []byte {
	dst = append(dst, hitKey[0]...)
	dst = strconv.AppendUint(dst, h.WatchID, 10)
	dst = append(dst, hitKey[1]...)
	dst = strconv.AppendUint(dst, h.VisitID, 10)
	dst = append(dst, hitKey[2]...)
	dst = strconv.AppendUint(dst, h.ClientID, 10)
	dst = append(dst, hitKey[3]...)
	dst = strconv.AppendUint(dst, uint64(h.CounterID), 10)
	dst = append(dst, hitKey[4]...)
	dst = append(dst, '"')
	dst = h.EventDate.Append(dst)
	dst = append(dst, '"')
	dst = append(dst, hitKey[5]...)
	dst = append(dst, '"')
	dst = h.UTCEventTime.Append(dst)
	dst = append(dst, '"')
	dst = append(dst, hitKey[6]...)
	dst = strconv.AppendInt(dst, int64(h.ClientTimeZone), 10)
	dst = append(dst, hitKey[7]...)
	dst = AppendString(dst, h.EventType)
	dst = append(dst, hitKey[8]...)
	dst = strconv.AppendInt(dst, int64(h.Sign), 10)
	dst = append(dst, hitKey[9]...)
	dst = AppendString(dst, h.URL)
	dst = append(dst, hitKey[10]...)
	dst = AppendString(dst, h.Referer)
	dst = append(dst, hitKey[11]...)
	return AppendString(dst, h.Title)
}

// AppendHitVisit appends columns 13–34 (UTMSource … RegionCityID), each with its leading
// comma. These columns are constant within a visit (source, passport, IP), so a producer may
// encode them once per visit and copy the bytes into every event.
func AppendHitVisit(dst []byte, h *Hit) []byte {
	k := hitKey[visitFrom:]
	dst = append(dst, k[0]...)
	dst = AppendString(dst, h.UTMSource)
	dst = append(dst, k[1]...)
	dst = AppendString(dst, h.UTMMedium)
	dst = append(dst, k[2]...)
	dst = AppendString(dst, h.UTMCampaign)
	dst = append(dst, k[3]...)
	dst = AppendString(dst, h.UTMContent)
	dst = append(dst, k[4]...)
	dst = AppendString(dst, h.UTMTerm)
	dst = append(dst, k[5]...)
	dst = AppendString(dst, h.LastTrafficSource)
	dst = append(dst, k[6]...)
	dst = strconv.AppendUint(dst, uint64(h.HasGCLID), 10)
	dst = append(dst, k[7]...)
	dst = strconv.AppendUint(dst, h.YCLID, 10)
	dst = append(dst, k[8]...)
	dst = AppendString(dst, h.Browser)
	dst = append(dst, k[9]...)
	dst = strconv.AppendUint(dst, uint64(h.BrowserMajorVersion), 10)
	dst = append(dst, k[10]...)
	dst = AppendString(dst, h.BrowserLanguage)
	dst = append(dst, k[11]...)
	dst = AppendString(dst, h.OperatingSystem)
	dst = append(dst, k[12]...)
	dst = AppendString(dst, h.OperatingSystemRoot)
	dst = append(dst, k[13]...)
	dst = strconv.AppendUint(dst, uint64(h.DeviceCategory), 10)
	dst = append(dst, k[14]...)
	dst = AppendString(dst, h.MobilePhoneModel)
	dst = append(dst, k[15]...)
	dst = strconv.AppendUint(dst, uint64(h.ScreenWidth), 10)
	dst = append(dst, k[16]...)
	dst = strconv.AppendUint(dst, uint64(h.ScreenHeight), 10)
	dst = append(dst, k[17]...)
	dst = AppendString(dst, h.IPAddress)
	dst = append(dst, k[18]...)
	dst = AppendString(dst, h.RegionCountry)
	dst = append(dst, k[19]...)
	dst = AppendString(dst, h.RegionCity)
	dst = append(dst, k[20]...)
	dst = strconv.AppendUint(dst, uint64(h.RegionCountryID), 10)
	dst = append(dst, k[21]...)
	return strconv.AppendUint(dst, uint64(h.RegionCityID), 10)
}

// AppendHitTail appends columns 35–47 (GoalsReached … ecommerce) and the closing brace.
func AppendHitTail(dst []byte, h *Hit) []byte {
	k := hitKey[tailFrom:]
	dst = append(dst, k[0]...)
	dst = append(dst, '[')
	for i, g := range h.GoalsReached {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendUint(dst, uint64(g), 10)
	}
	dst = append(dst, ']')
	dst = append(dst, k[1]...)
	dst = appendStrings(dst, h.ParsedParamsKey1)
	dst = append(dst, k[2]...)
	dst = appendStrings(dst, h.PurchaseID)
	dst = append(dst, k[3]...)
	dst = append(dst, '[')
	for i, v := range h.PurchaseRevenue {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKopecksFloat(dst, v)
	}
	dst = append(dst, ']')
	dst = append(dst, k[4]...)
	dst = appendStrings(dst, h.PurchaseCurrency)
	dst = append(dst, k[5]...)
	dst = appendStrings(dst, h.PurchaseCoupon)
	dst = append(dst, k[6]...)
	dst = appendStrings(dst, h.ProductID)
	dst = append(dst, k[7]...)
	dst = appendStrings(dst, h.ProductName)
	dst = append(dst, k[8]...)
	dst = appendStrings(dst, h.ProductCategory)
	dst = append(dst, k[9]...)
	dst = append(dst, '[')
	for i, v := range h.ProductPrice {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, v, 10)
	}
	dst = append(dst, ']')
	dst = append(dst, k[10]...)
	dst = append(dst, '[')
	for i, v := range h.ProductQuantity {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendUint(dst, v, 10)
	}
	dst = append(dst, ']')
	dst = append(dst, k[11]...)
	dst = appendStrings(dst, h.ProductEventType)
	dst = append(dst, k[12]...)
	dst = AppendString(dst, h.Ecommerce)
	return append(dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

func appendUint(dst []byte, v uint64) []byte { return strconv.AppendUint(dst, v, 10) }

// HitKey returns the wire key of column i (0-based, contract order) with the separator
// before it: `{"WatchID":` for column 0, `,"Name":` for the others. A producer that
// pre-encodes parts of hits (see [AppendHitColumns]) writes a column as its key and value.
func HitKey(i int) string { return hitKey[i] }

// AppendHitColumns appends columns [from, to) of h (0-based, contract order), each as its key
// with the separator before it ([HitKey]) and its value, exactly the bytes [AppendHit] writes
// for them; to == NumHitColumns includes the closing brace. It is for producers that encode
// what is constant (a page's URL and title, a device, a city) once and copy the bytes into
// every hit: slow, it encodes the whole hit each time.
func AppendHitColumns(dst []byte, h *Hit, from, to int) []byte {
	if from < 0 || to > NumHitColumns || from > to {
		panic("schema: AppendHitColumns: bad column range")
	}
	full := AppendHit(nil, h)
	return append(dst, full[columnStart(full, from):columnStart(full, to)]...)
}

// columnStart is the offset in the encoded hit b where column i's key begins (len(b), the
// end, past the closing brace, for i == NumHitColumns). A key cannot occur inside a value: there every
// quote is escaped, and in a key the quote follows a comma or the opening brace.
func columnStart(b []byte, i int) int {
	if i == NumHitColumns {
		return len(b)
	}
	at := bytes.Index(b, []byte(hitKey[i]))
	if at < 0 {
		panic("schema: column key missing from an encoded hit")
	}
	return at
}
