package parse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllocsGrowWithBlocksNotBytes pins the allocation profile: a long message without tool uses
// costs one allocation (the result), and each tool use a bounded number (its block and maps).
func TestAllocsGrowWithBlocksNotBytes(t *testing.T) {
	text := strings.Repeat("a < b and c > d, <div> and <br/>\n", 30000)
	assert.LessOrEqual(t, testing.AllocsPerRun(5, func() { Parse(text) }), 1.0)

	const tools = 200
	msg := strings.Repeat("Reading.\n<read_file>\n<path>a.go</path>\n</read_file>\n", tools)
	allocs := testing.AllocsPerRun(5, func() { Parse(msg) })
	assert.LessOrEqual(t, allocs, float64(6*tools))
}

// TestStreamAllocs pins what streaming allocates: in text, only the amortised growth of the
// buffer and of the arrays results are carved from; inside an open param, the two fresh maps of
// the partial block's snapshot, and never anything per byte.
func TestStreamAllocs(t *testing.T) {
	stream := func(msg string) float64 {
		ds := deltas(msg)
		return testing.AllocsPerRun(3, func() {
			s := defaultParser.NewStream()
			for _, d := range ds {
				s.Append(d)
				s.Blocks()
			}
		}) / float64(len(ds))
	}
	text := strings.Repeat("Some text with a > in it. ", 2000)
	assert.Less(t, stream(text), 0.1, "allocations per delta in text")

	param := "<write_to_file><path>a</path><content>" + text
	assert.LessOrEqual(t, stream(param), 4.1, "allocations per delta in an open param")
}
