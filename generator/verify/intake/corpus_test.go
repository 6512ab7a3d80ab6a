package intake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// This file builds the message corpus shared by the table tests (expected classes written by
// hand) and the engine tests (every message classified by ClickHouse too). Kinds follow
// product.md's Garbage table.

// anyClass marks a sample whose class is only checked against the engine, not by hand.
const anyClass = "*"

// vanish marks a sample that must produce no row.
const vanish = "(no row)"

type sample struct {
	name string
	raw  []byte
	want string // expected class, "" for accepted, anyClass, or vanish
}

func goldenFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "schema", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b, "\n")
}

// kv is one member of a JSON object, its value kept as raw bytes.
type kv struct {
	key string
	val []byte
}

// members splits a JSON object into its members in order, values verbatim.
func members(t testing.TB, raw []byte) []kv {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []kv
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, kv{tok.(string), v})
	}
	return out
}

// object writes members back as a compact object (keys through schema's string encoder).
func object(kvs []kv) []byte {
	b := []byte{'{'}
	for i, m := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = schema.AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.val...)
	}
	return append(b, '}')
}

// withValue returns base with key's value replaced by val (raw JSON).
func withValue(t testing.TB, base []byte, key, val string) []byte {
	kvs := members(t, base)
	found := false
	for i := range kvs {
		if kvs[i].key == key {
			kvs[i].val = []byte(val)
			found = true
		}
	}
	if !found {
		t.Fatalf("no key %s", key)
	}
	return object(kvs)
}

func without(t testing.TB, base []byte, key string) []byte {
	var out []kv
	for _, m := range members(t, base) {
		if m.key != key {
			out = append(out, m)
		}
	}
	return object(out)
}

func renamed(t testing.TB, base []byte, key, to string) []byte {
	kvs := members(t, base)
	for i := range kvs {
		if kvs[i].key == key {
			kvs[i].key = to
		}
	}
	return object(kvs)
}

func appended(t testing.TB, base []byte, key, val string) []byte {
	return object(append(members(t, base), kv{key, []byte(val)}))
}

// rawKeyed replaces the first occurrence of "key": in base by keyText (already quoted).
func rawKeyed(base []byte, key, keyText string) []byte {
	return bytes.Replace(base, []byte(strconv.Quote(key)+":"), []byte(keyText+":"), 1)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// generatedHits encodes n hits with varied values through schema.AppendHit (the generator's
// own encoder), deterministic in seed.
func generatedHits(n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0x1f2e3d4c))
	out := make([][]byte, 0, n)
	for i := range n {
		day := schema.Date(20605 + r.IntN(30)) // June 2026
		h := schema.Hit{
			WatchID: 1 + r.Uint64N(1<<53-1), VisitID: r.Uint64N(1 << 53), ClientID: 1 + r.Uint64N(1<<53-1),
			CounterID: schema.CounterID, EventDate: day,
			UTCEventTime:   schema.DateTime(int64(day)*86400 - 4*3600 + int64(r.IntN(86400))),
			ClientTimeZone: 240, EventType: schema.EventTypes[i%3], Sign: schema.Sign,
			URL: "https://shop.example.com/p/" + strconv.Itoa(i), Title: "Стр — Дом и уют",
			LastTrafficSource: "organic", Browser: "Chrome", BrowserMajorVersion: 131, BrowserLanguage: "ru",
			OperatingSystem: "Windows 10", OperatingSystemRoot: "Windows", DeviceCategory: 1,
			ScreenWidth: 1920, ScreenHeight: 1080, IPAddress: "192.0.2.1", RegionCountry: schema.RegionCountry,
			RegionCity: "Samara", RegionCountryID: schema.RegionCountryID, RegionCityID: 51,
		}
		if i%3 == 2 {
			h.PurchaseID = []string{"20260603-0042"}
			h.PurchaseRevenue = []int64{276970}
			h.PurchaseCurrency = []string{schema.Currency}
			h.PurchaseCoupon = []string{""}
			h.GoalsReached = []uint32{schema.GoalPurchase}
		}
		out = append(out, schema.AppendHit(nil, &h))
	}
	return out
}

