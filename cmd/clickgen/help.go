package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// helpWidth is the widest line of any help: a newcomer's terminal, with room (issue 31 found
// lines of 126 columns).
const helpWidth = 100

// printVerbHelp is `clickgen VERB --help`: the usage, the description, the flags in their
// groups with their defaults as a user reads them, and the exit codes; no line is wider than
// helpWidth.
func printVerbHelp(b *binding, out io.Writer) {
	v := b.verb
	fmt.Fprintln(out, "Usage:")
	for _, u := range v.usage {
		fmt.Fprintf(out, "  clickgen %s\n", u)
	}
	fmt.Fprintln(out)
	if d := strings.TrimSpace(v.about); d != "" {
		fmt.Fprintf(out, "%s\n\n", d)
	}
	lines, width := b.flagLines()
	for _, g := range []string{"", "Kafka", "ClickHouse"} {
		var group []flagLine
		for _, l := range lines {
			if l.group == g {
				group = append(group, l)
			}
		}
		if len(group) == 0 {
			continue
		}
		if g == "" {
			fmt.Fprintln(out, "Flags:")
		} else {
			fmt.Fprintf(out, "\n%s flags:\n", g)
		}
		for _, l := range group {
			fmt.Fprintf(out, "%-*s%s\n", width, l.head, wrap(l.text, width, helpWidth))
		}
	}
	fmt.Fprintf(out, "\n%s\n", wrap("Exit codes: "+b.exits(), 0, helpWidth))
}

// flagLine is one flag of a verb's help: "--name VALUE" and what it does.
type flagLine struct {
	head, text, group string
}

// flagLines are the verb's flags as help lines, and the width of their heads.
func (b *binding) flagLines() ([]flagLine, int) {
	var lines []flagLine
	width := 0
	b.fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		head := "      --" + f.Name
		if f.Shorthand != "" {
			head = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if name != "" && f.Value.Type() != "bool" {
			head += " " + name
		}
		l := flagLine{head: head, text: usage}
		r := b.row(f.Name)
		if r != nil {
			l.group = r.groupOn(b.verb.set)
			if r.required&b.verb.set != 0 {
				l.text += "; required"
			}
			if r.override != nil && b.verb.set&vRun != 0 {
				l.text += " (" + r.field + ")" // the profile field it overrides
			}
			if envs := r.envFor(b.verb.set); len(envs) > 0 {
				l.text += " (env " + strings.Join(envs, ", env ") + ")"
			}
		}
		if def := b.defaultOf(f, r); def != "" {
			l.text += " (default " + def + ")"
		}
		width = max(width, len(head)+3)
		lines = append(lines, l)
	})
	return lines, width
}

// defaultOf is flag f's default as a user reads it: none for a field of run's profile (the
// profile's value stands) or a zero value, a duration as 2m rather than 2m0s, a string
// quoted.
func (b *binding) defaultOf(f *pflag.Flag, r *flagSpec) string {
	switch {
	case r != nil && r.def == "-":
		return ""
	case r != nil && r.def != "":
		return r.def
	case r != nil && r.override != nil && b.verb.set&vRun != 0:
		return ""
	}
	d := f.DefValue
	switch f.Value.Type() {
	case "duration":
		t, _ := time.ParseDuration(d)
		if t == 0 {
			return ""
		}
		return shortDuration(t)
	case "string":
		if d == "" {
			return ""
		}
		return fmt.Sprintf("%q", d)
	}
	switch d {
	case "", "0", "false", "[]", "0/s":
		return ""
	}
	return d
}

// shortDuration writes d without the zero units time.Duration.String ends with: 2m, 1h, 90s.
func shortDuration(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"0s", "0m"} {
		if t, ok := strings.CutSuffix(s, zero); ok && strings.ContainsAny(t[len(t)-1:], "hm") {
			s = t
		}
	}
	return s
}

// exits are the verb's exit codes in its own words, and 3, a crossed threshold, where the
// verb takes --threshold.
func (b *binding) exits() string {
	codes := b.verb.exits
	if b.fs.Lookup("threshold") != nil {
		i := len(codes)
		if i > 0 && strings.HasPrefix(codes[i-1], "130") {
			i--
		}
		codes = append(codes[:i:i], append([]string{"3 when a --threshold was crossed (everything was sent)"}, codes[i:]...)...)
	}
	return strings.Join(codes, ", ") + "."
}

// wrap breaks text into lines of at most width columns, the first starting at column indent
// (written by the caller) and the others indented to it. A word longer than a line stands
// alone.
func wrap(text string, indent, width int) string {
	var b strings.Builder
	col := indent
	for i, word := range strings.Fields(text) {
		n := len([]rune(word))
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col = indent
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}
