package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/turn"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// comparable returns the blocks without their edit states, as JSON, for comparisons.
func comparable(t testing.TB, blocks any) string {
	t.Helper()
	raw, err := json.Marshal(blocks)
	require.NoError(t, err)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(raw, &list))
	for _, b := range list {
		delete(b, "edit")
		if p, ok := b["params"].(map[string]any); ok && len(p) == 0 {
			delete(b, "params") // the client's encoding/json drops empty maps
		}
	}
	out, err := json.Marshal(list)
	require.NoError(t, err)
	return string(out)
}

// expectedBlocks is what the client must hold for stream name after text, by the reference
// parser.
func expectedBlocks(t testing.TB, name, text string, final bool) string {
	ref := parse.New(defaultConfig().parseConfig()).Parse(text)
	tb := make([]turn.Block, len(ref))
	for i, b := range ref {
		tb[i] = turn.Block{Block: b}
	}
	blocks := keepBlocks(tb)
	if final {
		blocks = blocks.final()
	}
	return comparable(t, toWire(name, blocks, 0))
}

// randomChunks splits s into pieces of about 1 to maxLen bytes, cutting anywhere (inside tags
// too) except inside a UTF-8 sequence: JSON strings carry whole characters.
func randomChunks(rng *rand.Rand, s string, maxLen int) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(maxLen))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// TestStreamPushesAreParsesOfPrefixes is the property of section 3: streamed in random deltas,
// every push leaves the client with exactly the reference parse of a prefix the client sent,
// prefixes in order, and the final push with the parse of the whole text, every block final.
// For a message without edits (whose edit states could force a re-send) it also checks that a
// push starts at a block that changed.
func TestStreamPushesAreParsesOfPrefixes(t *testing.T) {
	t.Parallel()
	withEdits := readExample(t, "add_retry.txt") + "\nDone. Ünïcödé ✓ and a stray <b>tag</b> <execute_command><command>go test ./...</command>"
	withoutEdits := "Let me look.\n\n<read_file>\n<path>a.go</path>\n</read_file>\n\nNow run ✓ the tests:\n" +
		"<execute_command>\n<command>go test ./...</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n" +
		strings.Repeat("Explaining at length, with <angle> brackets & entities. ", 20) + "<attempt_completion><result>done"
	c := newTestClient(t, profileHelix)
	c.didOpen("internal/httpx/client.go", retryFile)
	for seed := range uint64(16) {
		msg, minimal := withEdits, false
		if seed%2 == 1 {
			msg, minimal = withoutEdits, true
		}
		name := fmt.Sprintf("seed-%d", seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		parts := randomChunks(rng, msg, 1+int(seed)*9)
		prefixes := []string{""}
		for _, p := range parts {
			prefixes = append(prefixes, prefixes[len(prefixes)-1]+p)
			c.notify("assistant/parse", map[string]any{"stream": name, "delta": p})
		}
		c.notify("assistant/parse", map[string]any{"stream": name, "final": true})
		c.waitFor("the final push of "+name, func() bool { return c.final(name) })

		// A parse can come back: an open param's value grows by "</command" and, once ">" closes
		// it, equals what it was before the "<". So each parse maps to every prefix giving it.
		expected := make(map[string][]int, len(prefixes))
		for k, prefix := range prefixes {
			key := expectedBlocks(t, name, prefix, false)
			expected[key] = append(expected[key], k)
		}
		var rebuilt []ext.Block
		last := 0
		for i, p := range c.pushes(name) {
			if minimal && i > 0 && p.From < len(rebuilt) && len(p.Blocks) > 0 {
				assert.NotEqual(t, comparable(t, rebuilt[p.From:p.From+1]), comparable(t, p.Blocks[:1]),
					"%s: push %d starts at block %d, which did not change", name, i, p.From)
			}
			rebuilt = append(rebuilt[:p.From:p.From], p.Blocks...)
			if p.Final {
				assert.Equal(t, expectedBlocks(t, name, msg, true), comparable(t, rebuilt), "%s: final push %d", name, i)
				continue
			}
			ks, ok := expected[comparable(t, rebuilt)]
			require.True(t, ok, "%s: push %d is not the parse of any prefix sent", name, i)
			at := slices.IndexFunc(ks, func(k int) bool { return k >= last })
			require.GreaterOrEqual(t, at, 0, "%s: push %d goes back to an earlier prefix", name, i)
			last = ks[at]
		}
		assert.Equal(t, expectedBlocks(t, name, msg, true), comparable(t, c.blocks(name)))
	}
}

// TestStreamIDsDeterministic streams one message twice in different chunkings: the blocks are
// the same and the ids are "<stream>#<index>".
func TestStreamIDsDeterministic(t *testing.T) {
	t.Parallel()
	msg := readExample(t, "add_retry.txt")
	c := newTestClient(t, profileNeovim07)
	for _, name := range []string{"a", "b"} {
		for _, d := range chunks(msg, map[string]int{"a": 5, "b": 333}[name]) {
			c.notify("assistant/parse", map[string]any{"stream": name, "delta": d})
		}
		c.notify("assistant/parse", map[string]any{"stream": name, "final": true})
	}
	c.waitFor("both final pushes", func() bool { return c.final("a") && c.final("b") })
	a, b := c.blocks("a"), c.blocks("b")
	require.Equal(t, len(a), len(b))
	for i := range a {
		assert.Equal(t, fmt.Sprintf("a#%d", i), a[i].ID)
		assert.Equal(t, fmt.Sprintf("b#%d", i), b[i].ID)
		a[i].ID, b[i].ID, a[i].Edit, b[i].Edit = "", "", nil, nil
		assert.Equal(t, a[i], b[i])
	}
}

// TestStreamText checks the text form: a text extending the current one is processed as its
// suffix, any other starts the stream over from block 0.
func TestStreamText(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	c.notify("assistant/parse", map[string]any{"stream": "s", "text": "Hello <read_file><path>a"})
	c.waitFor("the first push", func() bool { return len(c.blocks("s")) == 2 })
	c.notify("assistant/parse", map[string]any{"stream": "s", "text": "Hello <read_file><path>a</path></read_file>"})
	c.waitFor("the tool use complete", func() bool { b := c.blocks("s"); return len(b) == 2 && !b[1].Partial })
	pushes := c.pushes("s")
	assert.Equal(t, 1, pushes[len(pushes)-1].From, "an extending text only re-sends the changed block")
	assert.Equal(t, map[string]string{"path": "a"}, c.blocks("s")[1].Params)

	c.notify("assistant/parse", map[string]any{"stream": "s", "text": "Bye"})
	c.waitFor("the restart", func() bool { return len(c.blocks("s")) == 1 })
	pushes = c.pushes("s")
	assert.Equal(t, 0, pushes[len(pushes)-1].From, "a text that does not extend restarts from block 0")
	assert.Equal(t, "Bye", *c.blocks("s")[0].Content)
}

// TestStreamRequestForm checks the result of assistant/parse as a request.
func TestStreamRequestForm(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "r", "delta": "Look: <read_file><path>x.go"}, &res))
	assert.Equal(t, ext.ParseResult{Stream: "r", Final: false}, ext.ParseResult{Stream: res.Stream, Final: res.Final})
	assert.Equal(t, expectedBlocks(t, "r", "Look: <read_file><path>x.go", false), comparable(t, res.Blocks))
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "r", "final": true}, &res))
	assert.True(t, res.Final)
	assert.Equal(t, expectedBlocks(t, "r", "Look: <read_file><path>x.go", true), comparable(t, res.Blocks))
	for _, b := range res.Blocks {
		assert.False(t, b.Partial)
	}
	c.waitFor("the final push", func() bool { return c.final("r") })
	assert.Equal(t, comparable(t, res.Blocks), comparable(t, c.blocks("r")), "pushes follow the request form too")
}