// idValues are WatchID/VisitID/ClientID spellings with the class the engine gives them
// ("" = readable, so the hit is accepted).
var idValues = []struct{ val, want string }{
	{`1`, ""}, {`0`, ""}, {`-0`, ""}, {`9007199254740993`, ""}, {`9223372036854775807`, ""},
	{`9223372036854775808`, ""}, {`18446744073709551615`, ""},
	{`1.5`, ""}, {`1.9`, ""}, {`0.0`, ""}, {`-0.0`, ""}, {`1e3`, ""}, {`1E3`, ""}, {`1e19`, ""},
	{`4e-1`, ""}, {`1e-400`, ""}, {`-1e-400`, ""}, {`1.8446744073709549e19`, ""},
	{`true`, ""}, {`false`, ""},
	{`"123"`, ""}, {`"0123"`, ""}, {`"+123"`, ""}, {`"-0"`, ""}, {`"1.5"`, ""}, {`"1e3"`, ""},
	{`"1E5"`, ""}, {`".5"`, ""}, {`"5."`, ""}, {`"+.5"`, ""}, {`"18446744073709551615"`, ""},
	{`"nan"`, ""}, {`"NaN"`, ""}, {`"-nan"`, ""}, {`"+nan"`, ""}, {`"nan(123)"`, ""}, {`"nan()"`, ""},
	{`"\u0031"`, ""}, {`"00000000000000000000000000001"`, ""}, {`"1e-400"`, ""}, {`"-1e-400"`, ""},
	{`"9007199254740993.7"`, ""}, {`"1844674407370955161.5"`, ""},
	{`-1`, KeyFieldUnparsed}, {`-0.5`, KeyFieldUnparsed}, {`-9223372036854775808`, KeyFieldUnparsed},
	{`1e20`, KeyFieldUnparsed}, {`1.8446744073709552e19`, KeyFieldUnparsed},
	{`null`, KeyFieldUnparsed}, {`{}`, KeyFieldUnparsed}, {`{"a":1}`, KeyFieldUnparsed}, {`[]`, KeyFieldUnparsed}, {`[1]`, KeyFieldUnparsed},
	{`""`, KeyFieldUnparsed}, {`"abc"`, KeyFieldUnparsed}, {`"123abc"`, KeyFieldUnparsed}, {`" 123"`, KeyFieldUnparsed},
	{`"123 "`, KeyFieldUnparsed}, {`"-1"`, KeyFieldUnparsed}, {`"0x10"`, KeyFieldUnparsed}, {`"1_000"`, KeyFieldUnparsed},
	{`"inf"`, KeyFieldUnparsed}, {`"+inf"`, KeyFieldUnparsed}, {`"infinity"`, KeyFieldUnparsed}, {`"infinit"`, KeyFieldUnparsed},
	{`"1e"`, KeyFieldUnparsed}, {`"1e+"`, KeyFieldUnparsed}, {`"."`, KeyFieldUnparsed}, {`"+"`, KeyFieldUnparsed},
	{`"-"`, KeyFieldUnparsed}, {`"++5"`, KeyFieldUnparsed}, {`"+-1"`, KeyFieldUnparsed}, {`"--1"`, KeyFieldUnparsed},
	{`"1e400"`, KeyFieldUnparsed}, {`"18446744073709551616"`, KeyFieldUnparsed}, {`"99999999999999999999"`, KeyFieldUnparsed},
	{`"18446744073709551615.5"`, KeyFieldUnparsed}, {`"1e3.5"`, KeyFieldUnparsed}, {`"١٢٣"`, KeyFieldUnparsed},
	{`"nan(a)b"`, KeyFieldUnparsed}, {`"nan(-)"`, KeyFieldUnparsed}, {`"12 3"`, KeyFieldUnparsed}, {`"\t1"`, KeyFieldUnparsed},
}

// dateValues are EventDate spellings: "" = the engine reads a Date (sometimes a wrong one).
var dateValues = []struct{ val, want string }{
	{`"2026-06-03"`, ""}, {`"2026-6-3"`, ""}, {`"2026/06/03"`, ""}, {`"20260603"`, ""}, {`"2026-06-3"`, ""},
	{`"2026-6-03"`, ""}, {`"2026.06.01"`, ""}, {`"2026x06y01"`, ""}, {`"2026\u002d06-03"`, ""}, {`"2026\u000006\u000003"`, ""},
	{`"2026-13-45"`, ""}, {`"2024-02-30"`, ""}, {`"2026-02-31"`, ""}, {`"2026-6-31"`, ""}, {`"2026-06-32"`, ""},
	{`"2024-13-01"`, ""}, {`"1969-12-31"`, ""}, {`"1899-12-31"`, ""}, {`"1900-01-01"`, ""}, {`"2149-06-06"`, ""},
	{`"2149-06-07"`, ""}, {`"2300-01-01"`, ""}, {`"9999-99-99"`, ""}, {`"0000-00-00"`, ""}, {`"2026-06-0"`, ""},
	{`"2026-00-01"`, ""}, {`"2026-06-00"`, ""}, {`"20261301"`, ""}, {`"2026-6-1"`, ""}, {`"2026 06 03"`, ""},
	{`"01.06.2026"`, KeyFieldUnparsed}, {`"garbage"`, KeyFieldUnparsed}, {`"2026-06-03 "`, KeyFieldUnparsed},
	{`" 2026-06-03"`, KeyFieldUnparsed}, {`"2026-06-03T00:00:00"`, KeyFieldUnparsed}, {`"2026-6"`, KeyFieldUnparsed},
	{`"2026"`, KeyFieldUnparsed}, {`"202606031"`, KeyFieldUnparsed}, {`"2026-06-031"`, KeyFieldUnparsed},
	{`"2026--06-03"`, KeyFieldUnparsed}, {`"2026-0603"`, KeyFieldUnparsed}, {`"2026-06—03"`, KeyFieldUnparsed},
	{`"2026—06-03"`, KeyFieldUnparsed}, {`"26-06-03"`, KeyFieldUnparsed}, {`""`, KeyFieldUnparsed},
	{`20260603`, KeyFieldUnparsed}, {`1`, KeyFieldUnparsed}, {`null`, KeyFieldUnparsed}, {`true`, KeyFieldUnparsed},
	{`["2026-06-03"]`, KeyFieldUnparsed}, {`{}`, KeyFieldUnparsed},
}

