package parse

import (
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
)

// tailTrim computes ecma.TrimBounds of the region that runs from a fixed start to the end of a
// message that only grows, as a stream's open block does. It remembers what it has settled, so
// that a long run of white space is not walked again on every call.
type tailTrim struct {
	start int // the region this state belongs to
	// lead: msg[start:lead] is known to be white space. leadDone: msg[lead] starts a complete
	// rune that is not white space, so lead is final.
	lead     int
	leadDone bool
	// end, trimEnd: the trimmed region of msg[:end] ended at trimEnd; valid once end > 0.
	end, trimEnd int
}

// bounds returns the offsets into msg of Trim(msg[start:]), exactly as ecma.TrimBounds would.
func (tt *tailTrim) bounds(msg string, start int) (int, int) {
	if tt.start != start || tt.lead < start {
		*tt = tailTrim{start: start, lead: start}
	}
	for !tt.leadDone && tt.lead < len(msg) {
		if !utf8.FullRuneInString(msg[tt.lead:]) {
			// An incomplete sequence at the end reads as U+FFFD for now, which is not space,
			// but more bytes may complete it into a space.
			break
		}
		r, n := utf8.DecodeRuneInString(msg[tt.lead:])
		if !ecma.IsSpace(r) {
			tt.leadDone = true
			break
		}
		tt.lead += n
	}
	a := tt.lead
	end, stop := len(msg), a
	useCache := tt.leadDone && tt.end > a
	if useCache {
		stop = tt.end
	}
	for end > stop {
		r, n := rune(msg[end-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRuneInString(msg[a:end])
		}
		if !ecma.IsSpace(r) {
			break
		}
		if end-n < stop {
			// A space rune completed across the cached end: the cache saw only its first bytes.
			useCache, stop = false, a
		}
		end -= n
	}
	if useCache && end == stop {
		end = tt.trimEnd
	}
	if tt.leadDone {
		tt.end, tt.trimEnd = len(msg), end
	}
	return a, end
}
