package textformat

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// The tiers by which an Aider section is located, in the order they are tried (those of Aider's
// replace_most_similar_chunk, then ours).
const (
	// TierLeadingWhitespace: the SEARCH lines equal file lines once leading white space is set
	// aside, every non-blank line offset by the same white space, which the REPLACE lines get.
	TierLeadingWhitespace apply.MatchTier = "leading_whitespace"
	// TierLeadingBlankLine: the SEARCH text matched (exactly or but for leading white space) once
	// its first line, a blank one, was dropped.
	TierLeadingBlankLine apply.MatchTier = "leading_blank_line"
	// TierElision: the SEARCH and REPLACE texts hold the same "..." lines, and each piece between
	// them occurs exactly once in the file.
	TierElision apply.MatchTier = "elision"
	// TierTrailingWhitespace: (ours; Aider fails) the SEARCH lines matched as in the tiers above
	// once trailing white space is also set aside.
	TierTrailingWhitespace apply.MatchTier = "trailing_whitespace"
)

// applyAider applies an Aider block as Aider's editblock coder does: each section in turn, to
// the content the sections before it left, at the first place it matches (see aiderLocate). A
// section whose SEARCH text is blank appends its REPLACE text, creating the file when it does
// not exist. A section that matches nothing makes the whole block fail, with Aider's report of
// every section that failed; nothing is applied. With out (Check), each section's outcome is
// recorded there instead, and a section that matches nothing is no error.
func (f File) applyAider(content string, exists bool, out []Outcome) (Result, error) {
	lf, crlf := content, false
	if strings.IndexByte(content, '\r') >= 0 {
		lf, crlf = eol.ToLF(content)
	}
	res := Result{Tiers: make([]apply.MatchTier, len(f.Sections)), Matches: make([]int, len(f.Sections)), Spans: make([]Span, len(f.Sections))}
	var done []change // every change made so far, to map offsets back to the original
	var failed []int
	edits := 2*len(f.Sections) + 1         // what the doc's segs can grow to
	doc := newAiderDoc(withEOL(lf), edits) // as Aider's prep does
	for i, s := range f.Sections {
		search, repl := unwrapAider(s.Search, f.Path), unwrapAider(s.Replace, f.Path)
		if !exists {
			if strings.TrimSpace(search) != "" {
				return Result{}, f.fail(ErrFileMissing, i+1, s.Search)
			}
			exists, res.Create, doc = true, true, newAiderDoc("", edits)
		}
		var chs []change
		var tier apply.MatchTier
		pl := splitKeep(withEOL(search))
		if strings.TrimSpace(search) == "" {
			// The content ends in a line break, so this is Aider's append, but for a last line
			// without one, which Aider would join to the first appended line.
			n := doc.lines()
			chs, tier = []change{{doc.offset(n), 0, len(repl)}}, apply.TierEmpty
			doc.replace(n, 0, splitKeep(repl))
		} else if at, off, ok := doc.find(pl, withEOL(search)); ok {
			rl := splitKeep(withEOL(repl))
			chs, tier = []change{{off, joinedLen(pl), joinedLen(rl)}}, apply.TierExact
			doc.replace(at, len(pl), rl)
		} else {
			out, c, t, ok := aiderLocate(doc.String(), search, repl)
			if !ok {
				failed = append(failed, i)
				continue
			}
			chs, tier, doc = c, t, newAiderDoc(out, edits)
		}
		res.Tiers[i] = tier
		res.Matches[i] = eol.Offset(lf, min(mapBack(chs[0].start, done), len(lf)), crlf)
		start, end := matchedRange(chs, done)
		start, end = min(start, len(lf)), min(max(start, end), len(lf))
		res.Spans[i] = Span{eol.Offset(lf, start, crlf), eol.Offset(lf, end, crlf)}
		if out != nil {
			out[i].matched(tier, content, res.Spans[i].Start, res.Spans[i].End)
		}
		done = append(done, chs...)
	}
	cur := doc.String()
	if out != nil {
		for _, i := range failed {
			s := f.Sections[i]
			e := f.fail(ErrNoMatch, i+1, s.Search)
			var b strings.Builder
			e.Nearest = f.aiderFailure(&b, s, cur)
			e.msg = strings.TrimSpace(b.String())
			if c := e.Nearest; c != nil {
				c.StartLine, c.EndLine, c.Start, c.End = originalLines(lf, c, done, crlf)
			}
			out[i].Err, out[i].Applied = e, replaceStands(cur, unwrapAider(s.Search, f.Path), unwrapAider(s.Replace, f.Path))
		}
		return Result{}, nil
	}
	if len(failed) > 0 {
		e := f.fail(ErrNoMatch, failed[0]+1, f.Sections[failed[0]].Search)
		e.msg, e.Nearest = f.aiderReport(failed, cur)
		if c := e.Nearest; c != nil {
			c.StartLine, c.EndLine, c.Start, c.End = originalLines(lf, c, done, crlf)
		}
		return Result{}, e
	}
	res.Content = eol.Restore(cur, crlf)
	return res, nil
}

