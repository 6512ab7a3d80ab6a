package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// maxShown bounds a value shown in a report or a message, in bytes.
const maxShown = 256

// shownValue is flag name's value as a report or a message may show it: a user's password in
// a URL or a broker address masked (they are refused, but a refusal must not repeat them),
// and a long value cut, with its length said.
func shownValue(name, v string) string {
	switch {
	case name == "brokers" && strings.Contains(v, "@"):
		v = sink.ShownBroker(v) // the whole list: a password may hold a comma
	case name == "brokers":
		entries := strings.Split(v, ",")
		for i, e := range entries {
			entries[i] = sink.ShownBroker(e)
		}
		v = strings.Join(entries, ",")
	case strings.Contains(v, "@") || strings.Contains(v, "://") || strings.Contains(v, "?"):
		v = clickhouse.Redacted(v)
	}
	return cut(v, maxShown)
}

// cut is s cut to at most n bytes on a rune boundary, with its full length said when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:i], len(s))
}
