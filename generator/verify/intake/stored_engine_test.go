package intake

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
)

// storedCorpus is JSON values a member of a message may hold, the lenient and the odd: what
// JSONExtract into each type is measured on.
var storedCorpus = []string{
	`0`, `1`, `-1`, `-0`, `7`, `127`, `128`, `-128`, `-129`, `255`, `256`, `300`, `65535`, `65536`, `-32768`, `-32769`,
	`2147483647`, `2147483648`, `4294967295`, `4294967296`, `9223372036854775807`, `-9223372036854775808`,
	`9223372036854775808`, `18446744073709551615`, `123456789012345678`,
	`1.5`, `-1.5`, `1.7`, `-0.5`, `-0.0`, `0.5`, `255.9`, `255.0`, `127.9`, `-128.9`, `1e3`, `1E-7`, `1e-6`, `1e21`, `1e20`,
	`1e23`, `0.1`, `0.29`, `19.99`, `1.005`, `1.015`, `1.125`, `2.675`, `4.35`, `1234.5`, `0.07`, `9.3e18`, `9.3e15`, `1e300`,
	`5e-324`, `1.7976931348623157e308`, `12345678912345678`, `4294967295.5`, `65535.5`, `2147483647.9`,
	`true`, `false`, `null`,
	`""`, `"x"`, `"abc"`, `"12"`, `"+12"`, `"-12"`, `"012"`, `" 5"`, `"5 "`, `"1e2"`, `"1.5"`, `"12.30"`, `"12.345"`, `"-0"`,
	`"300"`, `"0x10"`, `"UTC+4"`, `"one"`, `"wide"`, `"42150001"`, `"2026-06-01"`, `"Дом и уют"`, `"a\/b"`,
	`"\u00e9\ud83d\ude00\u007f\u0000"`, `"\b\f\t\r\n\u001f\u2028\u2029<>&'\"\\"`, `"18446744073709551616"`, `"-9223372036854775809"`,
	`"12345678912345678"`, `"1234567890123456.78"`, `99999999999999999`, `"99999999999999999.99"`, `"1e400"`, `"1e-400"`,
	`[]`, `[1]`, `[1,2,3]`, `[1,"2",null,true,"x",[3],{"b":1},-1,1.9]`, `["a","b"]`, `[""]`, `[42150001]`, `[1234.5,0.29]`,
	`["HOME-0015","x\ny"]`, `[1, 2.50 ,"x"]`, `[[1,2],[3]]`, `[-5,300,70000]`,
	`{}`, `{"b":1}`, `{"x":"a/b\u0001\"é\n","y":[1,{"z":null}]}`, `{ "k" : 1.50 }`,
}

// storedTypes are the types JSONExtract is measured into.
var storedTypes = []string{
	"String", "FixedString(3)", "LowCardinality(String)", "Nullable(String)",
	"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
	"Nullable(Int16)", "Nullable(UInt8)", "Nullable(UInt64)", "Nullable(Int64)",
	"Float32", "Float64", "Nullable(Float64)",
	"Decimal(18, 2)", "Decimal(9, 4)", "Decimal(38, 3)", "Nullable(Decimal(18, 2))",
	"Array(String)", "Array(UInt32)", "Array(Int64)", "Array(UInt64)", "Array(Float64)", "Array(Decimal(18, 2))",
	"Array(Nullable(UInt32))", "Array(LowCardinality(String))", "Array(Array(UInt8))",
}