// TestStreamFinal checks that an ended stream cannot change and its pushes stay final.
func TestStreamFinal(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	c.notify("assistant/parse", map[string]any{"stream": "f", "delta": "Hi <read_file><path>a</path>", "final": true})
	c.waitFor("the final push", func() bool { return c.final("f") })
	for _, b := range c.blocks("f") {
		assert.False(t, b.Partial, "block %s", b.ID)
	}
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"delta after final", map[string]any{"stream": "f", "delta": "more"}},
		{"text that restarts", map[string]any{"stream": "f", "text": "other"}},
		{"text that extends", map[string]any{"stream": "f", "text": "Hi <read_file><path>a</path> more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.request("assistant/parse", tt.params, nil)
			assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
		})
	}
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "f", "text": "Hi <read_file><path>a</path>", "final": true}, &res))
	assert.True(t, res.Final, "repeating the same text and final is accepted")
}

// TestStreamLimits checks the per-stream text limit, LRU eviction and assistant/close.
func TestStreamLimits(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxStreamBytes: 16, MaxStreams: 2}))
	content := func(t *testing.T, params map[string]any) string {
		t.Helper()
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", params, &res))
		require.Len(t, res.Blocks, 1)
		return *res.Blocks[0].Content
	}

	t.Run("text limit", func(t *testing.T) {
		assert.Equal(t, "0123456789", content(t, map[string]any{"stream": "big", "delta": "0123456789"}))
		err := c.request("assistant/parse", map[string]any{"stream": "big", "delta": "0123456789"}, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
		err = c.request("assistant/parse", map[string]any{"stream": "big", "text": strings.Repeat("x", 17)}, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
		err = c.request("assistant/parse", map[string]any{"stream": "big", "delta": "ab"}, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "a stream that refused a delta takes no more")
		assert.Equal(t, "ab", content(t, map[string]any{"stream": "big", "text": "ab"}), "a text starts it over")
		assert.Equal(t, "abc", content(t, map[string]any{"stream": "big", "delta": "c"}))
		err = c.request("assistant/parse", map[string]any{"stream": "fresh", "delta": strings.Repeat("x", 17)}, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	})
	t.Run("least recently used stream evicted", func(t *testing.T) {
		content(t, map[string]any{"stream": "s1", "delta": "a"})
		content(t, map[string]any{"stream": "s2", "delta": "b"})
		content(t, map[string]any{"stream": "s3", "delta": "c"})
		err := c.request("assistant/parse", map[string]any{"stream": "s1", "delta": "x"}, nil)
		require.Error(t, err, "s1 was evicted by s3: a delta of it would start a message from its middle")
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
		assert.Contains(t, err.Error(), "was evicted")
		assert.Equal(t, "x", content(t, map[string]any{"stream": "s1", "text": "x"}), "a whole text starts it over")
		assert.Equal(t, "cz", content(t, map[string]any{"stream": "s3", "delta": "z"}), "s3 stayed")
		assert.Equal(t, "y", content(t, map[string]any{"stream": "s2", "text": "y"}), "s2 was evicted by s1")
		err = c.request("assistant/parse", map[string]any{"stream": "huge", "delta": strings.Repeat("x", 17)}, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
		assert.Equal(t, "cz!", content(t, map[string]any{"stream": "s3", "delta": "!"}), "a refused new stream evicts nothing")
		assert.NotEmpty(t, c.logs.FilterMessage("stream evicted: too many streams").All())
	})
	t.Run("close", func(t *testing.T) {
		assert.Equal(t, "yb", content(t, map[string]any{"stream": "s2", "delta": "b"}))
		c.notify("assistant/close", map[string]any{"stream": "s2"})
		assert.Equal(t, "c", content(t, map[string]any{"stream": "s2", "delta": "c"}), "a closed stream starts over")
	})
}

// TestStreamLogs checks the one info line per stream start and end.
func TestStreamLogs(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	for _, d := range chunks("Some text <read_file><path>a</path></read_file>", 4) {
		c.notify("assistant/parse", map[string]any{"stream": "logged", "delta": d})
	}
	c.notify("assistant/parse", map[string]any{"stream": "logged", "final": true})
	c.waitFor("the final push", func() bool { return c.final("logged") })
	c.notify("assistant/close", map[string]any{"stream": "logged"})
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "other", "text": "x"}, nil))
	for _, m := range []string{"stream started", "stream ended", "stream closed"} {
		n := 0
		for _, e := range c.logs.FilterMessage(m).All() {
			if e.ContextMap()["stream"] == "logged" {
				n++
			}
		}
		assert.Equal(t, 1, n, "%q lines", m)
	}
}

