package world

// Shared fixtures and wire-level helpers of the world and order tests. Everything here reads
// the generator's output the way a consumer would (JSON bytes), except where a helper says it
// reads unexported fields.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// canonWorld is the canonical world shared by tests that only read it (a World is safe for
// concurrent use and its cohort cache changes time, never bytes). Tests about determinism build
// their own fresh worlds instead.
var canonWorld = sync.OnceValue(func() *World {
	w, err := NewWorld(Params{})
	if err != nil {
		panic(err)
	}
	return w
})

func canonical(t testing.TB) *World {
	t.Helper()
	return canonWorld()
}

// watchScale is the scale of the world that the tests watching the world's concurrent paths
// read under the race detector: about 12 000 events a day, three or four batches of
// BatchEvents, so that every worker renders and the window of batches in flight fills as at
// the canonical scale. The detector finds races in interleavings, not in volume; without it
// these tests read the canonical world.
const watchScale = 0.25

var watchWorld = sync.OnceValue(func() *World {
	w, err := NewWorld(Params{Scale: watchScale})
	if err != nil {
		panic(err)
	}
	return w
})

// watched is the world of a test that watches the concurrent paths: the canonical one, or
// under the race detector a shared world at watchScale.
func watched(t testing.TB) *World {
	t.Helper()
	if testenv.Race {
		return watchWorld()
	}
	return canonWorld()
}

// watchedParams is Params{} under watchScale with the race detector, for tests that build
// fresh worlds.
func watchedParams() Params {
	if testenv.Race {
		return Params{Scale: watchScale}
	}
	return Params{}
}

func freshWorld(t testing.TB, p Params) *World {
	t.Helper()
	w, err := NewWorld(p)
	if err != nil {
		t.Fatalf("NewWorld(%+v): %v", p, err)
	}
	return w
}