// replaceStands reports whether the REPLACE text of a section stands in content: verbatim, as
// Aider's report checks, or found as the section's applier finds a SEARCH text (so a REPLACE
// text that got the file's indentation is found too). A section that only deletes leaves
// nothing to find.
func replaceStands(content, search, replace string) bool {
	if strings.TrimSpace(replace) == "" {
		return false
	}
	if strings.Contains(content, replace) {
		return true
	}
	_, _, _, ok := aiderLocate(content, replace, search)
	return ok
}

// originalLines names c, a region of the content the changes done left, in the original
// content lf: its lines and offsets (converted to "\r\n" ones when crlf).
func originalLines(lf string, c *apply.Candidate, done []change, crlf bool) (startLine, endLine, start, end int) {
	start, end = min(mapBack(c.Start, done), len(lf)), min(mapBack(c.End, done), len(lf))
	return strings.Count(lf[:start], "\n") + 1, strings.Count(lf[:end], "\n") + 1, eol.Offset(lf, start, crlf), eol.Offset(lf, end, crlf)
}

// matchedRange is the original bytes the changes chs of one section replaced, in content
// after the changes done; each change of chs is in the content the ones before it left.
func matchedRange(chs, done []change) (start, end int) {
	start, end = mapBack(chs[0].start, done), mapBack(chs[0].start+chs[0].old, done)
	if len(chs) > 1 {
		before := append(append([]change(nil), done...), chs[0])
		for _, ch := range chs[1:] {
			start, end = min(start, mapBack(ch.start, before)), max(end, mapBack(ch.start+ch.old, before))
			before = append(before, ch)
		}
	}
	return start, end
}

// change is one replacement made in a content: at start, old bytes became new ones.
type change struct{ start, old, new int }

// mapBack maps an offset in the content after the changes done back to the content before them.
func mapBack(off int, done []change) int {
	for j := len(done) - 1; j >= 0; j-- {
		c := done[j]
		switch {
		case off >= c.start+c.new:
			off -= c.new - c.old
		case off > c.start:
			off = c.start
		}
	}
	return off
}

// aiderReport is Aider's report of the failed sections, in Aider's words, with content the file
// as the other sections left it; near is where the first failed section's hint lies.
func (f File) aiderReport(failed []int, content string) (msg string, near *apply.Candidate) {
	var b strings.Builder
	blocks := "block"
	if len(failed) > 1 {
		blocks = "blocks"
	}
	fmt.Fprintf(&b, "# %d SEARCH/REPLACE %s failed to match!\n", len(failed), blocks)
	for k, i := range failed {
		b.WriteString("\n")
		if c := f.aiderFailure(&b, f.Sections[i], content); k == 0 {
			near = c
		}
	}
	b.WriteString("The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc\n")
	if passed := len(f.Sections) - len(failed); passed > 0 {
		fmt.Fprintf(&b, "\n# The other %d SEARCH/REPLACE %s matched, but nothing was applied: an edit applies all or nothing.\nSend all the blocks again, with fixed versions of the %s above that failed to match.\n",
			passed, plural(passed, "block", "blocks"), blocks)
	}
	return b.String(), near
}