// TestEngineAgreesOnStoredValues: for every value of storedCorpus and every type of
// storedTypes, the engine's JSONExtract(j, 'a', T) is, byte for byte in RowBinary, what
// appendExtract says, wherever appendExtract does not refuse the value as not modelled; the
// refusals are listed. JSONExtractRaw agrees with serializeJSON on every value.
func TestEngineAgreesOnStoredValues(t *testing.T) {
	s := openEngine(t)
	docs := make([]string, len(storedCorpus))
	for i, v := range storedCorpus {
		docs[i] = `{"a":` + v + `}`
	}
	literal := func(s string) string { return Quote(s) }
	var list []string
	for _, d := range docs {
		list = append(list, literal(d))
	}
	list = append(list, literal(`{"b":1}`)) // the key absent
	docs = append(docs, `{"b":1}`)
	from := "FROM (SELECT arrayJoin([" + strings.Join(list, ",") + "]) AS j, rowNumberInAllBlocks() AS n) ORDER BY n"
	refused := 0
	for _, name := range storedTypes {
		typ := chtype.MustParse(name)
		// One query per type; when the engine throws on a value (a Decimal that overflows), one
		// per value, and the model must refuse the values the engine throws on.
		out, err := s.Query("SELECT JSONExtract(j, 'a', "+Quote(name)+") "+from, "RowBinary")
		one := err != nil
		for i, doc := range docs {
			d, ok := parseDocument([]byte(doc))
			if !ok {
				t.Fatalf("%s does not parse", doc)
			}
			v, present := d.get("a")
			want, modelErr := appendExtract(nil, []byte(doc), v, present, typ)
			if one {
				out, err = s.Query("SELECT JSONExtract("+Quote(doc)+", 'a', "+Quote(name)+")", "RowBinary")
				if err != nil {
					if modelErr == nil {
						t.Errorf("%s as %s: the engine throws (%v), the model stores %s", doc, name, err, typ.Text(want, 80))
					}
					refused++
					continue
				}
			}
			n, _, err := typ.Size(out)
			if n == 0 || err != nil {
				t.Fatalf("%s: the engine's answer ends before row %d: %v", name, i, err)
			}
			got := out[:n]
			out = out[n:]
			if modelErr != nil {
				refused++
				t.Logf("%s as %s: not modelled (%v); the engine stores %s", doc, name, modelErr, typ.Text(got, 80))
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s as %s: the engine stores %s (% x), the model %s (% x)", doc, name, typ.Text(got, 80), got, typ.Text(want, 80), want)
			}
		}
		if len(out) != 0 {
			t.Errorf("%s: %d bytes after the last row", name, len(out))
		}
	}
	out, err := s.Query("SELECT JSONExtractRaw(j, 'a') "+from, "TSVRaw")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, doc := range docs[:len(docs)-1] {
		d, _ := parseDocument([]byte(doc))
		v, _ := d.get("a")
		want, err := serializeJSON(nil, []byte(doc), v)
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if strings.ContainsAny(string(want), "\t\n\\") {
			continue // TSVRaw cannot carry these: JSONExtract into String above compares them
		}
		if i >= len(lines) || lines[i] != string(want) {
			t.Errorf("JSONExtractRaw of %s: the engine %q, the model %q", doc, lines[min(i, len(lines)-1)], want)
		}
	}
	t.Logf("%d values × %d types: %d not modelled, the rest equal", len(docs), len(storedTypes), refused)
	if refused > len(docs)*len(storedTypes)/10 {
		t.Errorf("%d of %d not modelled: the model covers too little", refused, len(docs)*len(storedTypes))
	}
}

