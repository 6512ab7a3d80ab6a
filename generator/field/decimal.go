package field

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// The refusals of [Decimal].
var (
	// ErrNotDecimal is an integer not written in decimal digits: strconv's base-0 parsers
	// (pflag's integer flags, YAML) read 010 as octal 8, 0x10 as 16 and 1_0 as 10, so --day 010
	// used to play day 8; 1e3 is a float's notation, " 5" has a space.
	ErrNotDecimal = errors.New("must be a decimal integer (0x, 0o, 0b, exponents, spaces and _ are not read; leading zeros are)")
	// ErrNotWhole is a number with a fraction where a whole number is wanted (1.5).
	ErrNotWhole = errors.New("is not a whole number")
)

// Decimal returns s, an integer as a user typed it (a flag, an environment variable, a
// profile field), in the form a base-0 parser reads as the decimal number s spells: an
// optional sign and the digits 0-9, leading zeros dropped, so 010 is 10 and +7 is 7. A
// number with a fraction (1.5) is [ErrNotWhole]; anything else but a sign and digits
// (0x10, 1e3, 1_0, " 5") is [ErrNotDecimal]. It does not check the range: the field's own
// parser does. Every integer of the command line and of a profile is read through it.
func Decimal(s string) (string, error) {
	sign, digits := "", s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		if digits[0] == '-' {
			sign = "-"
		}
		digits = digits[1:]
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && f != math.Trunc(f) &&
			strings.Trim(s, "+-0123456789.") == "" {
			return "", ErrNotWhole
		}
		return "", ErrNotDecimal
	}
	if d := strings.TrimLeft(digits, "0"); d != "" {
		digits = d
	} else {
		digits, sign = "0", ""
	}
	return sign + digits, nil
}