// daySHA is the inventory's day hash computed independently of Play: SHA-256 over every event
// of the day followed by "\n".
func daySHA(day *Day) string {
	h := sha256.New()
	var buf []byte
	for i := range day.Len() {
		buf = day.AppendEvent(buf[:0], i)
		h.Write(buf)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// playResult is what Play emitted for one day.
type playResult struct {
	Day    int
	Events int
	SHA256 string
	Keys   string // SHA-256 of the keys, each followed by "\n"
}

// playDays runs w.Play and hashes what it emits, day by day, checking the batch framing
// (consecutive From, Last only on a day's final batch, keys = decimal ClientID).
func playDays(t testing.TB, w *World, from, n int, opt PlayOptions) []playResult {
	t.Helper()
	var out []playResult
	hv, hk := sha256.New(), sha256.New()
	next := 0
	var cur *playResult
	err := w.Play(context.Background(), from, n, opt, func(b *Batch) error {
		if cur == nil {
			out = append(out, playResult{Day: b.Day.N})
			cur = &out[len(out)-1]
			hv.Reset()
			hk.Reset()
			next = 0
		}
		if b.Day.N != cur.Day {
			return fmt.Errorf("batch of day %d inside day %d", b.Day.N, cur.Day)
		}
		if b.From != next {
			return fmt.Errorf("day %d: batch From = %d, want %d", cur.Day, b.From, next)
		}
		for i := range b.Msgs {
			hv.Write(b.Value(i))
			hv.Write([]byte{'\n'})
			hk.Write(b.Key(i))
			hk.Write([]byte{'\n'})
			if want := strconv.FormatUint(b.Day.ClientID(b.From+i), 10); string(b.Key(i)) != want {
				return fmt.Errorf("day %d event %d: key %q, want %q", cur.Day, b.From+i, b.Key(i), want)
			}
		}
		next += len(b.Msgs)
		cur.Events += len(b.Msgs)
		if b.Last != (next == b.Day.Len()) {
			return fmt.Errorf("day %d: Last = %v after %d of %d events", cur.Day, b.Last, next, b.Day.Len())
		}
		if b.Last {
			cur.SHA256 = hex.EncodeToString(hv.Sum(nil))
			cur.Keys = hex.EncodeToString(hk.Sum(nil))
			cur = nil
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Play(%d, %d, %+v): %v", from, n, opt, err)
	}
	if len(out) != n {
		t.Fatalf("Play(%d, %d) emitted %d days, want %d", from, n, len(out), n)
	}
	for i, r := range out {
		if r.Day != from+i {
			t.Fatalf("Play(%d, %d): day #%d is %d, want %d", from, n, i, r.Day, from+i)
		}
	}
	return out
}

// snapshotBytes returns snapshot d's bytes, each row followed by "\n" (the inventory's and
// snapshot --file's form). It encodes book.Snapshot's rows with the one order encoder and checks
// that book.SnapshotRows (what the inventory and the sinks use) gives the same rows and keys.
func snapshotBytes(t testing.TB, book *OrderBook, d int) []byte {
	t.Helper()
	var out []byte
	orders := book.Snapshot(d)
	for i := range orders {
		var err error
		if out, err = schema.AppendOrder(out, &orders[i]); err != nil {
			t.Fatalf("snapshot %d row %d: %v", d, i, err)
		}
		out = append(out, '\n')
	}
	rows, keys, err := book.SnapshotRows(d)
	if err != nil {
		t.Fatalf("SnapshotRows(%d): %v", d, err)
	}
	var viaRows []byte
	for i, r := range rows {
		viaRows = append(append(viaRows, r...), '\n')
		if string(keys[i]) != orders[i].OrderID {
			t.Fatalf("SnapshotRows(%d): key %d = %q, want order_id %q", d, i, keys[i], orders[i].OrderID)
		}
	}
	if !bytes.Equal(out, viaRows) {
		t.Fatalf("SnapshotRows(%d) differs from Snapshot(%d) encoded with schema.AppendOrder", d, d)
	}
	return out
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// --- a minimal JSON scanner, independent of the encoder, to see keys in wire order ---

// scanObject splits one JSON object into its keys and raw values, in wire order. It accepts
// exactly one object with no surrounding whitespace (the canonical form has none).
func scanObject(b []byte) (keys []string, vals [][]byte, err error) {
	if len(b) < 2 || b[0] != '{' {
		return nil, nil, errors.New("not an object")
	}
	i := 1
	if b[i] == '}' {
		if len(b) != 2 {
			return nil, nil, errors.New("trailing bytes")
		}
		return nil, nil, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, nil, fmt.Errorf("offset %d: want a key", i)
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, nil, err
		}
		k := string(b[i+1 : end-1])
		if bytes.IndexByte(b[i:end], '\\') >= 0 {
			if err := json.Unmarshal(b[i:end], &k); err != nil {
				return nil, nil, err
			}
		}
		keys = append(keys, k)
		i = end
		if i >= len(b) || b[i] != ':' {
			return nil, nil, fmt.Errorf("offset %d: want ':'", i)
		}
		i++
		vend, err := skipValue(b, i)
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, b[i:vend])
		i = vend
		if i >= len(b) {
			return nil, nil, errors.New("unterminated object")
		}
		switch b[i] {
		case ',':
			i++
			continue
		case '}':
			if i+1 != len(b) {
				return nil, nil, fmt.Errorf("offset %d: trailing bytes after the object", i+1)
			}
			return keys, vals, nil
		}
		return nil, nil, fmt.Errorf("offset %d: want ',' or '}', got %q", i, b[i])
	}
}

// scanArray splits one JSON array into its raw elements.
func scanArray(b []byte) ([][]byte, error) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, errors.New("not an array")
	}
	if len(b) == 2 {
		return [][]byte{}, nil
	}
	var out [][]byte
	i := 1
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = end
		switch {
		case i < len(b) && b[i] == ',':
			i++
		case i == len(b)-1 && b[i] == ']':
			return out, nil
		default:
			return nil, fmt.Errorf("offset %d: bad array", i)
		}
	}
}

func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("unterminated string")
}

func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("missing value")
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("unterminated container")
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("offset %d: empty value", i)
	}
	return j, nil
}

