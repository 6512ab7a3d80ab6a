package intake

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/schema"
)

// This file says what the stand's typed tables hold of an accepted message, column by column,
// as RowBinary of the column's type: the value a store is judged against. The stand's parse
// of hits (sql/hits_pipeline.sql) reads the ids as JSONExtract(raw, k, 'Nullable(UInt64)'),
// EventDate as JSONExtract(raw, k, 'Nullable(Date)'), UTCEventTime with parseDateTimeOrNull
// and every other column with JSONExtract(raw, k, <the column's type>); its parse of orders
// (sql/orders_pull.sql) reads order_id and status with JSONExtractString, user_id as UInt64,
// the times with parseDateTime64InJodaSyntaxOrNull, the money with toDecimal64OrNull(…, 2),
// items with JSONExtractRaw and snapshot_date as a Joda date. JSONExtract's conversions are
// reproduced as ClickHouse 26.7 does them (measured on chDB, see stored_engine_test.go):
// lenient numbers from strings, out-of-range values as the type's default, arrays element by
// element, anything else re-serialized as JSON text into a String. Where the engine's answer
// is not reproduced here (a NaN or an infinity into an integer, a Decimal that overflows, a
// Bool), the value is refused with [ErrNotModelled] rather than guessed.

// ErrNotModelled is wrapped by the error of a value whose stored form this package does not
// reproduce for the type asked: a caller cannot compare that column of that message.
var ErrNotModelled = errors.New("intake: the value the engine stores is not modelled")

// ErrColumnType is wrapped by the error of a key column whose type is not one the stand's
// parse can fill (a WatchID that is not UInt64, an EventDate that is not a date).
var ErrColumnType = errors.New("intake: the column's type is not the stand's")

// StoredHit is a hit the stand's intake accepts, parsed once, whose columns [StoredHit.Append]
// renders as the typed table holds them.
type StoredHit struct {
	raw     []byte
	doc     document
	ordered bool // the members are the contract's keys in its order
}

// ParseStoredHit parses raw; ok is false when the intake does not accept it (it has no row of
// the typed table). raw must not change while h is used: h's strings are raw's bytes.
func ParseStoredHit(raw []byte) (h StoredHit, ok bool) {
	ok = h.Parse(raw)
	return h, ok
}

// Parse is ParseStoredHit into h, reusing its memory.
func (h *StoredHit) Parse(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	d, parsed := parseOrdered(raw, h.doc.members, hitKeys)
	if !parsed {
		d, parsed = parseInto(raw, d.members, true)
	}
	h.raw, h.doc = raw, d
	if classifyHitDoc(&h.doc, parsed) != "" {
		return false
	}
	h.ordered = h.doc.ordered == 1
	return true
}

// hitPos is each hit column's position in the contract's order.
var hitPos = func() map[string]int {
	m := map[string]int{}
	for i, k := range hitKeys {
		m[k] = i
	}
	return m
}()

// Row returns what the stand's key columns hold: WatchID, ClientID and EventDate.
func (h *StoredHit) Row() HitRow {
	var r HitRow
	w, _ := h.doc.get(hitWatchID)
	r.WatchID, _ = extractUInt64(w)
	c, _ := h.doc.get(hitClientID)
	r.ClientID, _ = extractUInt64(c)
	e, _ := h.doc.get(hitEventDate)
	r.EventDate, _ = extractDate(e)
	return r
}

// CheckHitColumn says whether the stand's parse can fill column, one of the 47 hit columns, of
// type t, and this package say with what: nil, or an error wrapping [ErrColumnType] (a key
// column of another type: WatchID, VisitID, ClientID are UInt64, EventDate a Date,
// UTCEventTime a DateTime) or [ErrNotModelled] (a type whose JSONExtract is not reproduced).
func CheckHitColumn(column string, t *chtype.Type) error {
	switch column {
	case hitWatchID, hitVisitID, hitClientID:
		return wantKinds(column, t, chtype.UInt64)
	case hitEventDate:
		return wantKinds(column, t, chtype.Date, chtype.Date32)
	case hitUTCEventTime:
		return wantKinds(column, t, chtype.DateTime, chtype.DateTime64)
	}
	if _, _, ok := schema.HitColumn(column); !ok {
		return fmt.Errorf("intake: %s is not a hit column", column)
	}
	return checkExtract(column, t)
}

