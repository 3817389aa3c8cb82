package v4a

import (
	"github.com/assistant-ls/assistant-ls/apply"
)

// Bounds on the nearest-region search, which runs only when a hunk fails: at most pairBudget
// line comparisons, each reading at most lineCap bytes from either end of the two lines, and a
// region is named only when it is at least minSimilarity alike.
const (
	pairBudget    = 1 << 18
	lineCap       = 256
	minSimilarity = 0.5
)

// nearest returns the run of file lines, as many as sought, most like sought line by line (each
// line compared trimmed), or nil when none is alike enough. Long files are sampled: windows where
// a sought line occurs verbatim are scored first, then evenly spaced ones, within the budget.
func (f *file) nearest(sought []string) *apply.Candidate {
	n, m := len(f.text), len(sought)
	if n == 0 || m == 0 {
		return nil
	}
	w := min(n, m)
	windows := n - w + 1
	s := make([]string, m)
	for j, l := range sought {
		s[j] = trimSpace(l)
	}
	best, bestScore := -1, -1.0
	score := func(i int) {
		sum := 0.0
		for j := range w {
			sum += similarity(s[j], trimSpace(f.text[i+j]))
		}
		if sc := sum / float64(m); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if windows*w <= pairBudget {
		for i := range windows {
			score(i)
		}
	} else {
		want := make(map[string]int, m)
		for j, l := range s[:w] {
			if l != "" {
				if _, ok := want[l]; !ok {
					want[l] = j
				}
			}
		}
		budget := pairBudget / w
		for k := 0; k < n && budget > 0; k++ {
			if j, ok := want[trimSpace(f.text[k])]; ok && k-j >= 0 && k-j < windows {
				score(k - j)
				budget--
			}
		}
		stride := max(1, windows/max(1, budget))
		for i := 0; i < windows && budget > 0; i += stride {
			score(i)
			budget--
		}
	}
	if best < 0 || bestScore < minSimilarity {
		return nil
	}
	end := f.offsets[best+w]
	return &apply.Candidate{
		StartLine: best + 1, EndLine: best + w,
		Start: f.offsets[best], End: end,
		Similarity: bestScore,
	}
}

// similarity is the share of the longer of two lines covered by their common prefix and suffix:
// 1 for equal lines, cheap, and blind to the middle of long lines.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	p, lim := 0, min(la, lb, lineCap)
	for p < lim && a[p] == b[p] {
		p++
	}
	q, lim := 0, min(la-p, lb-p, lineCap)
	for q < lim && a[la-1-q] == b[lb-1-q] {
		q++
	}
	return float64(p+q) / float64(max(la, lb))
}