// aiderFailure writes Aider's report of one section s that failed in content, and returns where
// the lines it names ("Did you mean") are, nil when it names none.
func (f File) aiderFailure(b *strings.Builder, s Section, content string) *apply.Candidate {
	fmt.Fprintf(b, "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in %s\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n\n", f.Path, s.Search, s.Replace)
	lines, c := similarLines(s.Search, content)
	if lines != "" {
		fmt.Fprintf(b, "Did you mean to match some of these actual lines from %s?\n\n```\n%s\n```\n\n", f.Path, lines)
	}
	if s.Replace != "" && strings.Contains(content, s.Replace) {
		fmt.Fprintf(b, "Are you sure you need this SEARCH/REPLACE block?\nThe REPLACE lines are already in %s!\n\n", f.Path)
	}
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// unwrapAider removes what Aider's strip_quoted_wrapping removes from a SEARCH or REPLACE text:
// a first line naming the file (ours: that is the file's name or path; Aider's: that ends with
// its base name), then a fence around the rest. Like Aider, it rejoins the lines with "\n",
// which drops one trailing blank line.
func unwrapAider(text, name string) string {
	if text == "" {
		return text
	}
	first, _, _ := strings.Cut(text, "\n")
	if t := strings.TrimSpace(first); t != name && t != path.Base(strings.ReplaceAll(name, "\\", "/")) && !strings.HasPrefix(first, "```") {
		// Nothing to remove: what splitting and joining the lines would do.
		switch {
		case strings.HasSuffix(text, "\n\n"):
			return text[:len(text)-1]
		case !strings.HasSuffix(text, "\n"):
			return text + "\n"
		}
		return text
	}
	ls := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if first := strings.TrimSpace(ls[0]); first == name || first == path.Base(strings.ReplaceAll(name, "\\", "/")) {
		ls = ls[1:]
	}
	if n := len(ls); n > 0 && strings.HasPrefix(ls[0], "```") && strings.HasPrefix(ls[n-1], "```") {
		ls = ls[1:max(n-1, 1)]
	}
	out := strings.Join(ls, "\n")
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// aiderLocate replaces part by replace in whole as Aider's replace_most_similar_chunk does:
// the first place where part's lines equal whole lines (TierExact); else where they do once
// leading white space is set aside (TierLeadingWhitespace); else the same without a blank first
// line of part (TierLeadingBlankLine); else by its "..." pieces (TierElision). Beyond Aider, the
// line tiers are tried again with trailing white space set aside (TierTrailingWhitespace).
// Aider's fuzzy matching by edit distance is disabled in Aider itself, and so is not done. As in
// Aider, whole, part and replace get a final "\n" when they lack one. chs are the changes made,
// the first the match.
func aiderLocate(whole, part, replace string) (out string, chs []change, tier apply.MatchTier, ok bool) {
	whole, part, replace = withEOL(whole), withEOL(part), withEOL(replace)
	wl := newLines(whole)
	pl, rl := splitKeep(part), splitKeep(replace)
	for _, loose := range []bool{false, true} {
		if out, ch, t, ok := matchLines(whole, wl, pl, rl, loose); ok {
			if loose {
				t = TierTrailingWhitespace
			}
			return out, []change{ch}, t, true
		}
		if len(pl) > 2 && strings.TrimSpace(pl[0]) == "" {
			if out, ch, _, ok := matchLines(whole, wl, pl[1:], rl, loose); ok {
				t := TierLeadingBlankLine
				if loose {
					t = TierTrailingWhitespace
				}
				return out, []change{ch}, t, true
			}
		}
		if !loose {
			if out, chs, ok := elide(whole, part, replace); ok {
				return out, chs, TierElision, true
			}
		}
	}
	return "", nil, "", false
}

func withEOL(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// splitKeep splits s after each "\n"; s ends in "\n" or is empty.
func splitKeep(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n"))
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// fileLines are the lines of a content ending in "\n", split lazily: the exact tier needs none.
type fileLines struct {
	text   string
	starts []int // built on first use
}

func newLines(text string) *fileLines { return &fileLines{text: text} }

func (l *fileLines) get() []int {
	if l.starts == nil {
		l.starts = eol.LFStarts(l.text) // the last start is len(text): text ends in "\n"
	}
	return l.starts
}

// matchLines is Aider's perfect_or_whitespace: part's lines at the first place where they are
// whole's lines, else where they are but for leading white space, the REPLACE lines then getting
// the file's indentation. With loose, lines are compared with trailing white space set aside,
// and only the second way is tried (it includes the first).
func matchLines(whole string, wl *fileLines, pl, rl []string, loose bool) (string, change, apply.MatchTier, bool) {
	if !loose {
		part := strings.Join(pl, "")
		for from := 0; ; {
			i := strings.Index(whole[from:], part)
			if i < 0 {
				break
			}
			at := from + i
			if at == 0 || whole[at-1] == '\n' {
				return whole[:at] + strings.Join(rl, "") + whole[at+len(part):], change{at, len(part), joinedLen(rl)}, apply.TierExact, true
			}
			from = at + 1
		}
	}
	// Set aside the leading white space that every non-blank line of part and replace shares.
	num := -1
	for _, ls := range [][]string{pl, rl} {
		for _, p := range ls {
			if !isBlank(p) {
				if n := utf8.RuneCountInString(leadingSpace(p)); num < 0 || n < num {
					num = n
				}
			}
		}
	}
	if num > 0 {
		pl, rl = outdent(pl, num), outdent(rl, num)
	}
	starts := wl.get()
	n := len(starts) - 1 // whole's lines
	for i := 0; i+len(pl) <= n; i++ {
		add, ok := leadingOffset(whole, starts[i:i+len(pl)+1], pl, loose)
		if !ok {
			continue
		}
		var b strings.Builder
		for _, r := range rl {
			if !isBlank(r) {
				b.WriteString(add)
			}
			b.WriteString(r)
		}
		start, end := starts[i], starts[i+len(pl)]
		return whole[:start] + b.String() + whole[end:], change{start, end - start, b.Len()}, TierLeadingWhitespace, true
	}
	return "", change{}, "", false
}

func joinedLen(ls []string) int {
	n := 0
	for _, l := range ls {
		n += len(l)
	}
	return n
}

// leadingOffset is Aider's match_but_for_leading_whitespace: whether the lines of whole starting
// at starts equal pl once leading white space is set aside, and the white space every non-blank
// one has in front of its pl line, which must be the same for all (and there must be one).
//
// Aider takes that white space as the file line's first len(file line) - len(pl line)
// characters, a Python slice: where the pl line is indented deeper, the count is negative and
// counts from the end, giving nothing when the file line is short enough, else the start of the
// file line, text included. Nothing is taken as Aider takes it; the start of a line with text in
// it makes the match fail instead (Aider would put that text before every REPLACE line). With
// loose, lines also differ in trailing white space, and a pl line indented deeper fails.
func leadingOffset(whole string, starts []int, pl []string, loose bool) (add string, ok bool) {
	found := false
	for k, p := range pl {
		w := whole[starts[k]:starts[k+1]]
		cw, cp := strings.TrimLeftFunc(w, unicode.IsSpace), strings.TrimLeftFunc(p, unicode.IsSpace)
		if loose {
			cw, cp = strings.TrimRightFunc(cw, unicode.IsSpace), strings.TrimRightFunc(cp, unicode.IsSpace)
		}
		if cw != cp {
			return "", false
		}
		if isBlank(w) {
			continue
		}
		ww, wp := w[:len(w)-len(strings.TrimLeftFunc(w, unicode.IsSpace))], p[:len(p)-len(strings.TrimLeftFunc(p, unicode.IsSpace))]
		nw := utf8.RuneCountInString(ww)
		d := nw - utf8.RuneCountInString(wp)
		if d < 0 {
			if loose {
				return "", false
			}
			// Python's w[:d]: the first len(w)+d characters of the line, none when that is <= 0.
			d = max(utf8.RuneCountInString(w)+d, 0)
			if d > nw {
				return "", false // the start of the line's text
			}
		}
		a := ww[:runeOffset(ww, d)]
		if found && a != add {
			return "", false
		}
		add, found = a, true
	}
	return add, found
}

// runeOffset is the byte offset of rune n of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// leadingSpace is the white space s starts with ("" for a blank line's is not asked).
func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
}

// outdent removes num leading runes, all white space, from every non-blank line.
func outdent(ls []string, num int) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		if isBlank(l) {
			out[i] = l
		} else {
			out[i] = l[runeOffset(l, num):]
		}
	}
	return out
}

// elide is Aider's try_dotdotdots: part and replace split at their "..." lines (a line of
// "..." after any white space, blank lines included) must have the same "..." lines; then each
// piece of part must occur exactly once in whole, in turn, and becomes its piece of replace (a
// piece that is empty in part appends its replace piece). ok is false when there are no "..."
// lines or any of this fails.
func elide(whole, part, replace string) (string, []change, bool) {
	pp, rp := splitDots(part), splitDots(replace)
	if len(pp) == 1 || len(pp) != len(rp) {
		return "", nil, false
	}
	for i := 1; i < len(pp); i += 2 {
		if pp[i] != rp[i] {
			return "", nil, false
		}
	}
	var chs []change
	for i := 0; i < len(pp); i += 2 {
		p, r := pp[i], rp[i]
		switch {
		case p == "" && r == "":
			continue
		case p == "":
			if !strings.HasSuffix(whole, "\n") {
				whole += "\n"
			}
			chs = append(chs, change{len(whole), 0, len(r)})
			whole += r
			continue
		}
		at := strings.Index(whole, p)
		if at < 0 || strings.Contains(whole[at+len(p):], p) {
			return "", nil, false
		}
		chs = append(chs, change{at, len(p), len(r)})
		whole = whole[:at] + r + whole[at+len(p):]
	}
	if len(chs) == 0 {
		return "", nil, false // nothing but "..." lines: Aider returns the file unchanged, which counts as a failure
	}
	return whole, chs, true
}

// splitDots splits s as Python's re.split(r"(^\s*\.\.\.\n)", s, flags=re.MULTILINE) does: the
// pieces, with the "..." lines (and the white space before them) between them.
func splitDots(s string) []string {
	var out []string
	last := 0
	for p := 0; p < len(s); {
		q := p
		for q < len(s) && isPySpace(s[q]) {
			q++
		}
		if strings.HasPrefix(s[q:], "...\n") {
			out = append(out, s[last:p], s[p:q+4])
			p, last = q+4, q+4
			continue
		}
		i := strings.IndexByte(s[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return append(out, s[last:])
}

func isPySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// similarLines is Aider's find_similar_lines: the run of content lines, as many as search has,
// most similar to them by difflib's ratio, when that is at least 0.6; widened by five lines on
// each side unless its first and last lines are search's. c says where those lines are.
//
// Beyond Aider, no lines are named when finding them would take more than similarBudget line
// comparisons (difflib's matching is quadratic in the SEARCH text's lines, for every window).
func similarLines(search, content string) (string, *apply.Candidate) {
	sl, cl := pyLines(search), pyLines(content)
	if len(sl) == 0 || len(cl) < len(sl) || (len(cl)-len(sl)+1)*len(sl)*len(sl) > similarBudget {
		return "", nil
	}
	best, at := 0.0, -1
	for i := 0; i+len(sl) <= len(cl); i++ {
		if r := ratio(sl, cl[i:i+len(sl)]); r > best {
			best, at = r, i
		}
	}
	if best < 0.6 {
		return "", nil
	}
	from, to := at, at+len(sl)
	if cl[from] != sl[0] || cl[to-1] != sl[len(sl)-1] {
		from, to = max(0, at-5), min(len(cl), at+len(sl)+5)
	}
	starts := eol.LFStarts(content)
	end := len(content)
	if to < len(starts) {
		end = starts[to] - 1
	}
	return strings.Join(cl[from:to], "\n"), &apply.Candidate{StartLine: from + 1, EndLine: to, Start: starts[from], End: end, Similarity: best}
}

// similarBudget bounds the work of similarLines: a 60-line SEARCH on a 5,000-line file.
const similarBudget = 60 * 60 * 5000

// pyLines splits s into lines as Python's str.splitlines does for "\n" line breaks.
func pyLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// ratio is difflib.SequenceMatcher(None, a, b).ratio() for lists of lines: twice the number of
// lines in matching blocks over the total. (difflib's autojunk, which only applies from 200
// lines of b, is not done.)
func ratio(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(matching(a, b)) / float64(len(a)+len(b))
}

// matching is the number of elements in difflib's matching blocks of a and b: the longest common
// run (the earliest in a, then in b, of the longest), then recursively on each side of it.
func matching(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	bi, bj, size := 0, 0, 0
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
				if cur[j+1] > size {
					bi, bj, size = i-cur[j+1]+1, j-cur[j+1]+1, cur[j+1]
				}
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	if size == 0 {
		return 0
	}
	return size + matching(a[:bi], b[:bj]) + matching(a[bi+size:], b[bj+size:])
}
