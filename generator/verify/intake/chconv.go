package intake

import (
	"math"
	"strconv"

	"github.com/clickgen/clickgen/schema"
)

// This file reproduces, value by value, the ClickHouse 26.7 conversions the intake predicates
// use. Each function names the expression it stands for; the chdb package's tests compare them
// with the real engine message by message.

// extractUInt64 stands for JSONExtract(raw, key, 'Nullable(UInt64)') on the member's value;
// ok is false where ClickHouse gives NULL. Measured rules (JSONExtractTree, allow_type_conversion
// on by default):
//
//   - Int64: negative → NULL; UInt64: as is; Bool: 1 / 0; null, arrays, objects → NULL;
//   - Double: NULL when negative (but -0.0 → 0) or ≥ 2^64, else truncated toward zero
//     (1.5 → 1, 1e3 → 1000, 1e19 → 10000000000000000000);
//   - String: first as an unsigned integer that must fill the whole string (optional '+',
//     digits, leading zeros fine, overflow fails: "123", "+123", "0123" → 123); failing that,
//     as a float that must fill the whole string (fast_float grammar: "1.5", ".5", "5.", "1e3",
//     "+.5", "inf", "nan", "nan(x)"), then converted like a Double. "-1", " 1", "1 ", "0x10",
//     "1e" are NULL. A NaN ("nan", "-nan") converts to 9223372036854775808: the engine casts it
//     to UInt64 without a range check, and x86 gives 2^63.
func extractUInt64(v value) (uint64, bool) {
	switch v.kind {
	case kindInt64:
		if v.i < 0 {
			return 0, false
		}
		return uint64(v.i), true
	case kindUInt64:
		return v.u, true
	case kindDouble:
		return floatToUInt64(v.f)
	case kindBool:
		if v.b {
			return 1, true
		}
		return 0, true
	case kindString:
		return stringToUInt64(v.s)
	}
	return 0, false
}

// floatToUInt64 is accurate::convertNumeric<Float64, UInt64, strict=false>.
func floatToUInt64(f float64) (uint64, bool) {
	if math.IsNaN(f) {
		return 1 << 63, true // static_cast of NaN on x86-64
	}
	if f < 0 || f >= 1<<64 {
		return 0, false
	}
	return uint64(f), true
}

func stringToUInt64(s string) (uint64, bool) {
	if u, ok := readUIntText(s); ok {
		return u, true
	}
	f, ok := readFloatText(s)
	if !ok {
		return 0, false
	}
	return floatToUInt64(f)
}

// readUIntText is tryReadIntText<UInt64> followed by an end-of-string check: an optional '+'
// and at least one digit, nothing else, no overflow.
func readUIntText(s string) (uint64, bool) {
	i := 0
	if i < len(s) && s[i] == '+' {
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var u uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	return u, true
}

// readFloatText is tryReadFloatText on a whole string as 26.7 does it (fast_float,
// chars_format::general | allow_leading_plus, correctly rounded), requiring the whole string
// to be consumed.
func readFloatText(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return infNaN(s)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		} // else: fast_float ignores a bad exponent and stops before 'e'
	}
	if i != len(s) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(s, 64) // grammar checked; only range errors remain
	if math.IsInf(f, 0) {
		return 0, false // out of range: an error in fast_float, NULL either way
	}
	return f, true
}

// infNaN is fast_float's parse_infnan over the whole string: [+-](inf|infinity|nan|nan(chars)),
// case-insensitive. Infinity is returned as +Inf (which no conversion accepts).
func infNaN(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	rest := s[i:]
	lower := func(t string) string {
		b := []byte(t)
		for k, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[k] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	switch {
	case len(rest) >= 3 && lower(rest[:3]) == "nan":
		tail := rest[3:]
		if tail == "" {
			return math.NaN(), true
		}
		// nan(n-char-sequence): letters, digits, '_' between parentheses.
		if tail[0] != '(' || tail[len(tail)-1] != ')' {
			return 0, false
		}
		for _, c := range []byte(tail[1 : len(tail)-1]) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
				return 0, false
			}
		}
		return math.NaN(), true
	case lower(rest) == "inf" || lower(rest) == "infinity":
		return math.Inf(1), true
	}
	return 0, false
}

