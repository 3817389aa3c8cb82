package textformat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// The tiers of unified diff hunks, besides apply.TierExact (the hunk matched exactly at its
// header's line, or, without line numbers, at the only place it matches), apply.TierEmpty (a
// hunk without old lines on an empty file) and TierLineNumber.
const (
	// TierOffset: the hunk matched exactly, at another line than its header names (git's
	// "Hunk #1 succeeded at 12 (offset 3 lines)").
	TierOffset apply.MatchTier = "offset"
	// TierWhitespace: the hunk's context and removed lines match the file's only once white
	// space (line breaks included) is set aside.
	TierWhitespace apply.MatchTier = "whitespace"
)

// ErrAmbiguous: a hunk's context and removed lines match at more than one place and its line
// number cannot tell which is meant (it has none, or two places are as near to it). Error.Lines
// lists the places.
const ErrAmbiguous ErrorKind = "ambiguous"

// ErrDeleteMismatch: a diff deletes a file whose content is not exactly what the diff removes.
const ErrDeleteMismatch ErrorKind = "delete_mismatch"

// ErrEmptyHunk: a hunk has no lines (the line after its @@ line is not a hunk line).
const ErrEmptyHunk ErrorKind = "empty_hunk"

// applyUDiff applies a unified diff's hunks as git apply does: in order, each to the result of
// the ones before; each at its header's line when its context and removed lines match there,
// else at the nearest place that matches, searching outward from that line (the next line,
// the one before, two lines after, ...). A hunk that must match at the file's start (old line
// 0 or 1) or end (no trailing context) is first tried there only, as git does, then anywhere.
// Lines written by an earlier hunk are never matched again. Matching is exact (line breaks
// included) anywhere in the file first, then with white space set aside; in the second case
// the file's own context lines are kept as they are. A hunk without line numbers must match at
// one place only, counting first the places after the previous hunk. A hunk without old lines
// goes where its header says (TierLineNumber).
//
// Lines keep the line breaks the diff gives them, except that when every line of a diff with
// old lines ends in "\n" and every line of the file in "\r\n", or the other way round, the
// diff's are taken as the file's (a transport changed them). A deletion must remove the whole
// file, matching exactly. For a rename, content is the old path's; the caller moves it.
//
// With out (Check), each hunk's outcome is recorded there, and a hunk that fails is skipped
// rather than failing the diff.
func (f File) applyUDiff(content string, exists bool, out []Outcome) (Result, error) {
	switch {
	case f.Op == OpCreate && exists && content != "":
		return Result{}, f.fail(ErrFileExists, 0, "")
	case f.Op == OpCreate:
		content = ""
	case !exists:
		e := f.fail(ErrFileMissing, 0, "")
		if f.OldPath != "" {
			e.Path = f.OldPath
		}
		return Result{}, e
	}
	im := newImage(content)
	conv := breakConversion(f.Sections, content)
	res := Result{
		Create:  f.Op == OpCreate && !exists,
		Delete:  f.Op == OpDelete,
		Tiers:   make([]apply.MatchTier, len(f.Sections)),
		Matches: make([]int, len(f.Sections)),
		Spans:   make([]Span, len(f.Sections)),
	}
	var done []origRange // what each hunk replaced, in original lines
	delta, prevEnd := 0, 0
	for i, s := range f.Sections {
		h := s.hunk
		var pl placement
		var e *Error
		if h == nil || len(h.lines) == 0 {
			e = f.fail(ErrEmptyHunk, i+1, "")
		} else {
			pl, e = f.place(i, h, im, conv, delta, prevEnd, f.Op == OpDelete)
		}
		if e != nil {
			switch {
			case e.Kind == ErrNoMatch && f.Op == OpDelete:
				return Result{}, f.fail(ErrDeleteMismatch, 0, "")
			case e.Kind == ErrNoMatch:
				f.explain(e, done, h, conv, content)
			}
			if out == nil {
				return Result{}, e
			}
			out[i].Err = e
			if e.Kind == ErrNoMatch || e.Kind == ErrOverlap {
				out[i].Applied = f.stands(i, h, im, conv, delta, prevEnd)
			}
			continue
		}
		res.Tiers[i], res.Matches[i] = pl.tier, im.offset(pl.at)
		end := res.Matches[i]
		if n := len(pl.pre); n > 0 {
			end = im.offset(pl.at+n-1) + len(im.at(pl.at+n-1))
		}
		res.Spans[i] = Span{res.Matches[i], end}
		if out != nil {
			out[i].matched(pl.tier, content, res.Matches[i], end)
			out[i].Away = pl.away
		}
		if len(pl.pre) > 0 {
			done = append(done, origRange{im.orig(pl.at), im.orig(pl.at+len(pl.pre)-1) + 1, i + 1})
		}
		im.replace(pl.at, len(pl.pre), pl.post)
		delta += len(pl.post) - len(pl.pre)
		prevEnd = pl.at + len(pl.post)
	}
	res.Content = im.String()
	if res.Delete && res.Content != "" {
		return Result{}, f.fail(ErrDeleteMismatch, 0, "")
	}
	return res, nil
}