// TestManyConcurrentStreams streams into many more streams than the bound from several
// goroutines at once: nothing breaks, and each worker's last stream either holds its whole
// message or, evicted while it streamed (which the interleaving decides), refuses the rest of it;
// it never holds the tail of its message taken for a whole one.
func TestManyConcurrentStreams(t *testing.T) {
	t.Parallel()
	msg := readExample(t, "add_retry.txt")
	c := newTestClient(t, profileHelix, withServerOptions(Options{MaxStreams: 16}))
	const workers, perWorker = 6, 8
	var wg sync.WaitGroup
	ended := make([]error, workers) // the final request of each worker's last stream
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				name := fmt.Sprintf("w%d-%d", w, i)
				for _, d := range chunks(msg, 97) {
					_ = c.conn.Notify(c.ctx, "assistant/parse", map[string]any{"stream": name, "delta": d})
				}
				err := c.request("assistant/parse", map[string]any{"stream": name, "final": true}, nil)
				if i == perWorker-1 {
					ended[w] = err
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		name := fmt.Sprintf("w%d-%d", w, perWorker-1)
		if err := ended[w]; err != nil {
			assert.Contains(t, err.Error(), "was evicted", name)
			continue
		}
		c.waitFor("the final push of "+name, func() bool { return c.final(name) })
		assert.Equal(t, expectedBlocks(t, name, msg, true), comparable(t, c.blocks(name)))
	}
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "after", "text": "ok"}, &res))
	assert.Equal(t, "ok", *res.Blocks[0].Content)
}

