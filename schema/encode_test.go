package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Golden files hold the exact bytes of the examples in the spec (hits.md, orders.md).
//
// Do not edit golden outputs to make a test pass. They change only with a deliberate change of
// the wire contract, together with a generator version bump, said so in the commit. -update
// rewrites them from the encoder's current output.
var update = flag.Bool("update", false, "rewrite golden files from the current output")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file\n got: %s\nwant: %s\nfirst difference at byte %d",
			name, got, want, firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func mustDate(t testing.TB, s string) Date {
	tm, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return Date(tm.Unix() / 86400)
}

func mustTime(t testing.TB, s string) DateTime {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return DateTime(tm.Unix())
}

// examplePageview is the pageview example of hits.md, built from its values.
func examplePageview(t testing.TB) *Hit {
	return &Hit{
		WatchID: 4183920571234567, VisitID: 2749102938475610, ClientID: 6120394857261034,
		CounterID: CounterID, EventDate: mustDate(t, "2026-06-03"), UTCEventTime: mustTime(t, "2026-06-03T15:42:07Z"),
		ClientTimeZone: 240, EventType: EventPageview, Sign: Sign,
		URL:     "https://shop.example.com/catalog/posuda?utm_source=yandex&utm_medium=cpc&utm_campaign=posuda-poisk&utm_content=text-1&utm_term=kupit-skovorodu",
		Referer: "https://yandex.ru/", Title: "Посуда — Дом и уют",
		UTMSource: "yandex", UTMMedium: "cpc", UTMCampaign: "posuda-poisk", UTMContent: "text-1", UTMTerm: "kupit-skovorodu",
		LastTrafficSource: "ad", HasGCLID: 0, YCLID: 4829105738291,
		Browser: "Chrome", BrowserMajorVersion: 131, BrowserLanguage: "ru", OperatingSystem: "Windows 10",
		OperatingSystemRoot: "Windows", DeviceCategory: 1, MobilePhoneModel: "", ScreenWidth: 1920, ScreenHeight: 1080,
		IPAddress: "192.0.2.117", RegionCountry: RegionCountry, RegionCity: "Samara", RegionCountryID: RegionCountryID, RegionCityID: 51,
	}
}

// examplePurchase is the purchase example of hits.md, built from its values; its ecommerce
// string is produced by AppendEcommerce.
func examplePurchase(t testing.TB) *Hit {
	products := []EcommerceProduct{
		{ID: "POSU-0003", Name: "Чайник заварочный стеклянный 1 л", Category: "Посуда", Brand: "Кухмастер", Variant: "белый", Price: 118990, Quantity: 1},
		{ID: "POSU-0016", Name: "Доска разделочная бамбуковая 35×25", Category: "Посуда", Brand: "Кухмастер", Variant: "стандарт", Price: 78990, Quantity: 2},
	}
	ec := AppendEcommerce(nil, &Ecommerce{Action: ProductPurchase, OrderID: "20260603-0042", Revenue: 276970, Coupon: "VESNA10", Products: products})
	return &Hit{
		WatchID: 7720019384756102, VisitID: 1083746592018374, ClientID: 3391028475610293,
		CounterID: CounterID, EventDate: mustDate(t, "2026-06-03"), UTCEventTime: mustTime(t, "2026-06-03T17:05:44Z"),
		ClientTimeZone: 240, EventType: EventPurchase, Sign: Sign,
		URL: "https://shop.example.com/confirmation", Referer: "https://shop.example.com/checkout", Title: "Заказ оформлен — Дом и уют",
		LastTrafficSource: "organic",
		Browser:           "Chrome", BrowserMajorVersion: 131, BrowserLanguage: "ru", OperatingSystem: "Android 14",
		OperatingSystemRoot: "Android", DeviceCategory: 2, MobilePhoneModel: "Galaxy A53", ScreenWidth: 412, ScreenHeight: 915,
		IPAddress: "100.87.203.41", RegionCountry: RegionCountry, RegionCity: "Samara", RegionCountryID: RegionCountryID, RegionCityID: 51,
		GoalsReached: []uint32{GoalPurchase}, ParsedParamsKey1: []string{},
		PurchaseID: []string{"20260603-0042"}, PurchaseRevenue: []int64{276970}, PurchaseCurrency: []string{Currency}, PurchaseCoupon: []string{"VESNA10"},
		ProductID:        []string{"POSU-0003", "POSU-0016"},
		ProductName:      []string{"Чайник заварочный стеклянный 1 л", "Доска разделочная бамбуковая 35×25"},
		ProductCategory:  []string{"Посуда", "Посуда"},
		ProductPrice:     []int64{(118990 + 50) / 100, (78990 + 50) / 100},
		ProductQuantity:  []uint64{1, 2},
		ProductEventType: []string{ProductPurchase, ProductPurchase},
		Ecommerce:        string(ec),
	}
}

