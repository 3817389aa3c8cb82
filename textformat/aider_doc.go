package textformat

import (
	"slices"
	"sort"
	"strings"
)

// aiderDoc is a content that Aider's blocks edit in turn, held as its original's lines with runs
// of them replaced, so that a block found exactly costs neither a copy of the content nor a scan
// of it: a 50-block reply on a 10,000-line file would otherwise copy and scan it 50 times.
//
// Its lines, in order, are those of its segs: runs of the original's lines left as they are, and
// runs of new lines. Every line ends in "\n".
type aiderDoc struct {
	orig   string
	starts []int // line starts of orig, and len(orig) last
	segs   []seg
	index  *lineIndex // of orig's lines
}

// seg is a run of an aiderDoc's lines: the original's lines [from, to) when text is nil; else
// the new lines text, which replaced the original's lines [from, to) (none for an insertion,
// and a later seg of a run that was split gets an empty range at the end of it). from and to
// never decrease from one seg to the next, which is what lets orig lines be looked up.
type seg struct {
	from, to int
	text     []string
	hash     []uint32 // the lineKey of each line of text
	bytes    int      // the length of text
	bloom    uint64   // bit k set when a line of text has a lineKey whose top six bits are k
	isText   bool
}

func (s seg) lines() int {
	if s.isText {
		return len(s.text)
	}
	return s.to - s.from
}

// newAiderDoc holds content, which ends in "\n" or is empty. It splits it into lines and indexes
// them in one pass; segs is how many segs to make room for (each replacement adds at most two).
func newAiderDoc(content string, segs int) *aiderDoc {
	n := strings.Count(content, "\n")
	size := 1
	for 2*size < n {
		size <<= 1
	}
	x := &lineIndex{heads: make([]int32, size), next: make([]int32, n), hash: make([]uint32, n), mask: uint32(size - 1)}
	d := &aiderDoc{orig: content, starts: make([]int, n+1), index: x}
	for l, at := 0, 0; l < n; l++ {
		e := at + strings.IndexByte(content[at:], '\n') + 1
		h := lineKey(content[at:e])
		b := h & x.mask
		d.starts[l], x.hash[l], x.next[l], x.heads[b] = at, h, x.heads[b]-1, int32(l)+1
		at = e
	}
	d.starts[n] = len(content)
	d.segs = make([]seg, 0, segs+1)
	if n > 0 {
		d.segs = append(d.segs, seg{from: 0, to: n})
	}
	return d
}

// line is line k of seg s.
func (d *aiderDoc) line(s seg, k int) string {
	if s.isText {
		return s.text[k]
	}
	return d.orig[d.starts[s.from+k]:d.starts[s.from+k+1]]
}