// placement is where a hunk goes: its old lines pre replaced at image line at by post; away is
// how many lines from its header's line that is.
type placement struct {
	at        int
	pre, post []string
	tier      apply.MatchTier
	away      int
}

// stands reports whether hunk i, which matched nothing in im, is already applied: the hunk
// reversed (its added lines for its removed ones) matches, as git apply --reverse --check
// finds. A hunk that adds nothing leaves nothing to find, so it is never taken as applied.
func (f File) stands(i int, h *hunk, im *image, conv breakConv, delta, prevEnd int) bool {
	if h == nil {
		return false
	}
	r := *h
	r.lines = make([]hunkLine, len(h.lines))
	added := false
	for k, l := range h.lines {
		switch l.op {
		case '+':
			l.op, added = '-', true
		case '-':
			l.op = '+'
		}
		r.lines[k] = l
	}
	if !added {
		return false
	}
	_, e := f.place(i, &r, im, conv, delta, prevEnd, false)
	return e == nil
}

// place finds where hunk i goes in im; delta is how many lines the earlier hunks added, prevEnd
// the image line after the previous one. exactOnly leaves out the white space tier.
func (f File) place(i int, h *hunk, im *image, conv breakConv, delta, prevEnd int, exactOnly bool) (placement, *Error) {
	pre, post := h.images(conv, 0)
	pos := -1
	if h.oldStart >= 0 {
		pos = h.oldStart - 1 + delta
		if h.oldStart == 0 || h.insertAfter && len(pre) == 0 {
			pos = h.oldStart + delta
		}
	}
	if len(pre) == 0 {
		switch {
		case im.len() == 0:
			return placement{at: 0, pre: pre, post: post, tier: apply.TierEmpty}, nil
		case pos < 0 || pos > im.len():
			e := f.fail(ErrBadLine, i+1, "")
			e.Line = h.oldStart
			return placement{}, e
		}
		return placement{at: pos, pre: pre, post: post, tier: TierLineNumber}, nil
	}
	tiers := []func(a, b string) bool{exactLine, sameWS}
	if exactOnly {
		tiers = tiers[:1]
	}
	cuts := []int{0}
	if h.optional > 0 {
		cuts = append(cuts, h.optional)
	}
	for _, cut := range cuts {
		if cut > 0 {
			if pre, post = h.images(conv, cut); len(pre) == 0 {
				continue
			}
		}
		for t, eq := range tiers {
			at, others := im.search(pre, pos, prevEnd, h.anchors(cut), eq)
			if len(others) > 0 {
				e := f.fail(ErrAmbiguous, i+1, f.Sections[i].Search)
				for _, p := range append([]int{at}, others...) {
					e.Lines = append(e.Lines, im.orig(p)+1)
				}
				slices.Sort(e.Lines)
				e.Line = h.oldStart
				return placement{}, e
			}
			if at < 0 {
				continue
			}
			pl := placement{at: at, pre: pre, post: post, tier: apply.TierExact}
			switch {
			case t > 0:
				pl.tier, pl.post = TierWhitespace, h.keepContext(post, im, at, cut)
			case pos >= 0 && at != pos:
				pl.tier, pl.away = TierOffset, at-pos
			}
			return pl, nil
		}
	}
	e := f.fail(ErrNoMatch, i+1, f.Sections[i].Search)
	e.Line = h.oldStart
	return placement{}, e
}

// explain completes a no-match error: the hunk overlaps an earlier one when it matches the
// original content where that one changed it; else the most similar region is named.
func (f File) explain(e *Error, done []origRange, h *hunk, conv breakConv, content string) {
	pre, _ := h.images(conv, 0)
	orig := newImage(content)
	if at, _ := orig.search(pre, -1, 0, [2]bool{}, sameWS); at >= 0 {
		for _, r := range done {
			if at < r.end && r.start < at+len(pre) {
				e.Kind, e.Other = ErrOverlap, r.hunk
				return
			}
		}
	}
	lf, crlf := eol.ToLF(content)
	if c := apply.Nearest(lf, e.Search); c != nil {
		c.Start, c.End = eol.Offset(lf, c.Start, crlf), eol.Offset(lf, c.End, crlf)
		e.Nearest = c
	}
}

// origRange is the original lines [start, end) hunk replaced.
type origRange struct{ start, end, hunk int }