// stdlibKeys lists the top-level keys of an object with encoding/json's tokenizer: a second,
// independent opinion on key order for the scanner above.
func stdlibKeys(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want '{', got %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// isEmptyRaw reports whether a raw value is the contract's "empty": [], "" or 0.
func isEmptyRaw(v []byte) bool {
	s := string(v)
	return s == "[]" || s == `""` || s == "0"
}

// wireHit is one hit decoded from the wire with encoding/json.
type wireHit struct {
	WatchID             uint64        `json:"WatchID"`
	VisitID             uint64        `json:"VisitID"`
	ClientID            uint64        `json:"ClientID"`
	CounterID           uint32        `json:"CounterID"`
	EventDate           string        `json:"EventDate"`
	UTCEventTime        string        `json:"UTCEventTime"`
	ClientTimeZone      int16         `json:"ClientTimeZone"`
	EventType           string        `json:"EventType"`
	Sign                int8          `json:"Sign"`
	URL                 string        `json:"URL"`
	Referer             string        `json:"Referer"`
	Title               string        `json:"Title"`
	UTMSource           string        `json:"UTMSource"`
	UTMMedium           string        `json:"UTMMedium"`
	UTMCampaign         string        `json:"UTMCampaign"`
	UTMContent          string        `json:"UTMContent"`
	UTMTerm             string        `json:"UTMTerm"`
	LastTrafficSource   string        `json:"LastTrafficSource"`
	HasGCLID            uint8         `json:"HasGCLID"`
	YCLID               uint64        `json:"YCLID"`
	Browser             string        `json:"Browser"`
	BrowserMajorVersion uint16        `json:"BrowserMajorVersion"`
	BrowserLanguage     string        `json:"BrowserLanguage"`
	OperatingSystem     string        `json:"OperatingSystem"`
	OperatingSystemRoot string        `json:"OperatingSystemRoot"`
	DeviceCategory      uint8         `json:"DeviceCategory"`
	MobilePhoneModel    string        `json:"MobilePhoneModel"`
	ScreenWidth         uint16        `json:"ScreenWidth"`
	ScreenHeight        uint16        `json:"ScreenHeight"`
	IPAddress           string        `json:"IPAddress"`
	RegionCountry       string        `json:"RegionCountry"`
	RegionCity          string        `json:"RegionCity"`
	RegionCountryID     uint32        `json:"RegionCountryID"`
	RegionCityID        uint32        `json:"RegionCityID"`
	GoalsReached        []uint32      `json:"GoalsReached"`
	ParsedParamsKey1    []string      `json:"ParsedParamsKey1"`
	PurchaseID          []string      `json:"purchaseID"`
	PurchaseRevenue     []json.Number `json:"purchaseRevenue"`
	PurchaseCurrency    []string      `json:"purchaseCurrency"`
	PurchaseCoupon      []string      `json:"purchaseCoupon"`
	ProductID           []string      `json:"productID"`
	ProductName         []string      `json:"productName"`
	ProductCategory     []string      `json:"productCategory"`
	ProductPrice        []int64       `json:"productPrice"`
	ProductQuantity     []uint64      `json:"productQuantity"`
	ProductEventType    []string      `json:"productEventType"`
	Ecommerce           string        `json:"ecommerce"`
}

// decodeHit decodes one hit; callers check the key set with scanObject first, so unknown or
// missing keys are already excluded.
func decodeHit(b []byte) (*wireHit, error) {
	var h wireHit
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// utcSecond parses the contract's UTCEventTime form YYYY-MM-DDTHH:MM:SSZ.
func utcSecond(s string) (int64, error) {
	t, err := time.Parse("2006-01-02T15:04:05Z", s)
	if err != nil {
		return 0, err
	}
	if t.Format("2006-01-02T15:04:05Z") != s {
		return 0, fmt.Errorf("%q is not canonical", s)
	}
	return t.Unix(), nil
}

// millisOf parses the order contract's YYYY-MM-DDTHH:MM:SS.mmmZ form into Unix milliseconds.
func millisOf(s string) (int64, error) {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		return 0, err
	}
	if t.Format("2006-01-02T15:04:05.000Z") != s {
		return 0, fmt.Errorf("%q is not canonical", s)
	}
	return t.UnixMilli(), nil
}

// kopecksOfNumber converts a JSON number such as 2769.7, 1290.0 or 190 into integer kopecks,
// exactly (by its decimal digits, not through a float). More than two decimals is an error.
func kopecksOfNumber(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || strings.ContainsAny(s, "eE+-") {
		return 0, fmt.Errorf("%q: not a plain non-negative decimal", s)
	}
	if dot && (len(frac) == 0 || len(frac) > 2) {
		return 0, fmt.Errorf("%q: want 1 or 2 decimals", s)
	}
	for len(frac) < 2 {
		frac += "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, err
	}
	return w*100 + f, nil
}

// kopecksOfMoney parses the order contract's money string ^\d+\.\d{2}$ into kopecks.
func kopecksOfMoney(s string) (int64, error) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 2 || whole == "" {
		return 0, fmt.Errorf("%q is not a money string", s)
	}
	return kopecksOfNumber(s)
}