// wantKinds accepts t when it is one of kinds, or Nullable of one.
func wantKinds(column string, t *chtype.Type, kinds ...chtype.Kind) error {
	base := t
	if base.Kind == chtype.Nullable {
		base = base.Elem
	}
	for _, k := range kinds {
		if base.Kind == k {
			return nil
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = (&chtype.Type{Kind: k}).String()
	}
	return fmt.Errorf("%w: %s is %s; the stand's parse fills it as %s", ErrColumnType, column, t, strings.Join(names, " or "))
}

// checkExtract accepts the types whose JSONExtract this file reproduces.
func checkExtract(column string, t *chtype.Type) error {
	switch t.Kind {
	case chtype.String, chtype.FixedString, chtype.Int8, chtype.Int16, chtype.Int32, chtype.Int64,
		chtype.UInt8, chtype.UInt16, chtype.UInt32, chtype.UInt64, chtype.Float32, chtype.Float64, chtype.Decimal:
		return nil
	case chtype.Array, chtype.Nullable, chtype.LowCardinality:
		return checkExtract(column, t.Elem)
	}
	return fmt.Errorf("%w: %s as %s", ErrNotModelled, column, t)
}

// Append appends what the typed table's column holds of h, as RowBinary of t (checked by
// [CheckHitColumn]).
func (h *StoredHit) Append(dst []byte, column string, t *chtype.Type) ([]byte, error) {
	pos, known := hitPos[column]
	if !known {
		return dst, fmt.Errorf("intake: %s is not a hit column", column)
	}
	return h.AppendColumn(dst, pos, t)
}

// AppendColumn is Append of the column at position i of the contract (schema.HitColumns).
func (h *StoredHit) AppendColumn(dst []byte, i int, t *chtype.Type) ([]byte, error) {
	column := hitKeys[i]
	var v value
	ok := true
	if h.ordered {
		v = h.doc.members[i].val
	} else {
		v, ok = h.doc.get(column)
	}
	// The key columns by contract position (WatchID, VisitID, ClientID, EventDate,
	// UTCEventTime), never NULL.
	if i <= 5 && i != 3 {
		if t.Kind == chtype.Nullable {
			dst, t = append(dst, 0), t.Elem
		}
		switch i {
		case 4:
			d, _ := extractDate(v)
			return appendDay(dst, t, int64(d)), nil
		case 5:
			sec, _ := utcEventSeconds(extractString(v))
			return appendInstant(dst, t, int64(sec), 0), nil
		}
		u, _ := extractUInt64(v)
		return binary.LittleEndian.AppendUint64(dst, u), nil
	}
	// The common cases first: a string into a String, an integer into an integer type.
	switch b := t.Base(); {
	case v.kind == kindString && b.Kind == chtype.String:
		return append(binary.AppendUvarint(dst, uint64(len(v.s))), v.s...), nil
	case v.kind == kindInt64 && v.i >= 0 && (b.Kind == chtype.UInt64 || b.Kind == chtype.Int64):
		return binary.LittleEndian.AppendUint64(dst, uint64(v.i)), nil
	}
	return appendExtract(dst, h.raw, v, ok, t)
}

// appendNullable writes a value that is never NULL into t or Nullable(t).
func appendNullable(dst []byte, t *chtype.Type, f func([]byte, *chtype.Type) []byte) []byte {
	if t.Kind == chtype.Nullable {
		return f(append(dst, 0), t.Elem)
	}
	return f(dst, t)
}

func appendDay(dst []byte, t *chtype.Type, d int64) []byte {
	if t.Kind == chtype.Date32 {
		return binary.LittleEndian.AppendUint32(dst, uint32(int32(d)))
	}
	return binary.LittleEndian.AppendUint16(dst, uint16(d))
}

// appendInstant writes sec seconds and ms milliseconds since 1970 into a DateTime (whole
// seconds, wrapped as UInt32) or a DateTime64(P) (ticks of 10^-P s, milliseconds truncated
// below P 3).
func appendInstant(dst []byte, t *chtype.Type, sec, ms int64) []byte {
	if t.Kind == chtype.DateTime {
		return binary.LittleEndian.AppendUint32(dst, uint32(sec))
	}
	ticks := sec*1000 + ms
	for p := t.N; p > 3; p-- {
		ticks *= 10
	}
	for p := t.N; p < 3; p++ {
		ticks /= 10
	}
	return binary.LittleEndian.AppendUint64(dst, uint64(ticks))
}

// utcEventSeconds is parseDateTimeOrNull(s, '%Y-%m-%dT%H:%i:%SZ', 'UTC') as an UInt32, with the
// parser's unchecked digits (see parseUTCEventTime); ok is false for NULL.
func utcEventSeconds(s string) (uint32, bool) {
	if !parseUTCEventTime(s) {
		return 0, false
	}
	num := func(i, n int) int64 {
		var r int64
		for k := i; k < i+n; k++ {
			r = r*10 + int64(int8(s[k])-'0')
		}
		return r
	}
	days := schema.DaysFromCivil(int(num(0, 4)), int(num(5, 2)), int(num(8, 2)))
	return uint32(days*86400 + num(11, 2)*3600 + num(14, 2)*60 + num(17, 2)), true
}

// StoredOrder is an order row the stand's intake accepts, parsed once.
type StoredOrder struct {
	raw []byte
	doc document
}

// ParseStoredOrder parses raw; ok is false when the intake does not accept it. raw must not
// change while o is used.
func ParseStoredOrder(raw []byte) (o StoredOrder, ok bool) {
	if len(raw) == 0 {
		return o, false
	}
	d, parsed := parseDocument(raw)
	if classifyOrderDoc(&d, parsed) != "" {
		return o, false
	}
	return StoredOrder{raw: raw, doc: d}, true
}

// ID returns order_id.
func (o *StoredOrder) ID() string { v, _ := o.doc.get(orderID); return v.s }

// SnapshotDate returns snapshot_date as the table holds it.
func (o *StoredOrder) SnapshotDate() schema.Date {
	v, _ := o.doc.get(orderSnapshotDate)
	d, _ := dateText(v.s)
	return d
}

// CheckOrderColumn says whether the stand's parse of orders can fill key, one of the 11 order
// keys, of type t: order_id, status and items are strings, user_id an UInt64, the times
// DateTime or DateTime64, the money Decimal, snapshot_date a Date.
func CheckOrderColumn(key string, t *chtype.Type) error {
	switch key {
	case orderID, orderStatus, orderItems:
		if !t.IsString(true) {
			return fmt.Errorf("%w: %s is %s; the stand's parse fills it as String", ErrColumnType, key, t)
		}
		return nil
	case orderUserID:
		return wantKinds(key, t, chtype.UInt64)
	case orderCreatedAt, orderUpdatedAt:
		return wantKinds(key, t, chtype.DateTime, chtype.DateTime64)
	case orderSnapshotDate:
		return wantKinds(key, t, chtype.Date, chtype.Date32)
	}
	for _, m := range orderMoney {
		if key == m {
			if err := wantKinds(key, t, chtype.Decimal); err != nil {
				return err
			}
			if t.Kind == chtype.Nullable {
				t = t.Elem
			}
			if t.N < 18 || t.Scale < 2 {
				return fmt.Errorf("%w: %s is %s; the stand's parse fills it as Decimal(18, 2)", ErrColumnType, key, t)
			}
			return nil
		}
	}
	return fmt.Errorf("intake: %s is not an order key", key)
}

// Append appends what the order table's column key holds of o, as RowBinary of t (checked by
// [CheckOrderColumn]).
func (o *StoredOrder) Append(dst []byte, key string, t *chtype.Type) ([]byte, error) {
	v, _ := o.doc.get(key)
	switch key {
	case orderID, orderStatus:
		return appendNullable(dst, t, func(dst []byte, _ *chtype.Type) []byte { return appendString(dst, v.s) }), nil
	case orderItems:
		raw, err := serializeJSON(nil, o.raw, v)
		if err != nil {
			return dst, err
		}
		return appendNullable(dst, t, func(dst []byte, _ *chtype.Type) []byte { return appendString(dst, string(raw)) }), nil
	case orderUserID:
		u, _ := extractUInt64(v)
		return appendNullable(dst, t, func(dst []byte, _ *chtype.Type) []byte { return binary.LittleEndian.AppendUint64(dst, u) }), nil
	case orderCreatedAt, orderUpdatedAt:
		s := v.s // YYYY-MM-DDTHH:MM:SS.mmmZ, a real instant (the intake checked it)
		n := func(i, w int) int64 { x, _ := strconv.ParseInt(s[i:i+w], 10, 64); return x }
		sec := schema.DaysFromCivil(int(n(0, 4)), int(n(5, 2)), int(n(8, 2)))*86400 + n(11, 2)*3600 + n(14, 2)*60 + n(17, 2)
		return appendNullable(dst, t, func(dst []byte, t *chtype.Type) []byte { return appendInstant(dst, t, sec, n(20, 3)) }), nil
	case orderSnapshotDate:
		d, _ := dateText(v.s)
		return appendNullable(dst, t, func(dst []byte, t *chtype.Type) []byte { return appendDay(dst, t, int64(d)) }), nil
	}
	// Money: ^\d+\.\d{2}$, at most 16 integer digits: the cents as an integer.
	cents, err := strconv.ParseInt(strings.Replace(v.s, ".", "", 1), 10, 64)
	if err != nil {
		return dst, fmt.Errorf("%w: %s %q", ErrNotModelled, key, v.s)
	}
	return appendNullable(dst, t, func(dst []byte, t *chtype.Type) []byte {
		d, _ := decimalScaled(big.NewInt(cents), 2, t)
		return append(dst, d...)
	}), nil
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendExtract appends JSONExtract(raw, key, t) for the member value v (present false: the key
// is absent, which JSONExtract treats as null).
func appendExtract(dst, raw []byte, v value, present bool, t *chtype.Type) ([]byte, error) {
	if !present {
		v = value{kind: kindNull}
	}
	out, ok, err := extractAs(dst, raw, v, t)
	if err != nil {
		return dst, err
	}
	if !ok {
		return appendDefault(dst, t), nil
	}
	return out, nil
}

// appendDefault writes t's default: 0, "", [], NULL for Nullable.
func appendDefault(dst []byte, t *chtype.Type) []byte {
	switch t.Kind {
	case chtype.Nullable:
		return append(dst, 1)
	case chtype.LowCardinality:
		return appendDefault(dst, t.Elem)
	case chtype.String, chtype.Array:
		return append(dst, 0)
	}
	return append(dst, make([]byte, t.Width())...)
}

// extractAs converts v into t as JSONExtract does: ok is false where the engine falls back to
// the type's default (or NULL).
func extractAs(dst, raw []byte, v value, t *chtype.Type) (out []byte, ok bool, err error) {
	switch t.Kind {
	case chtype.LowCardinality:
		return extractAs(dst, raw, v, t.Elem)
	case chtype.Nullable:
		if v.kind == kindNull {
			return dst, false, nil
		}
		out, ok, err := extractAs(append(dst, 0), raw, v, t.Elem)
		if !ok || err != nil {
			return dst, ok, err
		}
		return out, true, nil
	case chtype.Array:
		if v.kind != kindArray {
			return dst, false, nil
		}
		// Elements that do not convert are the element type's default, unless none converts:
		// then the array is not read at all (the column's default, []).
		elems := arrayElements(raw, v)
		start := len(dst)
		dst = binary.AppendUvarint(dst, uint64(len(elems)))
		valid := false
		for _, e := range elems {
			before := dst
			var ok bool
			var err error
			dst, ok, err = extractAs(dst, raw, e, t.Elem)
			if err != nil {
				return dst[:start], false, err
			}
			if !ok {
				dst = appendDefault(before, t.Elem)
			}
			valid = valid || ok
		}
		if len(elems) > 0 && !valid {
			return dst[:start], false, nil
		}
		return dst, true, nil
	case chtype.String, chtype.FixedString:
		var s []byte
		switch v.kind {
		case kindNull:
			return dst, false, nil
		case kindString:
			s = []byte(v.s)
		default:
			var err error
			if s, err = serializeJSON(nil, raw, v); err != nil {
				return dst, false, err
			}
		}
		if t.Kind == chtype.String {
			return append(binary.AppendUvarint(dst, uint64(len(s))), s...), true, nil
		}
		if len(s) > t.N {
			return dst, false, nil
		}
		return append(append(dst, s...), make([]byte, t.N-len(s))...), true, nil
	case chtype.Float32, chtype.Float64:
		var f float64
		switch v.kind {
		case kindInt64:
			f = float64(v.i)
		case kindUInt64:
			f = float64(v.u)
		case kindDouble:
			f = v.f
		case kindBool:
			f = b2f(v.b)
		case kindString:
			x, ok := readFloatText(v.s)
			if !ok {
				if f, err := strconv.ParseFloat(v.s, 64); err != nil && math.IsInf(f, 0) {
					return dst, false, fmt.Errorf("%w: %q as %s", ErrNotModelled, v.s, t)
				}
				return dst, false, nil
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return dst, false, fmt.Errorf("%w: %q as %s", ErrNotModelled, v.s, t)
			}
			f = x
		default:
			return dst, false, nil
		}
		if t.Kind == chtype.Float32 {
			if math.Abs(f) > math.MaxFloat32 {
				return dst, false, fmt.Errorf("%w: %v as Float32", ErrNotModelled, f)
			}
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), true, nil
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), true, nil
	case chtype.Decimal:
		return extractDecimal(dst, v, t)
	case chtype.Int8, chtype.Int16, chtype.Int32, chtype.Int64, chtype.UInt8, chtype.UInt16, chtype.UInt32, chtype.UInt64:
		return extractInt(dst, v, t)
	}
	return dst, false, fmt.Errorf("%w: JSONExtract as %s", ErrNotModelled, t)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// intRange is the range of an integer kind, and whether it is signed.
func intRange(k chtype.Kind) (lo int64, hi uint64, signed bool) {
	switch k {
	case chtype.Int8:
		return math.MinInt8, math.MaxInt8, true
	case chtype.Int16:
		return math.MinInt16, math.MaxInt16, true
	case chtype.Int32:
		return math.MinInt32, math.MaxInt32, true
	case chtype.Int64:
		return math.MinInt64, math.MaxInt64, true
	case chtype.UInt8:
		return 0, math.MaxUint8, false
	case chtype.UInt16:
		return 0, math.MaxUint16, false
	case chtype.UInt32:
		return 0, math.MaxUint32, false
	}
	return 0, math.MaxUint64, false
}

// extractInt is JSONExtract into an integer type: integers in range as they are, doubles
// truncated toward zero when within the range, bools 1 and 0, strings read as an integer (a
// sign, digits, nothing else) or else as a float; anything else, or out of range, the default.
func extractInt(dst []byte, v value, t *chtype.Type) ([]byte, bool, error) {
	lo, hi, signed := intRange(t.Kind)
	var neg bool
	var mag uint64 // |value|
	switch v.kind {
	case kindInt64:
		neg, mag = v.i < 0, absInt(v.i)
	case kindUInt64:
		mag = v.u
	case kindBool:
		if v.b {
			mag = 1
		}
	case kindDouble:
		var ok bool
		if neg, mag, ok = floatInt(v.f, lo, hi); !ok {
			return dst, false, nil
		}
	case kindString:
		if n, m, ok := readIntText(v.s, signed); ok {
			neg, mag = n, m
			break
		}
		f, ok := readFloatText(v.s)
		if !ok {
			return dst, false, nil
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return dst, false, fmt.Errorf("%w: %q as %s", ErrNotModelled, v.s, t)
		}
		if neg, mag, ok = floatInt(f, lo, hi); !ok {
			return dst, false, nil
		}
	default:
		return dst, false, nil
	}
	if neg && mag != 0 && (!signed || mag > uint64(-(lo+1))+1) || !neg && mag > hi {
		return dst, false, nil
	}
	x := mag
	if neg {
		x = -mag
	}
	switch t.Width() {
	case 1:
		return append(dst, byte(x)), true, nil
	case 2:
		return binary.LittleEndian.AppendUint16(dst, uint16(x)), true, nil
	case 4:
		return binary.LittleEndian.AppendUint32(dst, uint32(x)), true, nil
	}
	return binary.LittleEndian.AppendUint64(dst, x), true, nil
}

func absInt(i int64) uint64 {
	if i < 0 {
		return uint64(-(i + 1)) + 1
	}
	return uint64(i)
}

// floatInt truncates f toward zero when f lies within [lo, hi] (255.9 is past UInt8's 255,
// -0.5 is within Int16's range and gives 0); ok is false otherwise.
func floatInt(f float64, lo int64, hi uint64) (neg bool, mag uint64, ok bool) {
	if math.IsNaN(f) || f < float64(lo) {
		return false, 0, false
	}
	if hi < 1<<53 && f > float64(hi) || hi >= 1<<53 && f >= math.Ldexp(1, bits.Len64(hi)) {
		return false, 0, false
	}
	t := math.Trunc(f)
	if t < 0 {
		if t <= -math.Ldexp(1, 63) {
			return true, 1 << 63, true
		}
		return true, uint64(-t), true
	}
	return false, uint64(t), true
}

// readIntText reads s whole as an integer: an optional sign ('-' only when signed) and
// digits; ok is false otherwise or past Int64's range (signed) or UInt64's, where the engine
// reads s as a float instead.
func readIntText(s string, signed bool) (neg bool, mag uint64, ok bool) {
	neg, mag, ok = readDigits(s, signed)
	if ok && signed && (neg && mag > 1<<63 || !neg && mag > math.MaxInt64) {
		return false, 0, false
	}
	return neg, mag, ok
}

func readDigits(s string, signed bool) (neg bool, mag uint64, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-' && signed) {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return false, 0, false
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false, 0, false
		}
		d := uint64(c - '0')
		if mag > (math.MaxUint64-d)/10 {
			return false, 0, false
		}
		mag = mag*10 + d
	}
	return neg, mag, true
}

// extractDecimal is JSONExtract into Decimal(P, S): integers scaled, doubles through their
// shortest decimal form, strings as decimal text (digits past S dropped), truncated toward
// zero; bools, null, arrays and objects the default. A string whose value does not fit the
// Decimal's integer (32, 64 or 128 bits) is the default; an integer or a double that does not
// is not modelled (the engine throws).
func extractDecimal(dst []byte, v value, t *chtype.Type) ([]byte, bool, error) {
	var text string
	switch v.kind {
	case kindInt64:
		text = strconv.FormatInt(v.i, 10)
	case kindUInt64:
		text = strconv.FormatUint(v.u, 10)
	case kindDouble:
		text = strconv.FormatFloat(v.f, 'e', -1, 64)
	case kindString:
		text = v.s
	default:
		return dst, false, nil
	}
	n, ok := decimalText(text, t.Scale)
	if !ok {
		return dst, false, nil
	}
	out, fits := decimalScaled(n, t.Scale, t)
	if v.kind == kindString {
		// Text must fit the precision, not only the integer (measured: "12345678912345678"
		// is the default of a Decimal(18, 2), the number 12345678912345678 is stored).
		if !fits || new(big.Int).Abs(n).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.N)), nil)) >= 0 {
			return dst, false, nil
		}
	}
	if fits {
		return append(dst, out...), true, nil
	}
	return dst, false, fmt.Errorf("%w: %s as %s overflows", ErrNotModelled, text, t)
}

