package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/logs"
)

// cutLogFormat takes the global flag --log-format out of args, wherever it stands before a "--"
// (--log-format json or --log-format=json; the last one wins), and returns the other
// arguments in order and the format, Text when the flag is absent. A missing or unknown value
// is an error naming the flag.
func cutLogFormat(args []string) (rest []string, f logs.Format, err error) {
	f = logs.Text
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		v, ok := strings.CutPrefix(a, "--log-format=")
		if !ok && a == "--log-format" {
			if i+1 == len(args) {
				return args, f, errors.New("--log-format needs a value: text or json")
			}
			i++
			v, ok = args[i], true
		}
		if !ok {
			rest = append(rest, a)
			continue
		}
		if err := f.Set(v); err != nil {
			return args, f, fmt.Errorf("--log-format: %v", err)
		}
	}
	return rest, f, nil
}