// timeValues are UTCEventTime spellings.
var timeValues = []struct{ val, want string }{
	{`"2026-06-03T15:42:07Z"`, ""}, {`"2024-02-29T00:00:00Z"`, ""}, {`"1970-01-01T00:00:00Z"`, ""},
	{`"2106-02-07T06:28:15Z"`, ""}, {`"2106-02-07T06:28:16Z"`, ""}, {`"2106-12-31T23:59:59Z"`, ""},
	{`"2026-06-03T0::42:07Z"`, ""}, {`"2026-06-03T12:4?:00Z"`, ""}, {`"20:6-06-03T12:00:00Z"`, ""},
	{`"2026-06-03T15:42:07.000Z"`, KeyFieldUnparsed}, {`"2026-06-03T15:42:07+00:00"`, KeyFieldUnparsed},
	{`"2026-06-03 15:42:07Z"`, KeyFieldUnparsed}, {`"2026-06-03T15:42:07"`, KeyFieldUnparsed},
	{`"2026-06-03T15:42:07Zx"`, KeyFieldUnparsed}, {`"2026-02-30T00:00:00Z"`, KeyFieldUnparsed},
	{`"2023-02-29T00:00:00Z"`, KeyFieldUnparsed}, {`"1969-12-31T23:59:59Z"`, KeyFieldUnparsed},
	{`"2107-01-01T00:00:00Z"`, KeyFieldUnparsed}, {`"2026-06-03T24:00:00Z"`, KeyFieldUnparsed},
	{`"2026-06-03T23:60:00Z"`, KeyFieldUnparsed}, {`"2026-06-03T23:59:60Z"`, KeyFieldUnparsed},
	{`"2026-06-03T0:42:07Z"`, KeyFieldUnparsed}, {`"2026-6-03T12:00:00Z"`, KeyFieldUnparsed},
	{`"2026-06-03t12:00:00Z"`, KeyFieldUnparsed}, {`"2026-06-03T12:00:00z"`, KeyFieldUnparsed},
	{`"2026-00-03T12:00:00Z"`, KeyFieldUnparsed}, {`"2026-06-00T12:00:00Z"`, KeyFieldUnparsed},
	{`"2026-06-03"`, KeyFieldUnparsed}, {`""`, KeyFieldUnparsed}, {`1780501327`, KeyFieldUnparsed},
	{`null`, KeyFieldUnparsed}, {`["2026-06-03T15:42:07Z"]`, KeyFieldUnparsed},
	{`"2026-06-03T15:42:07\u005a"`, ""}, {`" 2026-06-03T15:42:07Z"`, KeyFieldUnparsed},
}