// TestStoredHitSpecialColumns: the columns the stand's parse reads otherwise than by
// JSONExtract into their type: the ids, EventDate and UTCEventTime, on accepted messages with
// lenient values, as the engine computes them with the stand's expressions.
func TestStoredHitSpecialColumns(t *testing.T) {
	s := openEngine(t)
	base := sampleHit()
	variants := []func(map[string]string){
		func(map[string]string) {},
		func(m map[string]string) { m["WatchID"] = `"123"` },
		func(m map[string]string) { m["WatchID"] = `1.5` },
		func(m map[string]string) { m["ClientID"] = `true` },
		func(m map[string]string) { m["VisitID"] = `"+7"` },
		func(m map[string]string) { m["EventDate"] = `"2024-02-30"` },
		func(m map[string]string) { m["EventDate"] = `"2024-13-45"` },
		func(m map[string]string) { m["EventDate"] = `"20260603"` },
		func(m map[string]string) { m["UTCEventTime"] = `"2026-06-01T0::00:00Z"` },
		func(m map[string]string) { m["UTCEventTime"] = `"2106-02-07T06:28:16Z"` },
		func(m map[string]string) { m["UTCEventTime"] = `"1970-01-01T00:00:00Z"` },
	}
	types := map[string][]string{
		hitWatchID: {"UInt64", "Nullable(UInt64)"}, hitVisitID: {"UInt64"}, hitClientID: {"UInt64"},
		hitEventDate: {"Date", "Date32"}, hitUTCEventTime: {"DateTime('UTC')", "DateTime64(3, 'UTC')", "DateTime64(0)"},
	}
	expr := map[string]string{
		hitWatchID: "assumeNotNull(JSONExtract(j, 'WatchID', 'Nullable(UInt64)'))", hitVisitID: "assumeNotNull(JSONExtract(j, 'VisitID', 'Nullable(UInt64)'))",
		hitClientID: "assumeNotNull(JSONExtract(j, 'ClientID', 'Nullable(UInt64)'))", hitEventDate: "assumeNotNull(JSONExtract(j, 'EventDate', 'Nullable(Date)'))",
		hitUTCEventTime: "assumeNotNull(parseDateTimeOrNull(JSONExtractString(j, 'UTCEventTime'), " + Quote(utcEventTimeFormat) + ", 'UTC'))",
	}
	for i, vary := range variants {
		doc := renderHit(base, vary)
		h, ok := ParseStoredHit([]byte(doc))
		if !ok {
			t.Fatalf("variant %d is not accepted: %s", i, doc)
		}
		for col, names := range types {
			for _, name := range names {
				typ := chtype.MustParse(name)
				if err := CheckHitColumn(col, typ); err != nil {
					t.Fatalf("%s %s: %v", col, name, err)
				}
				got, err := s.Query(fmt.Sprintf("SELECT CAST(%s AS %s) FROM (SELECT %s AS j)", expr[col], name, Quote(doc)), "RowBinary")
				if err != nil {
					t.Fatal(err)
				}
				want, err := h.Append(nil, col, typ)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("variant %d, %s as %s: the engine %s, the model %s (%v)", i, col, name, typ.Text(got, 80), typ.Text(want, 80), err)
				}
			}
		}
	}
	for col, bad := range map[string]string{hitWatchID: "UInt32", hitEventDate: "String", hitUTCEventTime: "UInt32", "URL": "Map(String, String)"} {
		typ, err := chtype.Parse(bad)
		if err == nil {
			err = CheckHitColumn(col, typ)
		}
		if err == nil {
			t.Errorf("%s as %s: accepted", col, bad)
		}
	}
}

// sampleHit is a clean hit's members, in contract order.
func sampleHit() [][2]string {
	return [][2]string{{"WatchID", "2055469396179959"}, {"VisitID", "6253901991679950"}, {"ClientID", "8474130467604038"},
		{"CounterID", "42150607"}, {"EventDate", `"2026-06-01"`}, {"UTCEventTime", `"2026-05-31T20:00:10Z"`}, {"ClientTimeZone", "180"},
		{"EventType", `"pageview"`}, {"Sign", "1"}, {"URL", `"https://shop.example.com/"`}, {"Referer", `""`}, {"Title", `"Дом и уют"`},
		{"UTMSource", `""`}, {"UTMMedium", `""`}, {"UTMCampaign", `""`}, {"UTMContent", `""`}, {"UTMTerm", `""`}, {"LastTrafficSource", `"direct"`},
		{"HasGCLID", "0"}, {"YCLID", "0"}, {"Browser", `"Chrome"`}, {"BrowserMajorVersion", "130"}, {"BrowserLanguage", `"ru"`},
		{"OperatingSystem", `"Android 13"`}, {"OperatingSystemRoot", `"Android"`}, {"DeviceCategory", "2"}, {"MobilePhoneModel", `""`},
		{"ScreenWidth", "393"}, {"ScreenHeight", "873"}, {"IPAddress", `"100.117.46.46"`}, {"RegionCountry", `"RU"`}, {"RegionCity", `"Moscow"`},
		{"RegionCountryID", "225"}, {"RegionCityID", "213"}, {"GoalsReached", "[]"}, {"ParsedParamsKey1", "[]"}, {"purchaseID", "[]"},
		{"purchaseRevenue", "[]"}, {"purchaseCurrency", "[]"}, {"purchaseCoupon", "[]"}, {"productID", "[]"}, {"productName", "[]"},
		{"productCategory", "[]"}, {"productPrice", "[]"}, {"productQuantity", "[]"}, {"productEventType", "[]"}, {"ecommerce", `""`}}
}

func renderHit(members [][2]string, vary func(map[string]string)) string {
	m := map[string]string{}
	for _, kv := range members {
		m[kv[0]] = kv[1]
	}
	vary(m)
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", kv[0], m[kv[0]])
	}
	b.WriteByte('}')
	return b.String()
}