// extractDate stands for JSONExtract(raw, key, 'Nullable(Date)'): only a JSON string is read,
// by tryReadDateText, and it must be consumed whole. The value is silently wrong rather than
// NULL for impossible dates (see dateText).
func extractDate(v value) (schema.Date, bool) {
	if v.kind != kindString {
		return 0, false
	}
	return dateText(v.s)
}

// dateText is tryReadDateText(DayNum) plus the end-of-string check. Accepted shapes:
//
//   - exactly 10 bytes: 4 digits, any non-digit byte, 2 digits, any non-digit byte, 2 digits
//     (2026-06-03, 2026/06/03, 2026x06y03);
//   - fewer than 10 bytes: YYYYMMDD, or 4 digits, a non-digit, 1–2 digits, a non-digit, 1–2
//     digits (2026-6-3);
//
// then the LUT turns (year, month, day) into a day number without validation: year < 1900,
// month outside 1–12 or day outside 1–31 give 1970-01-01; a day past the month's end rolls over
// (2024-02-30 → 2024-03-01, 2026-06-31 → 2026-07-01); years after 2299 give 2299-12-31; the
// result is then clamped to Date's range 1970-01-01 … 2149-06-06.
func dateText(s string) (schema.Date, bool) {
	digit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	num := func(i, n int) int {
		v := 0
		for k := i; k < i+n; k++ {
			v = v*10 + int(s[k]-'0')
		}
		return v
	}
	var year, month, day, pos int
	if len(s) >= 10 {
		// Optimistic path: the whole value is in the buffer.
		if !digit(0) || !digit(1) || !digit(2) || !digit(3) {
			return 0, false
		}
		year = num(0, 4)
		pos = 5
		if digit(4) { // YYYYMMDD
			if !digit(5) || !digit(6) || !digit(7) {
				return 0, false
			}
			month, day = num(4, 2), num(6, 2)
			pos = 8
		} else {
			if !digit(5) {
				return 0, false
			}
			month = num(5, 1)
			if digit(6) {
				month = month*10 + int(s[6]-'0')
				pos = 8
			} else {
				pos = 7
			}
			if digit(pos-1) || !digit(pos) {
				return 0, false
			}
			day = num(pos, 1)
			if digit(pos + 1) {
				day = day*10 + int(s[pos+1]-'0')
				pos += 2
			} else {
				pos++
			}
		}
	} else {
		// Fallback: read digit by digit.
		if !digit(0) || !digit(1) || !digit(2) || !digit(3) {
			return 0, false
		}
		year = num(0, 4)
		pos = 4
		if pos >= len(s) {
			return 0, false
		}
		if digit(pos) {
			if !digit(5) || !digit(6) || !digit(7) {
				return 0, false
			}
			month, day = num(4, 2), num(6, 2)
			pos = 8
		} else {
			pos++ // any non-digit delimiter
			if !digit(pos) {
				return 0, false
			}
			month = num(pos, 1)
			pos++
			if digit(pos) {
				month = month*10 + int(s[pos]-'0')
				pos++
			}
			if pos >= len(s) || digit(pos) {
				return 0, false
			}
			pos++
			if !digit(pos) {
				return 0, false
			}
			day = num(pos, 1)
			pos++
			if digit(pos) {
				day = day*10 + int(s[pos]-'0')
				pos++
			}
		}
	}
	if pos != len(s) {
		return 0, false
	}
	return makeDayNum(year, month, day), true
}

const (
	lutMinYear = 1900
	lutMaxYear = 2299
)

var lutLastDay = schema.DaysFromCivil(2299, 12, 31)

