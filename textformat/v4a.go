package textformat

import "strings"

// FindV4A returns the V4A patch envelopes in text: a line "*** Begin Patch" through the next line
// "*** End Patch" (white space around either allowed). Patch holds the envelope; Span also covers
// a code fence whose whole content it is. An envelope not yet ended is not reported. The patch
// itself is parsed elsewhere (package v4a).
func FindV4A(text string) []Edit {
	if !strings.Contains(text, "*** Begin Patch") {
		return nil
	}
	ls := splitLines(text)
	get := func(i int) string { return text[ls[i].start:ls[i].end] }
	var out []Edit
	for i := 0; i < len(ls); i++ {
		if strings.TrimSpace(get(i)) != "*** Begin Patch" {
			continue
		}
		j := i + 1
		for j < len(ls) && strings.TrimSpace(get(j)) != "*** End Patch" {
			j++
		}
		if j >= len(ls) {
			break
		}
		sp := Span{ls[i].start, ls[j].end}
		if i > 0 && j+1 < len(ls) {
			if open := fence(get(i - 1)); open != "" && closesFence(get(j+1), open) {
				sp = Span{ls[i-1].start, ls[j+1].end}
			}
		}
		out = append(out, Edit{Format: V4A, Span: sp, Patch: text[ls[i].start:ls[j].end]})
		i = j
	}
	return out
}
