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

// TestStreamAllocs checks that Append and Blocks do not allocate per call beyond the amortised
// growth of the text and the block list.
func TestStreamAllocs(t *testing.T) {
	filler := strings.Repeat("Some text with a > in it. ", 20)
	msg := strings.Repeat(filler+"\n<execute_command>\n<command>go test ./...</command>\n</execute_command>\n", 100)
	ds := deltas(msg)
	allocs := testing.AllocsPerRun(3, func() {
		st := defaultParser.NewStream()
		for _, d := range ds {
			st.Append(d)
			st.Blocks()
		}
	})
	// 100 tool uses with two maps each and the copies of their text and values that complete
	// blocks own, plus the moves of the buffer (each after at least minBuffer bytes) and
	// logarithmic growth of the block list.
	assert.Less(t, allocs, float64(len(ds))/2, "allocations per delta")
	assert.LessOrEqual(t, allocs, 100*7.0+float64(len(msg)/minBuffer)+64)
}
