package schema

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as a JSON string: raw UTF-8, with only '"', '\\' and control
// characters (below U+0020) escaped. Invalid UTF-8 bytes become U+FFFD, so the output is
// always valid UTF-8 JSON.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c)
			i++
			start = i
			continue
		}
		// Fast path for two-byte sequences (Cyrillic and most of the BMP below U+0800).
		if c >= 0xC2 && c <= 0xDF && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			i += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// AppendFloat appends f the way the contract writes JSON floats: the shortest decimal that
// reads back as f, with a trailing ".0" on whole numbers (1290.0), in plain notation for
// 1e-4 ≤ |f| < 1e16 and exponent notation outside (1e+16, 1e-05). NaN and infinities have no
// JSON form; they are written as 0.0.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "0.0"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.AppendFloat(dst, f, 'e', -1, 64)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[n:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// AppendKopecksFloat appends kopecks/100 as a contract float (129000 → 1290.0, 276970 → 2769.7).
// The division is IEEE double division, exact to the last bit for |k| < 2^53.
func AppendKopecksFloat(dst []byte, kopecks int64) []byte {
	return AppendFloat(dst, float64(kopecks)/100)
}

// AppendMoney appends kopecks as a JSON string with exactly two decimals (129990 → "1299.90").
// It reports false and leaves dst unchanged for negative kopecks: the intake forbids a minus
// sign, so negative money is a bug upstream of the encoder.
func AppendMoney(dst []byte, kopecks int64) ([]byte, bool) {
	if kopecks < 0 {
		return dst, false
	}
	dst = append(dst, '"')
	dst = strconv.AppendInt(dst, kopecks/100, 10)
	c := kopecks % 100
	return append(dst, '.', byte('0'+c/10), byte('0'+c%10), '"'), true
}

// Civil returns the year, month (1–12) and day (1–31) of d.
func (d Date) Civil() (year, month, day int) {
	return civil(int64(d))
}

// String formats d as YYYY-MM-DD.
func (d Date) String() string { return string(d.Append(nil)) }

// Append appends d as YYYY-MM-DD, without quotes.
func (d Date) Append(dst []byte) []byte {
	y, m, dd := d.Civil()
	dst = append4(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, m)
	dst = append(dst, '-')
	return append2(dst, dd)
}

// DateOf returns the Date of a civil day. It reports false when the day is not a valid
// calendar day inside Date's range.
func DateOf(year, month, day int) (Date, bool) {
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return 0, false
	}
	n := DaysFromCivil(year, month, day)
	if n < 0 || n > math.MaxUint16 {
		return 0, false
	}
	return Date(n), true
}

// String formats t as YYYY-MM-DDTHH:MM:SSZ.
func (t DateTime) String() string { return string(t.Append(nil)) }

// Append appends t as YYYY-MM-DDTHH:MM:SSZ, without quotes.
func (t DateTime) Append(dst []byte) []byte {
	return appendInstant(dst, int64(t), -1)
}

// String formats m as YYYY-MM-DDTHH:MM:SS.mmmZ.
func (m Millis) String() string { return string(m.Append(nil)) }

// Append appends m as YYYY-MM-DDTHH:MM:SS.mmmZ, without quotes. m must be within
// 0 … [MaxMillis].
func (m Millis) Append(dst []byte) []byte {
	return appendInstant(dst, int64(m)/1000, int(int64(m)%1000))
}

// appendInstant writes a UTC second, with three millisecond digits when ms ≥ 0.
func appendInstant(dst []byte, sec int64, ms int) []byte {
	days, rem := sec/86400, sec%86400
	y, mo, d := civil(days)
	dst = append4(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, mo)
	dst = append(dst, '-')
	dst = append2(dst, d)
	dst = append(dst, 'T')
	dst = append2(dst, int(rem/3600))
	dst = append(dst, ':')
	dst = append2(dst, int(rem/60%60))
	dst = append(dst, ':')
	dst = append2(dst, int(rem%60))
	if ms >= 0 {
		dst = append(dst, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	}
	return append(dst, 'Z')
}

func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10%10), byte('0'+v%10))
}

func append4(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/1000%10), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// civil converts days since 1970-01-01 (≥ 0) to a proleptic Gregorian date
// (Howard Hinnant's days-to-civil algorithm, integer only).
func civil(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	year = int(yoe + era*400)
	if month <= 2 {
		year++
	}
	return year, month, day
}

// DaysFromCivil counts the days from 1970-01-01 to a proleptic Gregorian date, negative
// before it (Howard Hinnant's days-from-civil algorithm, integer only; the inverse of
// [Date.Civil]). month must be 1–12; day is not checked against the month, so a day past its
// end counts on into the next month (2024-02-30 is 2024-03-01), as ClickHouse's date LUT and
// time.Date count it. Use [DateOf] for a checked Date.
func DaysFromCivil(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	m := int64(month)
	var mp int64
	if m > 2 {
		mp = m - 3
	} else {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysIn returns the number of days in a month of the proleptic Gregorian calendar.
func DaysIn(year, month int) int { return daysIn(year, month) }
