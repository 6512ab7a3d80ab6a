// Package columns writes the console's tables so that they fit a terminal: a table wider
// than its width is cut into parts of whole columns, one under the other, each part
// repeating the first column (what a row is: a day, a snapshot) and its own heading, so no
// line is wider than the width unless a single column is (issue 38: verify's table of the
// topics ran 175–211 columns). Columns are aligned as text/tabwriter aligns them: each as
// wide as its widest cell (in runes), two spaces apart, the last one not padded.
package columns

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Width is the terminal the console's tables are written for, in columns.
const Width = 100

// gap is the space between two columns.
const gap = 2

// Table is a heading and rows of cells; the first cell of each is the row's label. Groups,
// if set, are the numbers of columns after the label that belong together, in order (they
// add up to the columns after the label; a part ends between groups where it can: a group
// wider than a part is cut too). Without groups each column is a group of its own.
type Table struct {
	Head   []string
	Rows   [][]string
	Groups []int
}

// Write writes t to w in parts no wider than width, the parts separated by a blank line.
func (t Table) Write(w io.Writer, width int) error {
	n := len(t.Head)
	widths := make([]int, n)
	for _, row := range append([][]string{t.Head}, t.Rows...) {
		for i := 0; i < n && i < len(row); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
		}
	}
	var b strings.Builder
	for pi, part := range t.parts(widths, width) {
		if pi > 0 {
			b.WriteByte('\n')
		}
		cols := append([]int{0}, part...)
		for _, row := range append([][]string{t.Head}, t.Rows...) {
			line := make([]byte, 0, width)
			for ci, c := range cols {
				cell := ""
				if c < len(row) {
					cell = row[c]
				}
				line = append(line, cell...)
				if ci < len(cols)-1 {
					line = append(line, strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell)+gap)...)
				}
			}
			b.Write(append([]byte(strings.TrimRight(string(line), " ")), '\n'))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// parts cuts the columns after the label into parts whose lines fit width: whole groups
// while they fit, a group that does not fit an empty part column by column.
func (t Table) parts(widths []int, width int) [][]int {
	groups := t.Groups
	if len(groups) == 0 {
		for range len(widths) - 1 {
			groups = append(groups, 1)
		}
	}
	label := widths[0]
	var parts [][]int
	var cur []int
	used := label
	add := func(c int) {
		cur = append(cur, c)
		used += gap + widths[c]
	}
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, cur)
		}
		cur, used = nil, label
	}
	c := 1
	for _, g := range groups {
		cols := make([]int, 0, g)
		span := 0
		for ; len(cols) < g && c < len(widths); c++ {
			cols = append(cols, c)
			span += gap + widths[c]
		}
		if used+span > width && len(cur) > 0 {
			flush()
		}
		for _, col := range cols {
			if used+gap+widths[col] > width && len(cur) > 0 {
				flush()
			}
			add(col)
		}
	}
	for ; c < len(widths); c++ { // columns no group names
		if used+gap+widths[c] > width && len(cur) > 0 {
			flush()
		}
		add(c)
	}
	flush()
	if len(parts) == 0 {
		parts = [][]int{nil}
	}
	return parts
}

// Wrap breaks a sentence into lines of at most width columns, each line after the first
// starting with indent. A word longer than a line is broken after its commas where it can
// (a list such as not_an_object=1,keyset_mismatch=1), else it stands alone.
func Wrap(text string, width int, indent string) string {
	var words []string
	room := width - utf8.RuneCountInString(indent)
	for _, w := range strings.Fields(text) {
		for utf8.RuneCountInString(w) > room {
			cut := strings.LastIndex(w[:min(len(w), room)], ",")
			if cut <= 0 {
				break
			}
			words, w = append(words, w[:cut+1]), w[cut+1:]
		}
		words = append(words, w)
	}
	var b strings.Builder
	col := 0
	for i, word := range words {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}