// TestStreamThrottle checks the throttle without depending on timing: with a window longer
// than the test, a growing partial block is not pushed again, while a block that appears or
// completes, and the end of the stream, are pushed at once. Pushes arrive in order, so when the
// urgent push arrives, any throttled one would have arrived before it.
func TestStreamThrottle(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withServerOptions(Options{pushInterval: time.Hour}))
	c.notify("assistant/parse", map[string]any{"stream": "t", "delta": "Hello"})
	c.waitFor("the first block", func() bool { return len(c.blocks("t")) == 1 })
	for range 20 {
		c.notify("assistant/parse", map[string]any{"stream": "t", "delta": " world"})
	}
	c.notify("assistant/parse", map[string]any{"stream": "t", "delta": " <read_file><path>a</path></read_file>"})
	c.waitFor("the completed tool use", func() bool { return len(c.blocks("t")) == 2 })
	assert.Len(t, c.pushes("t"), 2, "the growing text block must not be pushed within the window")
	assert.Equal(t, "Hello"+strings.Repeat(" world", 20), *c.blocks("t")[0].Content)

	c.notify("assistant/parse", map[string]any{"stream": "t", "delta": " and more"})
	c.waitFor("the new text block", func() bool { return len(c.blocks("t")) == 3 })
	for range 5 {
		c.notify("assistant/parse", map[string]any{"stream": "t", "delta": " still"})
	}
	c.notify("assistant/parse", map[string]any{"stream": "t", "final": true})
	c.waitFor("the final push", func() bool { return c.final("t") })
	assert.Len(t, c.pushes("t"), 4, "the growing last block must not be pushed within the window")
	assert.Equal(t, expectedBlocks(t, "t", "Hello"+strings.Repeat(" world", 20)+" <read_file><path>a</path></read_file> and more"+
		strings.Repeat(" still", 5), true), comparable(t, c.blocks("t")))
}