// anchors says whether h, without its last cut lines, must match at the file's start and at
// its end by git's rules: a hunk from old line 0 or 1, and a hunk without trailing context. A
// hunk without any context (git diff -U0) has neither but the start for old line 0, as with
// git apply --unidiff-zero.
func (h *hunk) anchors(cut int) [2]bool {
	lines := h.lines[:len(h.lines)-cut]
	if h.oldStart < 0 {
		return [2]bool{}
	}
	leading, trailing := 0, 0
	for leading < len(lines) && lines[leading].op == ' ' {
		leading++
	}
	for k := len(lines) - 1; k >= 0 && lines[k].op == ' '; k-- {
		trailing++
	}
	if leading == 0 && trailing == 0 {
		return [2]bool{h.oldStart == 0, false}
	}
	return [2]bool{h.oldStart <= 1, trailing == 0}
}

// images returns h's old lines (context and removed) and new lines (context and added), with
// their line breaks converted by conv, leaving out the last cut context lines.
func (h *hunk) images(conv breakConv, cut int) (pre, post []string) {
	lines := h.lines[:len(h.lines)-cut]
	pre, post = make([]string, 0, len(lines)), make([]string, 0, len(lines))
	for _, l := range lines {
		t := conv.apply(l.text)
		if l.op != '+' {
			pre = append(pre, t)
		}
		if l.op != '-' {
			post = append(post, t)
		}
	}
	return pre, post
}

// keepContext returns post with each context line replaced by the file line it matched (image
// lines from at): the file's own white space is kept. A file line without a line break that
// is not the last of post gets the diff's.
func (h *hunk) keepContext(post []string, im *image, at, cut int) []string {
	out := make([]string, 0, len(post))
	j, k := 0, 0 // in pre, in post
	for _, l := range h.lines[:len(h.lines)-cut] {
		switch l.op {
		case '-':
			j++
		case '+':
			out = append(out, post[k])
			k++
		default:
			t := im.at(at + j)
			if !strings.HasSuffix(t, "\n") && k < len(post)-1 {
				t += post[k][len(strings.TrimRight(post[k], "\r\n")):]
			}
			out = append(out, t)
			j++
			k++
		}
	}
	return out
}

// exactLine is the exact tier's line comparison.
func exactLine(a, b string) bool { return a == b }