// hitSamples is the hand-labelled hit corpus.
func hitSamples(t testing.TB) []sample {
	pv := goldenFile(t, "hit_pageview.golden")
	pu := goldenFile(t, "hit_purchase.golden")
	var s []sample
	add := func(name string, raw []byte, want string) { s = append(s, sample{name, raw, want}) }

	// Accepted, including bytes that look wrong but pass.
	add("golden pageview", pv, "")
	add("golden purchase", pu, "")
	for i, h := range generatedHits(60, 1) {
		add(fmt.Sprintf("generated hit %d", i), h, "")
	}
	add("BOM before the object", cat([]byte("\xEF\xBB\xBF"), pv), "")
	add("whitespace around", cat([]byte(" \t\r\n"), pv, []byte("\n\r\t ")), "")
	add("pretty-printed", prettyJSON(t, pu), "")
	add("key spelled with an escape", rawKeyed(pv, "WatchID", `"Watch\u0049D"`), "")
	add("keys in another order", object(reversed(members(t, pv))), "")
	add("non-key column with a wrong type", withValue(t, pv, "URL", `123`), "")
	add("non-key array column as a string", withValue(t, pu, "GoalsReached", `"x"`), "")
	add("non-key column null", withValue(t, pv, "Sign", `null`), "")
	add("non-key column nested object", withValue(t, pv, "Title", `{"a":[1,{"b":null}]}`), "")
	add("DEL byte inside a string", withValue(t, pv, "Title", "\"a\x7fb\""), "")
	add("escaped NUL inside a string", withValue(t, pv, "Title", `"a\u0000b"`), "")
	add("astral character inside a string", withValue(t, pv, "Title", `"😀 \ud83d\ude00"`), "")
	add("nesting of depth 1023 in a non-key column", withValue(t, pv, "Title", nested(1022)), "")
	add("empty array at depth 1024", withValue(t, pv, "Title", nestedEmpty(1022)), "")

	// Vanishing.
	add("empty message", []byte{}, vanish)

	// not_an_object.
	for _, cut := range []int{1, 2, 10, len(pv) / 2, len(pv) - 2, len(pv) - 1} {
		add(fmt.Sprintf("truncated to %d bytes", cut), pv[:cut], NotAnObject)
	}
	add("invalid UTF-8 inside a string", withValue(t, pv, "Title", "\"\xd0\xcf\xd3\xd5\xc4\xc1\""), NotAnObject)
	add("lone continuation byte", withValue(t, pv, "Title", "\"a\x80b\""), NotAnObject)
	add("UTF-8 surrogate", withValue(t, pv, "Title", "\"\xed\xa0\x80\""), NotAnObject)
	add("overlong NUL", withValue(t, pv, "Title", "\"\xc0\x80\""), NotAnObject)
	add("code point above U+10FFFF", withValue(t, pv, "Title", "\"\xf4\x90\x80\x80\""), NotAnObject)
	add("0xFF before the object", cat([]byte{0xFF}, pv), NotAnObject)
	add("plain text line", []byte("hello, world"), NotAnObject)
	add("log line", []byte("2026-06-03 15:42:07 INFO hit accepted"), NotAnObject)
	add("JSON integer", []byte("123"), NotAnObject)
	add("JSON string", []byte(`"hit"`), NotAnObject)
	add("JSON true", []byte("true"), NotAnObject)
	add("JSON null", []byte("null"), NotAnObject)
	add("JSON array of the hit", cat([]byte("["), pv, []byte("]")), NotAnObject)
	add("empty array", []byte("[]"), NotAnObject)
	add("whitespace only", []byte(" \n"), NotAnObject)
	add("trailing garbage", cat(pv, []byte("x")), NotAnObject)
	add("two objects", cat(pv, pv), NotAnObject)
	add("two objects with a newline", cat(pv, []byte("\n"), pv), NotAnObject)
	add("trailing NUL", cat(pv, []byte{0}), NotAnObject)
	add("leading NUL", cat([]byte{0}, pv), NotAnObject)
	add("form feed before", cat([]byte("\f"), pv), NotAnObject)
	add("vertical tab after", cat(pv, []byte("\v")), NotAnObject)
	add("no-break space before", cat([]byte("\u00a0"), pv), NotAnObject)
	add("BOM after whitespace", cat([]byte(" \xEF\xBB\xBF"), pv), NotAnObject)
	add("two BOMs", cat([]byte("\xEF\xBB\xBF\xEF\xBB\xBF"), pv), NotAnObject)
	add("BOM after the object", cat(pv, []byte("\xEF\xBB\xBF")), NotAnObject)
	add("trailing comma", bytes.Replace(pv, []byte(`""}`), []byte(`"",}`), 1), NotAnObject)
	add("single-quoted key", rawKeyed(pv, "Sign", `'Sign'`), NotAnObject)
	add("bare key", rawKeyed(pv, "Sign", `Sign`), NotAnObject)
	add("raw tab inside a string", withValue(t, pv, "Title", "\"a\tb\""), NotAnObject)
	add("raw newline inside a string", withValue(t, pv, "Title", "\"a\nb\""), NotAnObject)
	add("bad escape", withValue(t, pv, "Title", `"a\xb"`), NotAnObject)
	add("escaped single quote", withValue(t, pv, "Title", `"a\'b"`), NotAnObject)
	add("short unicode escape", withValue(t, pv, "Title", `"\u12"`), NotAnObject)
	add("lone high surrogate escape", withValue(t, pv, "Title", `"\ud800"`), NotAnObject)
	add("lone low surrogate escape", withValue(t, pv, "Title", `"\udc00"`), NotAnObject)
	add("high surrogate before a letter", withValue(t, pv, "Title", `"\ud800\u0041"`), NotAnObject)
	add("leading zero in a number", withValue(t, pv, "Sign", `01`), NotAnObject)
	add("leading plus in a number", withValue(t, pv, "Sign", `+1`), NotAnObject)
	add("NaN literal", withValue(t, pv, "Sign", `NaN`), NotAnObject)
	add("Infinity literal", withValue(t, pv, "Sign", `Infinity`), NotAnObject)
	add("fraction without digits", withValue(t, pv, "Sign", `1.`), NotAnObject)
	add("fraction without integer", withValue(t, pv, "Sign", `.5`), NotAnObject)
	add("exponent without digits", withValue(t, pv, "Sign", `1e`), NotAnObject)
	add("double overflow in a non-key column", withValue(t, pv, "Sign", `1E400`), NotAnObject)
	add("integer above UInt64 in a non-key column", withValue(t, pv, "YCLID", `18446744073709551616`), NotAnObject)
	add("integer below Int64 in a non-key column", withValue(t, pv, "Sign", `-9223372036854775809`), NotAnObject)
	add("WatchID above UInt64", withValue(t, pv, "WatchID", `99999999999999999999`), NotAnObject)
	add("capitalised true", withValue(t, pv, "Sign", `True`), NotAnObject)
	add("truncated literal", withValue(t, pv, "Sign", `nul`), NotAnObject)
	add("glued literals", withValue(t, pv, "Sign", `truefalse`), NotAnObject)
	add("missing colon", bytes.Replace(pv, []byte(`"Sign":`), []byte(`"Sign" `), 1), NotAnObject)
	add("missing comma", bytes.Replace(pv, []byte(`,"URL"`), []byte(` "URL"`), 1), NotAnObject)
	add("nesting of depth 1024", withValue(t, pv, "Title", nested(1023)), NotAnObject)
	add("empty array inside depth 1024", withValue(t, pv, "Title", nestedEmpty(1023)), NotAnObject)
	add("objects nested 1024 deep", withValue(t, pv, "Title", nestedObjects(1023)), NotAnObject)
	add("cp1251 text", []byte{0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2}, NotAnObject)

	// keyset_mismatch.
	add("empty object", []byte("{}"), KeysetMismatch)
	add("empty object with spaces", []byte("{ }"), KeysetMismatch)
	for _, k := range []string{"WatchID", "EventDate", "Sign", "ecommerce", "productEventType"} {
		add("missing "+k, without(t, pv, k), KeysetMismatch)
	}
	add("extra key", appended(t, pv, "Extra", `1`), KeysetMismatch)
	add("extra empty key", appended(t, pv, "", `1`), KeysetMismatch)
	add("renamed key", renamed(t, pv, "Referer", "Referrer"), KeysetMismatch)
	add("wrong case", renamed(t, pv, "WatchID", "watchID"), KeysetMismatch)
	add("wrong case, lower ecommerce", renamed(t, pv, "ecommerce", "Ecommerce"), KeysetMismatch)
	add("key with a trailing space", renamed(t, pv, "Sign", "Sign "), KeysetMismatch)
	add("duplicate key", appended(t, pv, "WatchID", `1`), KeysetMismatch)
	add("duplicate key replacing another", renamed(t, pv, "VisitID", "WatchID"), KeysetMismatch)
	add("snake_case key", renamed(t, pv, "WatchID", "watch_id"), KeysetMismatch)
	add("keyset mismatch wins over a bad id", withValue(t, without(t, pv, "Sign"), "WatchID", `"abc"`), KeysetMismatch)
	add("an order on the hits topic", goldenFile(t, "order_example.golden"), KeysetMismatch)
	add("object with one key", []byte(`{"WatchID":1}`), KeysetMismatch)

	// key_field_unparsed and the accepted oddities of key fields.
	for _, k := range []string{"WatchID", "VisitID", "ClientID"} {
		for _, v := range idValues {
			add(k+" = "+v.val, withValue(t, pv, k, v.val), v.want)
		}
	}
	for _, v := range dateValues {
		add("EventDate = "+v.val, withValue(t, pv, "EventDate", v.val), v.want)
	}
	for _, v := range timeValues {
		add("UTCEventTime = "+v.val, withValue(t, pu, "UTCEventTime", v.val), v.want)
	}
	add("two bad key fields", withValue(t, withValue(t, pv, "WatchID", `-1`), "EventDate", `"x"`), KeyFieldUnparsed)
	return s
}