// TestStreamTrailingPush checks that a client converges on the latest text without any further
// delta: the push a throttle window held back goes out when the window ends.
func TestStreamTrailingPush(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.notify("assistant/parse", map[string]any{"stream": "t", "delta": "Hello"})
	for range 10 {
		c.notify("assistant/parse", map[string]any{"stream": "t", "delta": " world"})
	}
	c.waitFor("the latest text", func() bool {
		b := c.blocks("t")
		return len(b) == 1 && *b[0].Content == "Hello"+strings.Repeat(" world", 10)
	})
	assert.False(t, c.final("t"))
}

// TestDeltaCostIndependentOfMessage streams a long write_to_file through the stream layer and
// the edit pipeline in 40-byte deltas, after few or many complete blocks and with a short or a
// long content, and checks that the bytes allocated per delta grow with neither: a delta must
// cost its own length, not the length or the block count of what streamed before it.
func TestDeltaCostIndependentOfMessage(t *testing.T) {
	perDelta := func(blocksBefore, contentLen int) float64 {
		f := newFixture(t, clientCaps{ApplyEdit: true, Encoding: protocol.PositionEncodingKindUTF16}, nil)
		ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxStreams: 1, pushInterval: time.Hour},
			defaultConfig(), discardPeer{}, zap.NewNop())
		ss.ed = f.ed
		before := strings.Repeat("Reading.\n<read_file><path>a.go</path></read_file>\n", blocksBefore)
		_, err := ss.handleParse(ext.ParseParams{Stream: "s", Delta: &before}, false)
		require.NoError(t, err)
		msg := "<write_to_file>\n<path>big.txt</path>\n<content>\n" + strings.Repeat("line of text\n", contentLen/13)
		deltas := runeChunks(msg, 40)
		var start, end runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&start)
		for _, d := range deltas {
			_, err := ss.handleParse(ext.ParseParams{Stream: "s", Delta: &d}, false)
			require.NoError(t, err)
		}
		runtime.ReadMemStats(&end)
		return float64(end.TotalAlloc-start.TotalAlloc) / float64(len(deltas))
	}
	base := perDelta(2, 16<<10)
	long := perDelta(2, 256<<10)
	many := perDelta(1000, 16<<10)
	t.Logf("bytes allocated per delta: %.0f (2 blocks before, 16 KiB), %.0f (256 KiB), %.0f (1000 blocks before)", base, long, many)
	assert.Less(t, long, 2*base+1024, "the cost of a delta grows with the block it extends")
	assert.Less(t, many, 2*base+1024, "the cost of a delta grows with the blocks before it")
}

// TestStreamFileBlocksLinear: describing every block of a stream of many edits costs a few
// allocations, not some per earlier block of each: the tool uses that may count as reads
// (requireRead) are logged once as the stream grows, not gathered again for every block.
func TestStreamFileBlocksLinear(t *testing.T) {
	const n = 2000
	ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxStreams: 1, pushInterval: time.Hour},
		defaultConfig(), discardPeer{}, zap.NewNop())
	msg := strings.Repeat("<write_to_file>\n<path>a.txt</path>\n<content>\nx\n</content>\n</write_to_file>\n", n)
	_, err := ss.handleParse(ext.ParseParams{Stream: "s", Delta: &msg, Final: true}, false)
	require.NoError(t, err)
	blocks, ok := ss.fileBlocks("s")
	require.True(t, ok)
	require.Len(t, blocks, n)
	assert.Len(t, blocks[n-1].Reads.uses, n-1, "every earlier edit is logged")
	allocs := testing.AllocsPerRun(3, func() { ss.fileBlocks("s") })
	assert.Less(t, allocs, float64(n)/10, "allocations of one fileBlocks of %d blocks", n)
}
