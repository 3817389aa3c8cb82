package v4a

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tier is how a hunk's lines (or its "@@" header line) were located in the file: Codex tries
// each tier over the whole search range before the next one.
type Tier string

// Tiers, strictest first.
const (
	// TierExact: the lines are equal.
	TierExact Tier = "exact"
	// TierTrailingSpace: equal once trailing white space is removed from each line.
	TierTrailingSpace Tier = "trailing-whitespace"
	// TierSpace: equal once leading and trailing white space is removed from each line.
	TierSpace Tier = "whitespace"
	// TierPunctuation: equal once trimmed and with typographic dashes, quotes and spaces read as
	// their ASCII forms.
	TierPunctuation Tier = "unicode-punctuation"
	// TierAppend: the hunk has no lines to find; its lines go at the end of the file, as Codex
	// puts them.
	TierAppend Tier = "append"
)

// seekTiers are the tiers seek tries, in order.
var seekTiers = []Tier{TierExact, TierTrailingSpace, TierSpace, TierPunctuation}

// file is the content of a file being updated, split as Codex splits it: a line ends at "\n",
// "\r\n" or a lone "\r", and the last line may have no ending.
type file struct {
	content string
	text    []string // each line without its ending
	offsets []int    // where each line starts in content, and len(content) last
	eol     string   // the file's own line ending, that of its first line ("\n" when it has none)
	norm    []string // text under TierPunctuation, filled on first use
}

func splitFile(content string) *file {
	crs := strings.Count(content, "\r")
	n := strings.Count(content, "\n") + crs + 1
	f := &file{content: content, text: make([]string, 0, n), offsets: make([]int, 0, n+1), eol: "\n"}
	start := 0
	for start < len(content) {
		var i int
		if crs == 0 {
			i = strings.IndexByte(content[start:], '\n')
		} else {
			i = strings.IndexAny(content[start:], "\r\n")
		}
		if i < 0 {
			f.text = append(f.text, content[start:])
			f.offsets = append(f.offsets, start)
			break
		}
		end := start + i
		next := end + 1
		if content[end] == '\r' && next < len(content) && content[next] == '\n' {
			next++
		}
		if len(f.text) == 0 {
			f.eol = content[end:next]
		}
		f.text = append(f.text, content[start:end])
		f.offsets = append(f.offsets, start)
		start = next
	}
	f.offsets = append(f.offsets, len(content))
	return f
}

// terminated reports whether line i has a line ending (only the last line may lack one).
func (f *file) terminated(i int) bool {
	return f.offsets[i]+len(f.text[i]) < f.offsets[i+1]
}

// seek finds pat in f's lines at or after start, as Codex's seek_sequence does: an empty pattern
// matches at start; with eof the only place tried is the end of the file (when that is not before
// start).
func (f *file) seek(pat []string, start int, eof bool) (int, Tier, bool) {
	if len(pat) == 0 {
		return start, TierExact, true
	}
	lines := f.text
	if len(pat) > len(lines) {
		return 0, "", false
	}
	last := len(lines) - len(pat)
	if eof {
		start = max(start, last)
	}
	var normPat []string
	for _, tier := range seekTiers {
		if tier == TierPunctuation {
			f.normalise()
			normPat = make([]string, len(pat))
			for j, p := range pat {
				normPat[j] = normalise(p)
			}
		}
	windows:
		for i := start; i <= last; i++ {
			for j := range pat {
				if !f.equal(tier, i+j, j, pat, normPat) {
					continue windows
				}
			}
			return i, tier, true
		}
	}
	return 0, "", false
}

// equal compares file line i with pattern line j under tier.
func (f *file) equal(tier Tier, i, j int, pat, normPat []string) bool {
	l, p := f.text[i], pat[j]
	switch tier {
	case TierExact:
		return l == p
	case TierTrailingSpace:
		return strings.TrimRightFunc(l, unicode.IsSpace) == strings.TrimRightFunc(p, unicode.IsSpace)
	case TierSpace:
		return trimSpace(l) == trimSpace(p)
	}
	return f.norm[i] == normPat[j]
}

// normalise fills f.norm.
func (f *file) normalise() {
	if f.norm != nil {
		return
	}
	f.norm = make([]string, len(f.text))
	for i, l := range f.text {
		f.norm[i] = normalise(l)
	}
}

// normalise trims s and replaces the typographic characters Codex reads as ASCII: dashes and the
// minus sign as '-', curly and low single quotes as '\”, curly and low double quotes as '"', and
// the no-break and fixed-width spaces as ' '.
func normalise(s string) string {
	s = trimSpace(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(asciiPunct(r))
	}
	return b.String()
}

func asciiPunct(r rune) rune {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009',
		'\u200A', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	return r
}