// String is the content.
func (d *aiderDoc) String() string {
	if len(d.segs) == 1 && !d.segs[0].isText {
		return d.orig
	}
	n := 0
	for _, s := range d.segs {
		n += d.size(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range d.segs {
		if s.isText {
			for _, l := range s.text {
				b.WriteString(l)
			}
		} else {
			b.WriteString(d.orig[d.starts[s.from]:d.starts[s.to]])
		}
	}
	return b.String()
}

// size is the length of seg s in bytes.
func (d *aiderDoc) size(s seg) int {
	if !s.isText {
		return d.starts[s.to] - d.starts[s.from]
	}
	return s.bytes
}

// find returns the first line at which the lines of pl (joined: part) stand, and its offset.
func (d *aiderDoc) find(pl []string, part string) (at, off int, ok bool) {
	best, bestOff := -1, -1
	hs := make([]uint32, len(pl))
	var bloom uint64
	for j, l := range pl {
		hs[j] = lineKey(l)
		bloom |= 1 << (hs[j] >> 26)
	}
	// First the original's lines that are still there, found by the rarest line of pl: the first
	// of its lines (the index lists them last first) where pl stands.
	if len(d.starts) > 1 {
		x := d.index
		// Counted from the longest line, likely the rarest, so that a common one costs little.
		anchor := 0
		for j, l := range pl {
			if len(l) > len(pl[anchor]) {
				anchor = j
			}
		}
		fewest := x.count(hs[anchor], len(d.starts))
		for j, h := range hs {
			if n := x.count(h, fewest); n < fewest {
				anchor, fewest = j, n
			}
		}
		h := hs[anchor]
		first := -1
		for l := x.heads[h&x.mask] - 1; l >= 0 && fewest > 0; l = x.next[l] {
			if s := int(l) - anchor; x.hash[l] == h && s >= 0 && s+len(pl) <= len(d.starts)-1 &&
				d.orig[d.starts[s]:d.starts[s+len(pl)]] == part && d.intact(s, len(pl)) {
				first = s
			}
		}
		if s := first; s >= 0 {
			i := sort.Search(len(d.segs), func(i int) bool { return d.segs[i].to > s })
			best, bestOff = s-d.segs[i].from, d.starts[s]-d.starts[d.segs[i].from]
			for _, sg := range d.segs[:i] {
				best, bestOff = best+sg.lines(), bestOff+d.size(sg)
			}
		}
	}
	// Then every place where new lines are, or lines were removed: a match there includes some of
	// the new lines, or the lines on both sides of the removal.
	first := 0 // the doc line where seg i starts
	for _, sg := range d.segs {
		n := sg.lines()
		if !sg.isText {
			first += n
			continue
		}
		if best >= 0 && first-len(pl)+1 >= best {
			break
		}
		try := func(s int) {
			if s >= 0 && (best < 0 || s < best) && d.matchAt(s, pl) {
				best, bestOff = s, -1
			}
		}
		if n == 0 {
			for s := first - len(pl) + 1; s < first; s++ {
				try(s)
			}
		}
		if sg.bloom&bloom == 0 {
			first += n
			continue // none of its lines is one of pl's
		}
		for j, h := range sg.hash {
			for k, ph := range hs {
				if h == ph && hashesFit(sg.hash, j-k, hs) {
					try(first + j - k)
				}
			}
		}
		first += n
	}
	if best < 0 {
		return 0, 0, false
	}
	if bestOff < 0 {
		bestOff = d.offset(best)
	}
	return best, bestOff, true
}

// hashesFit reports whether the lines of hs placed from line at of a seg with the lineKeys sh
// have those keys where they overlap the seg: a cheap test before a match is compared.
func hashesFit(sh []uint32, at int, hs []uint32) bool {
	for q := max(at, 0); q < len(sh) && q-at < len(hs); q++ {
		if sh[q] != hs[q-at] {
			return false
		}
	}
	return true
}

// intact reports whether the original's m lines from s are all still there, in one seg.
func (d *aiderDoc) intact(s, m int) bool {
	i := sort.Search(len(d.segs), func(i int) bool { return d.segs[i].to > s })
	return i < len(d.segs) && !d.segs[i].isText && d.segs[i].from <= s && s+m <= d.segs[i].to
}

// matchAt reports whether the doc lines from s are those of pl.
func (d *aiderDoc) matchAt(s int, pl []string) bool {
	i, k := d.locate(s)
	for _, p := range pl {
		for i < len(d.segs) && k >= d.segs[i].lines() {
			i, k = i+1, 0
		}
		if i == len(d.segs) || d.line(d.segs[i], k) != p {
			return false
		}
		k++
	}
	return true
}

// locate returns the seg holding doc line s and the line's place in it (len(d.segs), 0 past
// the end).
func (d *aiderDoc) locate(s int) (i, k int) {
	for i = range d.segs {
		n := d.segs[i].lines()
		if s < n {
			return i, s
		}
		s -= n
	}
	return len(d.segs), 0
}

// offset is the byte offset of doc line s.
func (d *aiderDoc) offset(s int) int {
	off := 0
	for _, sg := range d.segs {
		n := sg.lines()
		if s < n {
			if sg.isText {
				for _, l := range sg.text[:s] {
					off += len(l)
				}
				return off
			}
			return off + d.starts[sg.from+s] - d.starts[sg.from]
		}
		s -= n
		if sg.isText {
			for _, l := range sg.text {
				off += len(l)
			}
		} else {
			off += d.starts[sg.to] - d.starts[sg.from]
		}
	}
	return off
}

// replace puts rl in place of the m doc lines from s (m == 0 at the end appends them).
func (d *aiderDoc) replace(s, m int, rl []string) {
	i := d.split(s)
	j := d.split(s + m)
	var from, to int
	switch {
	case i < j:
		from, to = d.segs[i].from, d.segs[j-1].to
	case i > 0:
		from = d.segs[i-1].to
		to = from
	}
	hs := make([]uint32, len(rl))
	var bloom uint64
	for k, l := range rl {
		hs[k] = lineKey(l)
		bloom |= 1 << (hs[k] >> 26)
	}
	d.segs = slices.Replace(d.segs, i, j, seg{from: from, to: to, text: rl, hash: hs, bytes: joinedLen(rl), bloom: bloom, isText: true})
}

// lines is the number of lines.
func (d *aiderDoc) lines() int {
	n := 0
	for _, sg := range d.segs {
		n += sg.lines()
	}
	return n
}

// split makes doc line s the first of a seg and returns that seg's index (len(d.segs) when s
// is past the last line).
func (d *aiderDoc) split(s int) int {
	i, k := d.locate(s)
	if i == len(d.segs) || k == 0 {
		return i
	}
	sg := d.segs[i]
	var a, b seg
	if sg.isText {
		n := joinedLen(sg.text[:k])
		a = seg{from: sg.from, to: sg.to, text: sg.text[:k], hash: sg.hash[:k], bytes: n, bloom: sg.bloom, isText: true}
		b = seg{from: sg.to, to: sg.to, text: sg.text[k:], hash: sg.hash[k:], bytes: sg.bytes - n, bloom: sg.bloom, isText: true}
	} else {
		a, b = seg{from: sg.from, to: sg.from + k}, seg{from: sg.from + k, to: sg.to}
	}
	d.segs[i] = a
	d.segs = slices.Insert(d.segs, i+1, b)
	return i + 1
}

// lineIndex finds the lines of a text by their lineKey: a chained hash table of line numbers.
type lineIndex struct {
	heads []int32  // per bucket, 1 + its last line, 0 for none
	next  []int32  // per line, the line before it in its bucket, -1 for none
	hash  []uint32 // per line
	mask  uint32
}

// lineKey is a hash of a line, cheap to compute for every line of a file: its length, and its
// first and last eight bytes, mixed. It picks candidates, which are then compared.
func lineKey(l string) uint32 {
	var a, b uint64
	if n := len(l); n >= 8 {
		_ = l[7]
		a = uint64(l[0]) | uint64(l[1])<<8 | uint64(l[2])<<16 | uint64(l[3])<<24 |
			uint64(l[4])<<32 | uint64(l[5])<<40 | uint64(l[6])<<48 | uint64(l[7])<<56
		t := l[n-8:]
		_ = t[7]
		b = uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	} else {
		for i := range n {
			a = a<<8 | uint64(l[i])
		}
	}
	h := (a*0x9e3779b97f4a7c15 ^ b) * 0xbf58476d1ce4e5b9
	h ^= uint64(len(l)) * 0x94d049bb133111eb
	return uint32(h>>32 ^ h)
}

// count is the number of lines of hash h, or limit when there are at least that many.
func (x *lineIndex) count(h uint32, limit int) int {
	n := 0
	for l := x.heads[h&x.mask] - 1; l >= 0 && n < limit; l = x.next[l] {
		if x.hash[l] == h {
			n++
		}
	}
	return n
}