// decimalText reads [sign] digits [. digits] [e [sign] digits] as an integer of scale
// digits, dropping further digits (toward zero); ok is false for anything else.
func decimalText(s string, scale int) (*big.Int, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte
	point := -1
scan:
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		case c == '.' && point < 0:
			point = len(digits)
		default:
			break scan
		}
	}
	if len(digits) == 0 || len(digits) > 400 {
		return nil, false
	}
	if point < 0 {
		point = len(digits)
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return nil, false
		}
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return nil, false
		}
		point += e
	}
	// digits × 10^(point − len(digits)), as an integer of scale digits after the point.
	shift := point - len(digits) + scale
	n, _ := new(big.Int).SetString(string(digits), 10)
	if shift >= 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	} else {
		n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil))
	}
	if neg {
		n.Neg(n)
	}
	return n, true
}

// decimalScaled writes n, an integer of scale digits, as the unscaled integer of Decimal t
// (little-endian two's complement of t's width); fits is false when it does not fit that
// width.
func decimalScaled(n *big.Int, scale int, t *chtype.Type) ([]byte, bool) {
	n = new(big.Int).Set(n)
	for s := scale; s < t.Scale; s++ {
		n.Mul(n, big.NewInt(10))
	}
	for s := scale; s > t.Scale; s-- {
		n.Quo(n, big.NewInt(10))
	}
	w := chtype.DecimalWidth(t.N)
	limit := new(big.Int).Lsh(big.NewInt(1), uint(8*w-1))
	if n.Cmp(limit) >= 0 || n.Cmp(new(big.Int).Neg(limit)) < 0 {
		return nil, false
	}
	if n.Sign() < 0 {
		n.Add(n, new(big.Int).Lsh(big.NewInt(1), uint(8*w)))
	}
	be := n.FillBytes(make([]byte, w))
	out := make([]byte, w)
	for i := range be {
		out[w-1-i] = be[i]
	}
	return out, true
}