func exampleOrder(t testing.TB) *Order {
	at := func(s string) Millis {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return Millis(tm.UnixMilli())
	}
	return &Order{
		OrderID: "20260601-0042", UserID: 3141592653589793, Status: StatusPaid,
		CreatedAt: at("2026-06-01T09:15:42.317Z"), UpdatedAt: at("2026-06-01T11:02:07.317Z"),
		ItemsTotal: 516980, Discount: 516980 * 7 / 100, Delivery: 29900, Total: 516980 - 516980*7/100 + 29900,
		Items:        []OrderItem{{SKU: "TEXT-0002", Qty: 1, Price: 279000}, {SKU: "POSU-0003", Qty: 2, Price: 118990}},
		SnapshotDate: mustDate(t, "2026-06-03"),
	}
}

func TestGoldenExamples(t *testing.T) {
	golden(t, "hit_pageview.golden", append(AppendHit(nil, examplePageview(t)), '\n'))
	golden(t, "hit_purchase.golden", append(AppendHit(nil, examplePurchase(t)), '\n'))
	add := AppendEcommerce(nil, &Ecommerce{Action: ProductAdd, Products: []EcommerceProduct{
		{ID: "POSU-0016", Name: "Доска разделочная бамбуковая 35×25", Category: "Посуда", Brand: "Кухмастер", Variant: "стандарт", Price: 78990, Quantity: 2},
	}})
	golden(t, "ecommerce_add.golden", append(add, '\n'))
	b, err := AppendOrder(nil, exampleOrder(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "order_example.golden", append(b, '\n'))
}

// TestStructsFollowContract pins that Hit and Order have one field per contract key, in wire
// order, so the encoders' positional key tables cannot drift from the value types.
func TestStructsFollowContract(t *testing.T) {
	ht := reflect.TypeFor[Hit]()
	if ht.NumField() != NumHitColumns {
		t.Fatalf("Hit has %d fields, want %d", ht.NumField(), NumHitColumns)
	}
	for i, c := range HitColumns {
		if got := ht.Field(i).Name; !strings.EqualFold(got, c.Name) {
			t.Errorf("Hit field %d = %s, want column %s", i, got, c.Name)
		}
	}
	ot := reflect.TypeFor[Order]()
	if ot.NumField() != NumOrderKeys {
		t.Fatalf("Order has %d fields, want %d", ot.NumField(), NumOrderKeys)
	}
	for i, k := range OrderKeys {
		if got := strings.ToLower(ot.Field(i).Name); got != strings.ReplaceAll(k.Name, "_", "") {
			t.Errorf("Order field %d = %s, want key %s", i, ot.Field(i).Name, k.Name)
		}
	}
	seen := map[string]bool{}
	for _, c := range HitColumns {
		if seen[strings.ToLower(c.Name)] {
			t.Errorf("column %s repeats (case-insensitively)", c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
	}
	covered := 0
	for _, g := range HitGroups {
		covered += g.To - g.From + 1
	}
	if covered != NumHitColumns {
		t.Errorf("groups cover %d columns, want %d", covered, NumHitColumns)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, tc := range []struct {
		kopecks int64
		want    string
	}{
		{129000, "1290.0"}, {276970, "2769.7"}, {0, "0.0"}, {1, "0.01"}, {118990, "1189.9"},
		{10, "0.1"}, {99999999, "999999.99"}, {-250, "-2.5"},
	} {
		if got := string(AppendKopecksFloat(nil, tc.kopecks)); got != tc.want {
			t.Errorf("AppendKopecksFloat(%d) = %s, want %s", tc.kopecks, got, tc.want)
		}
	}
	tenth := 0.1 // a variable, so 0.1 + 0.2 is computed in float64, not folded exactly
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{math.NaN(), "0.0"}, {tenth + 0.2, "0.30000000000000004"}, {1.5e300, "1.5e+300"},
	} {
		if got := string(AppendFloat(nil, tc.f)); got != tc.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestAppendMoney(t *testing.T) {
	for _, tc := range []struct {
		k    int64
		want string
	}{{129990, `"1299.90"`}, {0, `"0.00"`}, {5, `"0.05"`}, {29900, `"299.00"`}, {math.MaxInt64, `"92233720368547758.07"`}} {
		got, ok := AppendMoney(nil, tc.k)
		if !ok || string(got) != tc.want {
			t.Errorf("AppendMoney(%d) = %s, %v; want %s", tc.k, got, ok, tc.want)
		}
	}
	if got, ok := AppendMoney([]byte("x"), -1); ok || string(got) != "x" {
		t.Errorf("AppendMoney(-1) = %q, %v; want x, false", got, ok)
	}
	o := exampleOrder(t)
	o.Discount = -1
	if b, err := AppendOrder([]byte("keep"), o); err == nil || string(b) != "keep" {
		t.Errorf("AppendOrder with negative discount = %q, %v; want an error and dst unchanged", b, err)
	}
	o = exampleOrder(t)
	o.Items[1].Price = -5
	if _, err := AppendOrder(nil, o); err == nil {
		t.Error("AppendOrder with a negative item price: no error")
	}
	o = exampleOrder(t)
	o.UpdatedAt = MaxMillis + 1
	if _, err := AppendOrder(nil, o); err == nil {
		t.Error("AppendOrder with a time past year 9999: no error")
	}
}

func TestDatesAgreeWithTimePackage(t *testing.T) {
	for d := 0; d <= math.MaxUint16; d++ {
		want := time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly)
		if got := Date(d).String(); got != want {
			t.Fatalf("Date(%d) = %s, want %s", d, got, want)
		}
		y, m, dd := Date(d).Civil()
		if back, ok := DateOf(y, m, dd); !ok || back != Date(d) {
			t.Fatalf("DateOf(%d, %d, %d) = %d, %v; want %d", y, m, dd, back, ok, d)
		}
	}
	for _, s := range []uint32{0, 1, 86399, 86400, 1780331527, math.MaxUint32} {
		want := time.Unix(int64(s), 0).UTC().Format("2006-01-02T15:04:05Z")
		if got := DateTime(s).String(); got != want {
			t.Errorf("DateTime(%d) = %s, want %s", s, got, want)
		}
	}
	for _, ms := range []Millis{0, 999, 1780305342317, MaxMillis} {
		want := time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z")
		if got := ms.String(); got != want {
			t.Errorf("Millis(%d) = %s, want %s", ms, got, want)
		}
	}
	if _, ok := DateOf(2026, 2, 30); ok {
		t.Error("DateOf(2026, 2, 30) accepted")
	}
}

// TestDaysFromCivil: the day count of every month and day 1–31 of years around and far from
// the epoch (negative ones included) is the time package's, a day past the month's end
// counting on into the next month as time.Date normalises it.
func TestDaysFromCivil(t *testing.T) {
	for _, years := range [][2]int{{-401, -399}, {-1, 1}, {1600, 2400}, {9998, 9999}} {
		for year := years[0]; year <= years[1]; year++ {
			for month := 1; month <= 12; month++ {
				for day := 1; day <= 31; day++ {
					// Midnight UTC is a whole number of days from the epoch, so the division is exact.
					want := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix() / 86400
					if got := DaysFromCivil(year, month, day); got != want {
						t.Fatalf("DaysFromCivil(%d, %d, %d) = %d, want %d", year, month, day, got, want)
					}
				}
			}
		}
	}
}

func TestAppendStringEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Дом & уют — «да» ×", `"Дом & уют — «да» ×"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\t\x01\x1f", `"\n\t\u0001\u001f"`},
		{"<script>", `"<script>"`},
		{"bad\xffbyte", "\"bad\uFFFDbyte\""},
		{"\u2028", "\"\u2028\""},
	} {
		if got := string(AppendString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func BenchmarkAppendHitPageview(b *testing.B) {
	h := examplePageview(b)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(AppendHit(nil, h))))
	for b.Loop() {
		buf = AppendHit(buf[:0], h)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAppendHitPurchase(b *testing.B) {
	h := examplePurchase(b)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendHit(buf[:0], h)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAppendOrder(b *testing.B) {
	o := exampleOrder(b)
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendOrder(buf[:0], o)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// orderedKeys returns the top-level keys of a JSON object in the order they appear.
func orderedKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// FuzzHitRoundTrip: for any values the Hit's types allow, AppendHit writes valid UTF-8 JSON
// that encoding/json parses back to the same values (strings equal whenever the input was
// valid UTF-8, kopecks as kopecks/100, ids and dates exact), with keys in contract order.
func FuzzHitRoundTrip(f *testing.F) {
	f.Add(uint64(4183920571234567), uint32(1780501327), uint16(20607), int16(240), "https://shop.example.com/?a=1&b=2", "Посуда — Дом и уют", int64(276970), uint64(3), int64(1190), `{"x":"y"}`)
	f.Add(uint64(math.MaxUint64), uint32(math.MaxUint32), uint16(math.MaxUint16), int16(math.MinInt16), "\x00\"\\\n", "bad\xff", int64(math.MinInt64), uint64(math.MaxUint64), int64(math.MaxInt64), "")
	f.Fuzz(func(t *testing.T, id uint64, sec uint32, day uint16, tz int16, url, title string, kop int64, qty uint64, price int64, ecom string) {
		h := &Hit{
			WatchID: id, VisitID: id / 3, ClientID: id ^ 0x5555, CounterID: uint32(id), EventDate: Date(day), UTCEventTime: DateTime(sec),
			ClientTimeZone: tz, EventType: title, Sign: int8(tz), URL: url, Referer: title, Title: url,
			UTMTerm: ecom, HasGCLID: uint8(id), YCLID: qty, BrowserMajorVersion: day, DeviceCategory: uint8(sec), ScreenWidth: uint16(tz),
			IPAddress: url + title, RegionCityID: sec, GoalsReached: []uint32{sec, uint32(id)}, ParsedParamsKey1: []string{url},
			PurchaseID: []string{title}, PurchaseRevenue: []int64{kop}, PurchaseCurrency: []string{ecom}, PurchaseCoupon: []string{""},
			ProductID: []string{url, title}, ProductName: []string{ecom, url}, ProductCategory: []string{title, title},
			ProductPrice: []int64{price, kop}, ProductQuantity: []uint64{qty, id}, ProductEventType: []string{"add", ecom}, Ecommerce: ecom,
		}
		b := AppendHit(nil, h)
		if !utf8.Valid(b) {
			t.Fatalf("invalid UTF-8 in %q", b)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %s", b)
		}
		if got := orderedKeys(t, b); !reflect.DeepEqual(got, HitKeys()) {
			t.Fatalf("keys %v, want contract order", got)
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		hv := reflect.ValueOf(h).Elem()
		for i, c := range HitColumns {
			checkValue(t, c.Name, m[c.Name], hv.Field(i), c)
		}
	})
}

// checkValue compares a decoded JSON value with the Go value it was encoded from.
func checkValue(t *testing.T, name string, got any, want reflect.Value, c Column) {
	t.Helper()
	if want.Kind() == reflect.Slice {
		arr, ok := got.([]any)
		if !ok || len(arr) != want.Len() {
			t.Fatalf("%s = %#v, want %d elements", name, got, want.Len())
		}
		for i := range arr {
			checkValue(t, name, arr[i], want.Index(i), c)
		}
		return
	}
	switch v := want.Interface().(type) {
	case string:
		s, ok := got.(string)
		if !ok || (utf8.ValidString(v) && s != v) {
			t.Fatalf("%s = %#v, want %q", name, got, v)
		}
	case Date:
		if got != v.String() {
			t.Fatalf("%s = %#v, want %s", name, got, v)
		}
	case DateTime:
		if got != v.String() {
			t.Fatalf("%s = %#v, want %s", name, got, v)
		}
	case int64:
		n := got.(json.Number)
		if c.Elem() == "Float64" {
			f, err := n.Float64()
			if err != nil || f != float64(v)/100 {
				t.Fatalf("%s = %s, want %v", name, n, float64(v)/100)
			}
			if !strings.ContainsAny(string(n), ".e") {
				t.Fatalf("%s = %s: a float must carry a '.' or an exponent", name, n)
			}
			return
		}
		if string(n) != strconv.FormatInt(v, 10) {
			t.Fatalf("%s = %s, want %d", name, n, v)
		}
	default:
		var s string
		switch want.Kind() {
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s = strconv.FormatUint(want.Uint(), 10)
		default:
			s = strconv.FormatInt(want.Int(), 10)
		}
		if n, ok := got.(json.Number); !ok || string(n) != s {
			t.Fatalf("%s = %#v, want %s", name, got, s)
		}
	}
}

// FuzzOrderRoundTrip: for any non-negative money and in-range times, AppendOrder writes valid
// JSON with the 11 keys in contract order, money strings matching ^\d+\.\d{2}$ that read back
// to the same kopecks, and times that time.Parse reads back to the same millisecond.
func FuzzOrderRoundTrip(f *testing.F) {
	f.Add("20260601-0042", uint64(3141592653589793), "paid", int64(1780305342317), int64(516980), int64(36188), "TEXT-0002", uint32(1), uint16(20607))
	f.Add("\xff\"", uint64(math.MaxUint64), "", int64(0), int64(0), int64(math.MaxInt64), "", uint32(math.MaxUint32), uint16(0))
	f.Fuzz(func(t *testing.T, id string, user uint64, status string, ms int64, items, disc int64, sku string, qty uint32, day uint16) {
		if ms < 0 || ms > int64(MaxMillis) || items < 0 || disc < 0 {
			o := &Order{CreatedAt: Millis(ms), ItemsTotal: items, Discount: disc}
			if _, err := AppendOrder(nil, o); err == nil {
				t.Fatalf("AppendOrder(ms=%d, items=%d, discount=%d): no error", ms, items, disc)
			}
			return
		}
		o := &Order{OrderID: id, UserID: user, Status: status, CreatedAt: Millis(ms), UpdatedAt: Millis(ms),
			ItemsTotal: items, Discount: disc, Delivery: 29900, Total: items,
			Items: []OrderItem{{SKU: sku, Qty: qty, Price: disc}}, SnapshotDate: Date(day)}
		b, err := AppendOrder(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) || !json.Valid(b) {
			t.Fatalf("invalid output %q", b)
		}
		if got := orderedKeys(t, b); !reflect.DeepEqual(got, OrderKeyNames()) {
			t.Fatalf("keys %v, want contract order", got)
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(id) && m["order_id"] != id {
			t.Fatalf("order_id = %v, want %q", m["order_id"], id)
		}
		if m["user_id"].(json.Number).String() != strconv.FormatUint(user, 10) {
			t.Fatalf("user_id = %v, want %d", m["user_id"], user)
		}
		for key, k := range map[string]int64{"items_total": items, "discount": disc} {
			s := m[key].(string)
			whole, frac, ok := strings.Cut(s, ".")
			w, err1 := strconv.ParseInt(whole, 10, 64)
			fr, err2 := strconv.ParseInt(frac, 10, 64)
			if !ok || len(frac) != 2 || err1 != nil || err2 != nil || w*100+fr != k {
				t.Fatalf("%s = %q, want %d kopecks", key, s, k)
			}
		}
		tm, err := time.Parse("2006-01-02T15:04:05.000Z", m["created_at"].(string))
		if err != nil || tm.UnixMilli() != ms {
			t.Fatalf("created_at = %v (%v), want %d ms", m["created_at"], err, ms)
		}
		if m["snapshot_date"] != Date(day).String() {
			t.Fatalf("snapshot_date = %v, want %s", m["snapshot_date"], Date(day))
		}
	})
}

// TestHitColumnsPartitionTheHit pins that pre-encoded column ranges, concatenated, are the
// hit AppendHit writes, also when values look like keys.
func TestHitColumnsPartitionTheHit(t *testing.T) {
	tricky := examplePageview(t)
	tricky.URL = `https://x/?a=,"Title":"b\",\"Title\":`
	tricky.Title = `",\"Referer\":\\"`
	tricky.ProductName = []string{`,"ProductPrice":`, `"]`}
	for _, h := range []*Hit{examplePageview(t), examplePurchase(t), tricky} {
		want := AppendHit(nil, h)
		for _, cuts := range [][]int{{0, NumHitColumns}, {0, 3, 9, 12, 19, 20, 29, 30, 34, NumHitColumns}, {0, 1, 46, NumHitColumns}} {
			var got []byte
			for i := 1; i < len(cuts); i++ {
				got = AppendHitColumns(got, h, cuts[i-1], cuts[i])
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("cuts %v:\n got %s\nwant %s", cuts, got, want)
			}
		}
		for i := range NumHitColumns {
			if col := AppendHitColumns(nil, h, i, i+1); !bytes.HasPrefix(col, []byte(HitKey(i))) {
				t.Fatalf("column %d = %s, want it to start with its key %s", i, col, HitKey(i))
			}
		}
	}
}
