package field

import "strings"

// Nearest returns the candidates a user who typed word probably meant: those within two
// edits of it (a letter left out, added, changed, or two swapped: rnu, brokrs) and those it
// is the start of (inv for inventory, which count as one edit), keeping only the nearest:
// --rat is one edit from --rate and two from --day, so it suggests --rate alone. Candidates
// keep their order. Nothing for a word too short to tell.
func Nearest(word string, candidates []string) []string {
	best := 3
	var out []string
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d > 2 || d >= len([]rune(word)) {
			d = 3
		}
		if len([]rune(word)) >= 3 && strings.HasPrefix(strings.ToLower(c), strings.ToLower(word)) {
			d = min(d, 1)
		}
		switch {
		case d < best:
			best, out = d, []string{c}
		case d == best && d < 3:
			out = append(out, c)
		}
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
