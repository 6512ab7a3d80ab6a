package profiles

import (
	"errors"
	"strings"
)

// ErrNotDecimal is the refusal of an integer that is not written in decimal digits: strconv's
// base-0 parsers (pflag's integer flags, YAML) read 010 as octal 8, 0x10 as 16 and 1_0 as 10,
// so --day 010 used to play day 8.
var ErrNotDecimal = errors.New("must be a decimal integer (0x, 0o, 0b and _ are not read; leading zeros are)")

// Decimal returns s, an integer as a user typed it (a flag, an environment variable, a
// profile field), in the form a base-0 parser reads as the decimal number s spells: an
// optional '-' and digits without leading zeros, so 010 is 10. Anything but an optional
// sign and the digits 0-9 is [ErrNotDecimal]. It does not check the range: the field's own
// parser does.
func Decimal(s string) (string, error) {
	sign, digits := "", s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		if digits[0] == '-' {
			sign = "-"
		}
		digits = digits[1:]
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", ErrNotDecimal
	}
	if d := strings.TrimLeft(digits, "0"); d != "" {
		digits = d
	} else {
		digits, sign = "0", ""
	}
	return sign + digits, nil
}
