package main

import (
	"slices"
	"strings"
)

// suggest returns the candidates a user who typed word probably meant, closest first: those
// within two edits of it (a letter left out, added, changed, or two swapped: rnu, brokrs) and
// those it is the start of (inv for inventory). Nothing for a word too short to tell.
func suggest(word string, candidates []string) []string {
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		switch {
		case c == word:
		case d <= 2 && d < len([]rune(word)):
			found = append(found, near{c, d})
		case len(word) >= 3 && strings.HasPrefix(c, word):
			found = append(found, near{c, len(c) - len(word)})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	out := make([]string, 0, len(found))
	for _, n := range found {
		out = append(out, n.name)
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b: insertions,
// deletions, substitutions and transpositions of adjacent runes each count one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// didYouMean is "; did you mean a or b?" for the suggestions of word among candidates, "" for
// none.
func didYouMean(word string, candidates []string, prefix string) string {
	s := suggest(word, candidates)
	if len(s) == 0 {
		return ""
	}
	return "; did you mean " + orList(prefixed(prefix, s)) + "?"
}
