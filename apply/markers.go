package apply

import "strings"

// The canonical marker lines. v2 drops a trailing partial marker unless it is exactly one of
// these.
const (
	searchMarker  = "------- SEARCH"
	sepMarker     = "======="
	replaceMarker = "+++++++ REPLACE"
)

// isSearchStart reports whether line is a SEARCH marker: three or more '-' or '<', a space,
// "SEARCH" and an optional '>'.
func isSearchStart(line string) bool {
	if len(line) < 3 || line[0] != '-' && line[0] != '<' {
		return false // most lines: one test instead of two runs
	}
	return markerWord(line, '-', " SEARCH") || markerWord(line, '<', " SEARCH")
}

// isSeparator reports whether line consists of three or more '='.
func isSeparator(line string) bool {
	return len(line) >= 3 && line[0] == '=' && runOf(line, '=') == len(line)
}

// isReplaceEnd reports whether line is a REPLACE marker: three or more '+' or '>', a space,
// "REPLACE" and an optional '>'.
func isReplaceEnd(line string) bool {
	if len(line) < 3 || line[0] != '+' && line[0] != '>' {
		return false
	}
	return markerWord(line, '+', " REPLACE") || markerWord(line, '>', " REPLACE")
}

// markerWord reports whether line is at least three c followed by word and an optional '>'.
func markerWord(line string, c byte, word string) bool {
	n := runOf(line, c)
	if n < 3 {
		return false
	}
	rest, ok := strings.CutPrefix(line[n:], word)
	return ok && (rest == "" || rest == ">")
}

// runOf returns the number of leading bytes of s equal to c.
func runOf(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// startsLikeMarker reports whether line begins with a byte some marker begins with, so that it
// may be a marker still arriving.
func startsLikeMarker(line string) bool {
	if line == "" {
		return false
	}
	switch line[0] {
	case '-', '<', '=', '+', '>':
		return true
	}
	return false
}

// diffLines walks the lines of a diff split on "\n", as the reference's split does, leaving out
// the last line when drop says it is a marker still streaming.
type diffLines struct {
	diff string
	end  int // the walk stops at the first line that starts at or after end
	pos  int
	n    int
}

// newDiffLines prepares the walk; drop is called with the diff's last line.
func newDiffLines(diff string, drop func(string) bool) *diffLines {
	lastStart := strings.LastIndexByte(diff, '\n') + 1
	d := &diffLines{diff: diff, end: len(diff) + 1} // the last line starts at len(diff) at most
	if drop(diff[lastStart:]) {
		d.end = lastStart
	}
	return d
}

// next returns the next line as the byte range diff[start:end] and its 0-based number; ok is false
// when the walk is over.
func (d *diffLines) next() (start, end, num int, ok bool) {
	if d.pos >= d.end {
		return 0, 0, 0, false
	}
	start = d.pos
	if i := strings.IndexByte(d.diff[start:], '\n'); i >= 0 {
		end = start + i
	} else {
		end = len(d.diff)
	}
	d.pos = end + 1
	num = d.n
	d.n++
	return start, end, num, true
}

// each calls f with every line of the walk, as next returns them, and stops at the first error.
func (d *diffLines) each(f func(start, end, num int) error) error {
	for {
		start, end, num, ok := d.next()
		if !ok {
			return nil
		}
		if err := f(start, end, num); err != nil {
			return err
		}
	}
}

// accum collects lines of a diff as the reference does (each line followed by "\n") without
// copying while they are contiguous in the diff, which they almost always are: only a last line
// without newline, or a v1 section continuing past a second separator, breaks the run.
type accum struct {
	diff string
	pre  []byte // text materialised when contiguity broke
	s, e int    // the contiguous tail diff[s:e]
}

// add appends the line diff[ls:le] and a newline.
func (a *accum) add(ls, le int) {
	if a.s == a.e {
		a.s, a.e = ls, ls
	}
	if ls == a.e && le < len(a.diff) {
		a.e = le + 1
		return
	}
	a.pre = append(a.pre, a.diff[a.s:a.e]...)
	a.pre = append(a.pre, a.diff[ls:le]...)
	a.pre = append(a.pre, '\n')
	a.s, a.e = 0, 0
}

// String returns the collected text.
func (a *accum) String() string {
	if len(a.pre) == 0 {
		return a.diff[a.s:a.e]
	}
	return string(a.pre) + a.diff[a.s:a.e]
}

// reset forgets the collected text.
func (a *accum) reset() { a.pre, a.s, a.e = a.pre[:0], 0, 0 }