// sameWS reports whether a and b are the same words: white space at either end (the line
// break included) is set aside, and any run of it inside counts as any other, but "a b" is not
// "ab".
func sameWS(a, b string) bool {
	for {
		a, b = trimSpaceLeft(a), trimSpaceLeft(b)
		if a == "" || b == "" {
			return a == b
		}
		i, j := wordEnd(a), wordEnd(b)
		if a[:i] != b[:j] {
			return false
		}
		a, b = a[i:], b[j:]
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func trimSpaceLeft(s string) string {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	return s[i:]
}

func wordEnd(s string) int {
	i := 0
	for i < len(s) && !isSpaceByte(s[i]) {
		i++
	}
	return i
}

// breakConv converts the line breaks of a diff's lines to a file's.
type breakConv int

const (
	keepBreaks breakConv = iota
	toCRLF
	toLF
)

func (c breakConv) apply(t string) string {
	switch {
	case c == toCRLF && strings.HasSuffix(t, "\n") && !strings.HasSuffix(t, "\r\n"):
		return t[:len(t)-1] + "\r\n"
	case c == toLF && strings.HasSuffix(t, "\r\n"):
		return t[:len(t)-2] + "\n"
	}
	return t
}

// breakConversion says how the diff's line breaks are to be read: as the file's when both are
// uniform (every line break "\n", or every one "\r\n") and differ, and the diff has old lines
// with line breaks (which then cannot be the file's bytes); as they are otherwise, so that lines a diff only
// adds keep the breaks it gives them.
func breakConversion(secs []Section, content string) breakConv {
	lf, crlf, old := 0, 0, 0
	for _, s := range secs {
		if s.hunk == nil {
			continue
		}
		for _, l := range s.hunk.lines {
			if l.op != '+' && strings.HasSuffix(l.text, "\n") {
				old++
			}
			switch {
			case strings.HasSuffix(l.text, "\r\n"):
				crlf++
			case strings.HasSuffix(l.text, "\n"):
				lf++
			}
		}
	}
	if lf > 0 && crlf > 0 || lf == 0 && crlf == 0 || old == 0 {
		return keepBreaks
	}
	n, r := strings.Count(content, "\n"), strings.Count(content, "\r\n")
	switch {
	case lf > 0 && n > 0 && r == n:
		return toCRLF
	case crlf > 0 && n > 0 && r == 0:
		return toLF
	}
	return keepBreaks
}

// matchAt reports whether pre matches the image lines from p, none of them written by a hunk.
func (im *image) matchAt(pre []string, p int, eq func(a, b string) bool) bool {
	if p < 0 || p+len(pre) > im.len() {
		return false
	}
	for j, l := range pre {
		if im.orig(p+j) < 0 || !eq(l, im.at(p+j)) {
			return false
		}
	}
	return true
}

// search finds where pre matches. With a line number (pos >= 0) it is git's find_pos, except
// that pos itself is tried first: when anchors say the hunk must start the file ([0]) or end it
// ([1]), that place alone is tried next; then every line, outward from pos (pos+1, pos-1,
// pos+2, ...). The nearest match
// wins; others holds a second one as near as it (the line number cannot decide). Without a
// line number, the matches after prevEnd count first, then those before it: at is the only one
// of those, or others holds the rest. at is -1 when pre matches nowhere.
func (im *image) search(pre []string, pos, prevEnd int, anchors [2]bool, eq func(a, b string) bool) (at int, others []int) {
	n, m := im.len(), len(pre)
	if pos < 0 {
		var after, before []int
		for p := 0; p+m <= n; p++ {
			if im.matchAt(pre, p, eq) {
				if p >= prevEnd {
					after = append(after, p)
				} else {
					before = append(before, p)
				}
			}
		}
		for _, c := range [][]int{after, before} {
			if len(c) > 0 {
				return c[0], c[1:]
			}
		}
		return -1, nil
	}
	if pos > n {
		pos = n
	}
	if im.matchAt(pre, pos, eq) {
		return pos, nil
	}
	if anchors[0] || anchors[1] {
		p := n - m
		if anchors[0] {
			p = 0
		}
		if (!anchors[1] || p+m == n) && im.matchAt(pre, p, eq) {
			return p, nil
		}
	}
	for d := 1; pos+d <= n || pos-d >= 0; d++ {
		fwd := im.matchAt(pre, pos+d, eq)
		back := im.matchAt(pre, pos-d, eq)
		switch {
		case fwd && back:
			return pos + d, []int{pos - d}
		case fwd:
			return pos + d, nil
		case back:
			return pos - d, nil
		}
	}
	return -1, nil
}

// udiffMessage is Error.Error for a unified diff.
func (e *Error) udiffMessage() string {
	what := fmt.Sprintf("hunk %d (%s) of %s", e.Section, e.Header, e.Path)
	at := ""
	if e.Line >= 0 {
		at = fmt.Sprintf(", at line %d or elsewhere", e.Line)
	}
	switch e.Kind {
	case ErrNoMatch:
		msg := fmt.Sprintf("%s: its context and removed lines match nothing in the file%s, even with white space set aside.", what, at)
		if c := e.Nearest; c != nil {
			lines := fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
			if c.StartLine == c.EndLine {
				lines = fmt.Sprintf("line %d", c.StartLine)
			}
			return msg + fmt.Sprintf(" The most similar region is %s (%d%% similar); copy those lines exactly as context.", lines, int(c.Similarity*100))
		}
		return msg + " No similar region was found; read the file again and copy the lines to change exactly."
	case ErrAmbiguous:
		lines := make([]string, len(e.Lines))
		for i, l := range e.Lines {
			lines[i] = fmt.Sprint(l)
		}
		list := strings.Join(lines, ", ")
		if i := strings.LastIndex(list, ", "); i >= 0 {
			list = list[:i] + " and " + list[i+2:]
		}
		why := "it has no line numbers to tell which is meant"
		if e.Line >= 0 {
			why = fmt.Sprintf("they are as near to line %d of its header", e.Line)
		}
		return fmt.Sprintf("%s: its context and removed lines match at lines %s, and %s; add context lines that tell them apart, or give the hunk's @@ -line,count +line,count @@ numbers.", what, list, why)
	case ErrOverlap:
		return fmt.Sprintf("%s: it matches only lines that hunk %d already changes; merge the two hunks into one.", what, e.Other)
	case ErrEmptyHunk:
		return fmt.Sprintf("%s: the hunk has no lines; every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added), the line after its @@ line too.", what)
	case ErrDeleteMismatch:
		return fmt.Sprintf("the diff deletes %s, but the file holds other lines than the diff removes; read the file again, or leave it if it is to stay.", e.Path)
	case ErrFileExists:
		return fmt.Sprintf("the diff creates %s from /dev/null, but the file already exists and is not empty; write a diff against its current content.", e.Path)
	case ErrFileMissing:
		return fmt.Sprintf("%s does not exist; check the path, or start a new file's diff with --- /dev/null.", e.Path)
	case ErrBadLine:
		if e.Line < 0 {
			return fmt.Sprintf("%s: the hunk only adds lines and its header has no line numbers, so there is nothing to place it by; add context lines or an @@ -l,0 +l,n @@ header.", what)
		}
		return fmt.Sprintf("%s: the hunk only adds lines, and the file has no line %d to add them after; check the line numbers in the @@ header.", what, e.Line)
	}
	return string(e.Kind)
}