// makeDayNum is DateLUTImpl::makeDayNum followed by the clamp to Date (convertToDayNum).
func makeDayNum(year, month, day int) schema.Date {
	if year < lutMinYear || month < 1 || month > 12 || day < 1 || day > 31 {
		return 0
	}
	var n int64
	if year > lutMaxYear {
		n = lutLastDay
	} else {
		n = min(schema.DaysFromCivil(year, month, 1)+int64(day-1), lutLastDay)
	}
	return schema.Date(min(max(n, 0), math.MaxUint16))
}

// extractString stands for JSONExtractString(raw, key): the unescaped string, or "" for any
// other type.
func extractString(v value) string {
	if v.kind != kindString {
		return ""
	}
	return v.s
}

// parseUTCEventTime reports whether parseDateTimeOrNull(s, '%Y-%m-%dT%H:%i:%SZ', 'UTC') is not
// NULL. The MySQL-syntax parser reads fixed-width numbers WITHOUT checking that they are
// digits: each byte counts as (signed char − '0'), so "T0:" reads hour 0·10 + (':' − '0') = 10
// and "4?" reads minute 55. Ranges are then checked (year 1970–2106, month 1–12, day 1–31 and
// within the month, hour 0–23, minute and second 0–59), literals must match, and nothing may
// follow the 'Z'. Instants after 2106-02-07T06:28:15Z are not NULL either: they wrap around
// UInt32 (2106-02-07T06:28:16Z → 1970-01-01 00:00:00).
func parseUTCEventTime(s string) bool {
	cur := 0
	num := func(n int) (int32, bool) {
		if cur+n > len(s) {
			return 0, false
		}
		var r int32
		for k := 0; k < n; k++ {
			r = r*10 + (int32(int8(s[cur+k])) - '0')
		}
		cur += n
		return r, true
	}
	lit := func(c byte) bool {
		if cur >= len(s) || s[cur] != c {
			return false
		}
		cur++
		return true
	}
	year, ok := num(4)
	if !ok || year < 1970 || year > 2106 || !lit('-') {
		return false
	}
	month, ok := num(2)
	if !ok || month < 1 || month > 12 || !lit('-') {
		return false
	}
	day, ok := num(2)
	if !ok || day < 1 || day > 31 || !lit('T') {
		return false
	}
	hour, ok := num(2)
	if !ok || hour < 0 || hour > 23 || !lit(':') {
		return false
	}
	minute, ok := num(2)
	if !ok || minute < 0 || minute > 59 || !lit(':') {
		return false
	}
	second, ok := num(2)
	if !ok || second < 0 || second > 59 || !lit('Z') {
		return false
	}
	if cur != len(s) {
		return false
	}
	return int(day) <= schema.DaysIn(int(year), int(month))
}

// jodaValid reports whether parseDateTime64InJodaSyntaxOrNull(s, format, 'UTC') is not NULL
// for a string already known to match the pattern of its format (fixed-width digits):
// proleptic Gregorian calendar, any four-digit year (0000 is a leap year), month 1–12, day
// within the month, and, when the string carries a time, hour 0–23, minute and second 0–59.
func jodaValid(s string, withTime bool) bool {
	n := func(i, w int) int {
		v := 0
		for k := i; k < i+w; k++ {
			v = v*10 + int(s[k]-'0')
		}
		return v
	}
	year, month, day := n(0, 4), n(5, 2), n(8, 2)
	if month < 1 || month > 12 || day < 1 || day > schema.DaysIn(year, month) {
		return false
	}
	if withTime && (n(11, 2) > 23 || n(14, 2) > 59 || n(17, 2) > 59) {
		return false
	}
	return true
}

// decimal18Fits reports whether toDecimal64OrNull(s, 2) is not NULL for a string known to
// match ^\d+\.\d{2}$: at most 16 significant integer digits (leading zeros do not count).
func decimal18Fits(s string) bool {
	i := 0
	for i < len(s) && s[i] == '0' {
		i++
	}
	dot := len(s) - 3
	return dot-i <= 16
}
