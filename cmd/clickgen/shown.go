package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/verify"
)

// maxShown bounds a value shown in a report or a message, in bytes.
const maxShown = 256

// shownValue is flag name's value as a report or a message may show it: a user's password in
// a URL or a broker address masked (they are refused, but a refusal must not repeat them),
// and a long value cut, with its length said.
func shownValue(name, v string) string {
	switch {
	case name == "brokers":
		v = sink.ShownBrokers(v)
	case strings.Contains(v, "@") || strings.Contains(v, "://") || strings.Contains(v, "?"):
		v = verify.ShownURL(v)
	}
	if len(v) <= maxShown {
		return v
	}
	i := maxShown
	for i > 0 && !utf8.RuneStart(v[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes)", v[:i], len(v))
}

// settings are the verb's flags by name with their values as text, for its report
// (fileio.ReportMeta.Settings): set, from the environment or by default, shown as shownValue
// shows them. Secrets are never flags.
func (b *binding) settings() map[string]string {
	m := map[string]string{}
	b.fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			m[f.Name] = shownValue(f.Name, f.Value.String())
		}
	})
	return m
}