// orderIDPrefix is YYYYMMDD of day d.
func orderIDPrefix(d int) string { return strings.ReplaceAll(DayDate(d).String(), "-", "") }

// limited reports at most a few failures per rule, then a count, so that a broken invariant
// gives readable evidence instead of fifty thousand lines.
type limited struct {
	t     testing.TB
	count map[string]int
	mu    sync.Mutex
}

func newLimited(t testing.TB) *limited { return &limited{t: t, count: map[string]int{}} }

const maxReportsPerRule = 5

func (l *limited) errorf(rule, format string, args ...any) {
	l.t.Helper()
	l.mu.Lock()
	l.count[rule]++
	n := l.count[rule]
	l.mu.Unlock()
	if n <= maxReportsPerRule {
		l.t.Errorf("[%s] "+format, append([]any{rule}, args...)...)
	}
}

func (l *limited) summary() {
	l.t.Helper()
	var rules []string
	for r, n := range l.count {
		if n > maxReportsPerRule {
			rules = append(rules, fmt.Sprintf("%s: %d violations", r, n))
		}
	}
	sort.Strings(rules)
	for _, r := range rules {
		l.t.Errorf("%s (first %d shown)", r, maxReportsPerRule)
	}
}

// catalogBySKU indexes a catalog's products by SKU.
func catalogBySKU(c *Catalog) map[string]*Product {
	m := make(map[string]*Product, len(c.Products))
	for i := range c.Products {
		m[c.Products[i].SKU] = &c.Products[i]
	}
	return m
}

// wireOrder is one snapshot row decoded from the wire.
type wireOrder struct {
	OrderID      string          `json:"order_id"`
	UserID       uint64          `json:"user_id"`
	Status       string          `json:"status"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
	ItemsTotal   string          `json:"items_total"`
	Discount     string          `json:"discount"`
	Delivery     string          `json:"delivery"`
	Total        string          `json:"total"`
	Items        []wireOrderItem `json:"items"`
	SnapshotDate string          `json:"snapshot_date"`

	raw []byte // the row's bytes
}

type wireOrderItem struct {
	SKU   string `json:"sku"`
	Qty   uint32 `json:"qty"`
	Price string `json:"price"`
}

// decodeSnapshot splits snapshot bytes (rows followed by "\n") and decodes each row.
func decodeSnapshot(t testing.TB, b []byte) []wireOrder {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		t.Fatalf("snapshot bytes do not end with a newline")
	}
	lines := bytes.Split(b[:len(b)-1], []byte{'\n'})
	rows := make([]wireOrder, len(lines))
	for i, line := range lines {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rows[i]); err != nil {
			t.Fatalf("snapshot row %d %s: %v", i, line, err)
		}
		rows[i].raw = line
	}
	return rows
}

// watchedWorkers names the tests that run the world's concurrent paths (the workers that
// render a day's shares, the cohort cache, the release of reused extras) under the race
// detector; tests that only check bytes and statistics leave -race to them.
const watchedWorkers = "TestPlayIndependentOfGOMAXPROCSAndWorkers, TestDayInvariants, TestUnitsAreWhatTheVerbsSend, TestReuseExtrasSendsTheSameBytes, TestReuseExtrasHoldUntilRelease and TestCohortCacheReleasesPassedDays"