// arrayElements returns the elements of the array v of raw.
func arrayElements(raw []byte, v value) []value {
	p := parser{b: raw, i: int(v.lo)}
	p.i++ // '['
	var out []value
	for {
		p.ws()
		if p.b[p.i] == ']' {
			return out
		}
		e, ok := p.value(0)
		if !ok {
			return out
		}
		out = append(out, e)
		p.ws()
		if p.b[p.i] == ',' {
			p.i++
		}
	}
}

// serializeJSON appends v as ClickHouse writes a JSON value back as text (JSONExtractRaw, and
// JSONExtract into a String of a value that is not a string): no whitespace, members in their
// order, numbers in their shortest form, strings re-escaped.
func serializeJSON(dst, raw []byte, v value) ([]byte, error) {
	switch v.kind {
	case kindNull:
		return append(dst, "null"...), nil
	case kindBool:
		return strconv.AppendBool(dst, v.b), nil
	case kindInt64:
		return strconv.AppendInt(dst, v.i, 10), nil
	case kindUInt64:
		return strconv.AppendUint(dst, v.u, 10), nil
	case kindDouble:
		return appendCHFloat(dst, v.f), nil
	case kindString:
		return appendJSONString(dst, v.s), nil
	case kindArray:
		dst = append(dst, '[')
		for i, e := range arrayElements(raw, v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = serializeJSON(dst, raw, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case kindObject:
		p := parser{b: raw, i: int(v.lo)}
		var members []member
		if !p.object(0, &members) {
			return dst, fmt.Errorf("%w: an object that does not parse", ErrNotModelled)
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, m.key), ':')
			var err error
			if dst, err = serializeJSON(dst, raw, m.val); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("%w: a JSON value of kind %d", ErrNotModelled, v.kind)
}

// appendJSONString writes s as ClickHouse's JSON writer does: in quotes, with \" \\ \b \f \n
// \r \t, other control characters as \u00XX (upper-case hex), U+2028 and U+2029 as \u2028 and
// \u2029, everything else (the slash, non-ASCII) as it is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c < 0x20:
			dst = append(dst, fmt.Sprintf(`\u%04X`, c)...)
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == 0x2028 || r == 0x2029 {
				dst = append(dst, fmt.Sprintf(`\u%04x`, r)...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}

// appendCHFloat writes f as ClickHouse writes a Float64 as text: the shortest digits that
// read back as f, in fixed notation when the decimal point falls within 21 digits before
// and 6 after, else as d.ddde±N (no '+' on the exponent).
func appendCHFloat(dst []byte, f float64) []byte {
	e := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	if strings.HasPrefix(e, "-") {
		dst = append(dst, '-')
		e = e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // the decimal point's position after the digits' start
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		return append(dst, strings.Repeat("0", n-k)...)
	case 0 < n && n <= 21:
		return append(append(append(dst, digits[:n]...), '.'), digits[n:]...)
	case -6 < n && n <= 0:
		return append(append(append(dst, "0."...), strings.Repeat("0", -n)...), digits...)
	}
	dst = append(dst, digits[0])
	if k > 1 {
		dst = append(append(dst, '.'), digits[1:]...)
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, int64(n-1), 10)
}