func reversed(kvs []kv) []kv {
	out := make([]kv, len(kvs))
	for i, m := range kvs {
		out[len(kvs)-1-i] = m
	}
	return out
}

// nested returns depth non-empty arrays around a number: [[…[1]…]].
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// nestedEmpty returns depth non-empty arrays around an empty one: [[…[[]]…]].
func nestedEmpty(depth int) string {
	return strings.Repeat("[", depth) + "[]" + strings.Repeat("]", depth)
}

// nestedObjects returns depth nested objects: {"a":{"a":…1…}}.
func nestedObjects(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// jsonQuote encodes s as a JSON string the way the generator does (control bytes as \u00XX).
func jsonQuote(s string) string { return string(schema.AppendString(nil, s)) }

func prettyJSON(t testing.TB, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// orderSamples is the hand-labelled order corpus.
func orderSamples(t testing.TB) []sample {
	o := goldenFile(t, "order_example.golden")
	var s []sample
	add := func(name string, raw []byte, want string) { s = append(s, sample{name, raw, want}) }
	set := func(k, v string) []byte { return withValue(t, o, k, v) }

	add("golden order", o, "")
	add("empty message", []byte{}, vanish)
	add("BOM and whitespace", cat([]byte("\xEF\xBB\xBF \n"), o, []byte("\n")), "")
	add("user_id at UInt64 max", set("user_id", `18446744073709551615`), "")
	add("user_id zero", set("user_id", `0`), "")
	add("user_id minus zero", set("user_id", `-0`), "")
	add("empty items", set("items", `[]`), "")
	add("items of scalars", set("items", `[1,"a",null]`), "")
	add("empty order_id", set("order_id", `""`), "")
	add("unknown status", set("status", `"shipped"`), "")
	add("money with leading zeros", set("discount", `"0000000000000000000001.00"`), "")
	add("money at the Decimal(18,2) limit", set("total", `"9999999999999999.99"`), "")
	add("money with 300 leading zeros", set("total", `"`+strings.Repeat("0", 300)+`1.00"`), "")
	add("money 00.00", set("discount", `"00.00"`), "")
	add("leap day", set("created_at", `"2024-02-29T00:00:00.000Z"`), "")
	add("year 0000 leap day", set("created_at", `"0000-02-29T23:59:59.999Z"`), "")
	add("year 9999", set("updated_at", `"9999-12-31T23:59:59.999Z"`), "")
	add("snapshot in year 0001", set("snapshot_date", `"0001-01-01"`), "")
	add("snapshot on a leap day", set("snapshot_date", `"2000-02-29"`), "")
	add("escaped digit in a time", set("created_at", `"2026-06-01T09:15:42.31\u0037Z"`), "")

	add("truncated", o[:len(o)-1], NotAnObject)
	add("scalar", []byte(`42`), NotAnObject)
	add("array", cat([]byte("["), o, []byte("]")), NotAnObject)
	add("invalid UTF-8", set("status", "\"p\xe4id\""), NotAnObject)
	add("plain text", []byte("order 20260601-0042 paid"), NotAnObject)
	add("user_id above UInt64", set("user_id", `18446744073709551616`), NotAnObject)

	add("empty object", []byte(`{}`), KeysetMismatch)
	add("missing items", without(t, o, "items"), KeysetMismatch)
	add("extra key", appended(t, o, "comment", `""`), KeysetMismatch)
	add("renamed key", renamed(t, o, "user_id", "userId"), KeysetMismatch)
	add("duplicate key", appended(t, o, "status", `"paid"`), KeysetMismatch)
	add("a hit on the orders topic", goldenFile(t, "hit_pageview.golden"), KeysetMismatch)

	for _, c := range []struct{ name, key, val string }{
		{"money with a minus", "total", `"-1.00"`},
		{"money as a number", "items_total", `5169.8`},
		{"money as an integer", "items_total", `5169`},
		{"money with three decimals", "discount", `"361.880"`},
		{"money with one decimal", "delivery", `"299.0"`},
		{"money without decimals", "delivery", `"299"`},
		{"money with a plus", "total", `"+5106.92"`},
		{"money with a comma", "total", `"5106,92"`},
		{"money with spaces", "total", `" 5106.92"`},
		{"money too big for Decimal(18,2)", "total", `"10000000000000000.00"`},
		{"money too big behind leading zeros", "total", `"00000000000000000000010000000000000000.00"`},
		{"money null", "total", `null`},
		{"money Arabic digits", "total", `"١٢.٠٠"`},
		{"time without millis", "created_at", `"2026-06-01T09:15:42Z"`},
		{"time with an offset", "created_at", `"2026-06-01T09:15:42.317+00:00"`},
		{"time with four fraction digits", "updated_at", `"2026-06-01T11:02:07.3170Z"`},
		{"time with a space", "updated_at", `"2026-06-01 11:02:07.317Z"`},
		{"time lower-case z", "updated_at", `"2026-06-01T11:02:07.317z"`},
		{"time trailing garbage", "updated_at", `"2026-06-01T11:02:07.317Zx"`},
		{"time on Feb 30", "created_at", `"2026-02-30T09:15:42.317Z"`},
		{"time on Feb 29 of a common year", "created_at", `"2100-02-29T09:15:42.317Z"`},
		{"time at hour 24", "created_at", `"2026-06-01T24:00:00.000Z"`},
		{"time at second 60", "created_at", `"2026-06-01T23:59:60.000Z"`},
		{"time in month 13", "created_at", `"2026-13-01T00:00:00.000Z"`},
		{"time as epoch millis", "created_at", `1780305342317`},
		{"user_id as a string", "user_id", `"3141592653589793"`},
		{"user_id negative", "user_id", `-1`},
		{"user_id as a double", "user_id", `1.0`},
		{"user_id in exponent form", "user_id", `1e3`},
		{"user_id null", "user_id", `null`},
		{"user_id true", "user_id", `true`},
		{"items as a string", "items", `"[]"`},
		{"items as an object", "items", `{}`},
		{"items null", "items", `null`},
		{"order_id as a number", "order_id", `20260601`},
		{"order_id null", "order_id", `null`},
		{"status as a number", "status", `1`},
		{"snapshot_date without zero padding", "snapshot_date", `"2026-6-3"`},
		{"snapshot_date on Feb 30", "snapshot_date", `"2026-02-30"`},
		{"snapshot_date with a time", "snapshot_date", `"2026-06-03T00:00:00.000Z"`},
		{"snapshot_date as a number", "snapshot_date", `20260603`},
		{"snapshot_date with a newline", "snapshot_date", `"2026-06-03\n"`},
		{"snapshot_date dotted", "snapshot_date", `"03.06.2026"`},
	} {
		add(c.name, set(c.key, c.val), FieldInvalid)
	}
	return s
}

// fuzzHits returns deterministic random mutations of valid hits: byte-level damage, and
// value-level damage aimed at the key fields' parsers. Classes are left to the engine.
func fuzzHits(t testing.TB, n int, seed uint64) []sample {
	r := rand.New(rand.NewPCG(seed, 0xfeed))
	bases := append(generatedHits(8, seed), goldenFile(t, "hit_pageview.golden"), goldenFile(t, "hit_purchase.golden"))
	var s []sample
	for i := range n {
		base := bases[r.IntN(len(bases))]
		var raw []byte
		switch r.IntN(7) {
		case 5:
			raw = withValue(t, base, "Title", randomJSON(r, 0))
		case 6:
			raw = []byte(randomJSON(r, 0))
		case 0:
			raw = mutateBytes(r, base)
		case 1:
			raw = withValue(t, base, []string{"WatchID", "VisitID", "ClientID"}[r.IntN(3)], randomNumberish(r))
		case 2:
			raw = withValue(t, base, "EventDate", jsonQuote(randomDateish(r)))
		case 3:
			raw = withValue(t, base, "UTCEventTime", jsonQuote(damage(r, "2026-06-03T15:42:07Z")))
		case 4:
			raw = withValue(t, base, "EventDate", jsonQuote(damage(r, "2026-06-03")))
		}
		s = append(s, sample{fmt.Sprintf("fuzz hit %d", i), raw, anyClass})
	}
	return s
}

func fuzzOrders(t testing.TB, n int, seed uint64) []sample {
	r := rand.New(rand.NewPCG(seed, 0xbeef))
	base := goldenFile(t, "order_example.golden")
	var s []sample
	for i := range n {
		var raw []byte
		switch r.IntN(6) {
		case 0:
			raw = mutateBytes(r, base)
		case 1:
			k := []string{"created_at", "updated_at"}[r.IntN(2)]
			raw = withValue(t, base, k, jsonQuote(damage(r, "2026-06-01T09:15:42.317Z")))
		case 2:
			raw = withValue(t, base, "snapshot_date", jsonQuote(damage(r, "2026-06-03")))
		case 3:
			k := []string{"items_total", "discount", "delivery", "total"}[r.IntN(4)]
			raw = withValue(t, base, k, jsonQuote(damage(r, "5169.80")))
		case 4:
			raw = withValue(t, base, "user_id", randomNumberish(r))
		case 5:
			raw = withValue(t, base, "created_at", jsonQuote(randomTimestamp(r)))
		}
		s = append(s, sample{fmt.Sprintf("fuzz order %d", i), raw, anyClass})
	}
	return s
}

// Pieces for randomJSON: numbers around simdjson's type and range boundaries, strings with
// every escape kind (valid and not), raw multi-byte text, odd whitespace.
var (
	jsonNumbers = []string{"0", "-0", "1", "-1", "01", "1.", ".5", "1.5", "-0.0", "1e5", "1E+5", "1e-5", "0e99999",
		"1e308", "1e309", "-1e309", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
		"1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "+1", "--1", "1e", "1e+", "0x10", "NaN", "-"}
	jsonStrings = []string{`""`, `"a"`, `"\u0041"`, `"\u00e9"`, `"\uD83D\uDE00"`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`,
		`"\/"`, `"\b\f\n\r\t"`, `"\x"`, `"\'"`, `"\u12"`, `"\u00G0"`, "\"\t\"", "\"\x01\"", "\"\x7f\"", `"дом"`,
		"\"\xe2\x80\x94\"", "\"\xff\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x90\x80\x80\"",
		`"\u0000"`, `"a`, `"\"`, `"\\"`}
	jsonSpaces = []string{"", "", "", " ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "\xef\xbb\xbf"}
)

// randomJSON returns a random JSON-like value: usually valid, with invalid pieces and
// boundary numbers mixed in, nested a few levels (and sometimes about 1024 deep).
func randomJSON(r *rand.Rand, depth int) string {
	ws := func() string { return jsonSpaces[r.IntN(len(jsonSpaces))] }
	if depth == 0 && r.IntN(40) == 0 {
		d := 1020 + r.IntN(8)
		return strings.Repeat("[", d) + jsonNumbers[r.IntN(3)] + strings.Repeat("]", d)
	}
	n := r.IntN(10)
	if depth > 3 {
		n = r.IntN(6)
	}
	switch {
	case n < 2:
		return ws() + jsonNumbers[r.IntN(len(jsonNumbers))] + ws()
	case n < 4:
		return ws() + jsonStrings[r.IntN(len(jsonStrings))] + ws()
	case n == 4:
		return []string{"true", "false", "null", "tru", "nulll", "True"}[r.IntN(6)]
	case n == 5:
		return []string{"{}", "[]", "{ }", "[ ]", "{", "]", "[,]", "{,}"}[r.IntN(8)]
	case n < 8:
		var parts []string
		for range 1 + r.IntN(4) {
			parts = append(parts, randomJSON(r, depth+1))
		}
		sep := ","
		if r.IntN(20) == 0 {
			sep = ",,"
		}
		return ws() + "[" + strings.Join(parts, sep) + "]" + ws()
	default:
		var parts []string
		for range 1 + r.IntN(4) {
			k := jsonStrings[r.IntN(len(jsonStrings))]
			if r.IntN(3) > 0 {
				k = `"k` + strconv.Itoa(r.IntN(3)) + `"`
			}
			colon := ":"
			if r.IntN(30) == 0 {
				colon = ""
			}
			parts = append(parts, ws()+k+ws()+colon+randomJSON(r, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

const mutationBytes = "{}[]\":,.0123456789eE+-tfnul\\ \t\n\x00\x7f\x80\xbf\xc3\xe2\xef\xffaZ"

func mutateBytes(r *rand.Rand, base []byte) []byte {
	b := bytes.Clone(base)
	for range 1 + r.IntN(3) {
		if len(b) == 0 {
			break
		}
		i := r.IntN(len(b))
		switch r.IntN(4) {
		case 0: // replace
			b[i] = mutationBytes[r.IntN(len(mutationBytes))]
		case 1: // insert
			b = append(b[:i], append([]byte{mutationBytes[r.IntN(len(mutationBytes))]}, b[i:]...)...)
		case 2: // delete a run
			j := min(len(b), i+1+r.IntN(4))
			b = append(b[:i], b[j:]...)
		case 3: // truncate
			b = b[:i]
		}
	}
	return b
}

// randomNumberish returns a JSON value that is or resembles a number, often in a string.
func randomNumberish(r *rand.Rand) string {
	const alphabet = "0123456789+-.eE nNaAiIfx_"
	var b strings.Builder
	for range 1 + r.IntN(8) {
		if r.IntN(3) == 0 {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		} else {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	tok := b.String()
	switch r.IntN(4) {
	case 0:
		if _, ok := parseDocument([]byte(tok)); ok {
			return tok
		}
	case 1:
		return strconv.FormatUint(r.Uint64()>>r.IntN(64), 10)
	case 2:
		return strconv.FormatFloat(r.NormFloat64()*float64(uint64(1)<<r.IntN(70)), 'g', -1, 64)
	}
	return jsonQuote(tok)
}

func randomDateish(r *rand.Rand) string {
	const delims = "-/. x:T0"
	var b strings.Builder
	for range 4 {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	for range 2 {
		if r.IntN(4) > 0 {
			b.WriteByte(delims[r.IntN(len(delims))])
		}
		for range 1 + r.IntN(2) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(8) == 0 {
		b.WriteByte(delims[r.IntN(len(delims))])
	}
	return b.String()
}

func randomTimestamp(r *rand.Rand) string {
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", r.IntN(10000), r.IntN(14), r.IntN(33), r.IntN(26), r.IntN(62), r.IntN(62), r.IntN(1000))
}

// damage changes one or two bytes of a valid spelling into nearby characters.
func damage(r *rand.Rand, s string) string {
	const near = "0123456789:;<=>?/-.TZtz +\x00"
	b := []byte(s)
	for range 1 + r.IntN(2) {
		i := r.IntN(len(b))
		switch r.IntN(5) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i], append([]byte{near[r.IntN(len(near))]}, b[i:]...)...)
		default:
			b[i] = near[r.IntN(len(near))]
		}
		if len(b) == 0 {
			break
		}
	}
	return string(b)
}
