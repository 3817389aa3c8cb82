package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// streamShapes are messages of about size bytes of the shapes whose storage differs: many
// blocks (the realistic message repeated), one long text block, one long write_to_file.
func streamShapes(t testing.TB, size int) map[string]string {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "perf", "msg_100kb.txt"))
	require.NoError(t, err)
	return map[string]string{
		"many blocks":         strings.Repeat(string(data), size/len(data)),
		"one text block":      strings.Repeat("plain prose line of text, no tags at all\n", size/41),
		"one write_to_file":   "<write_to_file>\n<path>x.txt</path>\n<content>\n" + strings.Repeat("line of text\n", size/13),
		"open param, no tool": "<execute_command>\n<command>" + strings.Repeat("echo x; ", size/8),
	}
}

// heldPerByte streams msg into a streams set in deltas of chunk bytes and returns the live heap
// it holds afterwards per byte of text: the parser's state, the blocks and what the pusher keeps.
func heldPerByte(t testing.TB, msg string, chunk int, limits streamLimits) float64 {
	base := liveHeap()
	ss := newStreams(limits, defaultConfig(), discardPeer{}, zap.NewNop())
	for i := 0; i < len(msg); i += chunk {
		d := msg[i:min(i+chunk, len(msg))]
		_, err := ss.handleParse(ext.ParseParams{Stream: "s", Delta: &d}, false)
		require.NoError(t, err)
	}
	held := float64(liveHeap()) - float64(base)
	runtime.KeepAlive(ss)
	return held / float64(len(msg))
}

// TestStreamMemoryPerByte checks that a stream holds at most 3 bytes per byte of its text
// (issue 7, defect 12), whatever the shape of the message and the size of its deltas.
func TestStreamMemoryPerByte(t *testing.T) {
	limits := streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: DefaultMaxTotalStreamBytes, maxStreams: 1, pushInterval: time.Hour}
	for name, msg := range streamShapes(t, 8<<20) {
		for _, chunk := range []int{64, 4096} {
			t.Run(fmt.Sprintf("%s/%d", name, chunk), func(t *testing.T) {
				perByte := heldPerByte(t, msg, chunk, limits)
				t.Logf("%.2f bytes held per byte of text", perByte)
				assert.LessOrEqual(t, perByte, 3.0)
			})
		}
	}
}

// TestStreamHeldEstimate checks that what a stream holds stays within the estimate the total
// bound counts, for the shapes above and for a message of tiny tool uses, whose blocks cost far
// more than their text.
func TestStreamHeldEstimate(t *testing.T) {
	limits := streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: DefaultMaxTotalStreamBytes, maxStreams: 1, pushInterval: time.Hour}
	shapes := streamShapes(t, 4<<20)
	shapes["tiny tool uses"] = strings.Repeat("<read_file><path>a.go</path></read_file>\n", 4<<20/40)
	for name, msg := range shapes {
		t.Run(name, func(t *testing.T) {
			blocks := len(parse.Parse(msg))
			perByte := heldPerByte(t, msg, 4096, limits)
			estimate := float64(heldEstimate(len(msg), blocks)) / float64(len(msg))
			t.Logf("%.2f bytes held per byte of text, %.2f estimated", perByte, estimate)
			assert.LessOrEqual(t, perByte, estimate)
		})
	}
}

// TestStreamsTotalBound streams far more text over many streams than MaxTotalStreamBytes allows:
// the least recently used streams are evicted, so what all streams hold stays within the limit,
// not growing with the text sent.
func TestStreamsTotalBound(t *testing.T) {
	const maxTotal = 16 << 20
	limits := streamLimits{maxText: 2 << 20, maxTotal: maxTotal, maxStreams: 64, pushInterval: time.Hour}
	msg := streamShapes(t, 1<<20)["many blocks"]
	base := liveHeap()
	ss := newStreams(limits, defaultConfig(), discardPeer{}, zap.NewNop())
	// The pusher runs, as in the server: it is what lets go of the streams queued for a push.
	ctx, cancel := context.WithCancel(context.Background())
	var pusher sync.WaitGroup
	pusher.Go(func() { ss.run(ctx) })
	defer pusher.Wait()
	defer cancel()
	for i := range 48 { // 48 MiB of text
		for j := 0; j < len(msg); j += 4096 {
			d := msg[j:min(j+4096, len(msg))]
			_, err := ss.handleParse(ext.ParseParams{Stream: fmt.Sprintf("s%d", i), Delta: &d}, false)
			require.NoError(t, err)
		}
		require.LessOrEqual(t, ss.total, maxTotal)
		require.Equal(t, ss.total, sumHeld(ss))
	}
	require.Eventually(t, func() bool {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return len(ss.pending) == 0
	}, 10*time.Second, time.Millisecond, "the pusher takes every queued push")
	held := float64(liveHeap()) - float64(base)
	runtime.KeepAlive(ss)
	t.Logf("%d streams live, %d bytes held by the estimate, %.1f MiB held", len(ss.byName), ss.total, held/(1<<20))
	assert.Less(t, len(ss.byName), 48, "streams were evicted")
	assert.LessOrEqual(t, held, float64(maxTotal))
}

// sumHeld adds up the held estimates of the live streams.
func sumHeld(ss *streams) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	total := 0
	for _, st := range ss.byName {
		total += st.held
	}
	return total
}

// TestStreamTotalLimit checks MaxTotalStreamBytes through the wire: other streams are evicted
// least recently used first, the stream being extended never is, and a stream that alone would
// pass the limit is refused.
func TestStreamTotalLimit(t *testing.T) {
	// Room for two streams of one text block and 5 bytes each.
	c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxStreamBytes: 4096, MaxTotalStreamBytes: 2 * heldEstimate(5, 1)}))
	content := func(params map[string]any) string {
		t.Helper()
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", params, &res))
		require.Len(t, res.Blocks, 1)
		return *res.Blocks[0].Content
	}
	content(map[string]any{"stream": "s1", "delta": "aaaa"})
	content(map[string]any{"stream": "s2", "delta": "bbbb"})
	assert.Equal(t, "aaaaA", content(map[string]any{"stream": "s1", "delta": "A"}), "s1 is now the most recently used")
	assert.Equal(t, "cccc", content(map[string]any{"stream": "s3", "delta": "cccc"}), "s2 is evicted, not s1")
	assert.Equal(t, "B", content(map[string]any{"stream": "s2", "delta": "B"}), "s2 starts over")
	assert.Equal(t, "cccc!", content(map[string]any{"stream": "s3", "delta": "!"}), "s3 stayed")
	assert.NotEmpty(t, c.logs.FilterMessage("stream evicted: too much stream text").All())
	err := c.request("assistant/parse", map[string]any{"stream": "huge", "delta": strings.Repeat("x", heldEstimate(5, 1)+1)}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Contains(t, err.Error(), "MaxTotalStreamBytes")
}

// BenchmarkStreamMemory reports the bytes a 32 MiB stream holds per byte of its text.
func BenchmarkStreamMemory(b *testing.B) {
	limits := streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: DefaultMaxTotalStreamBytes, maxStreams: 1, pushInterval: time.Hour}
	for name, msg := range streamShapes(b, 32<<20) {
		b.Run(name, func(b *testing.B) {
			var perByte float64
			for b.Loop() {
				perByte = heldPerByte(b, msg, 4096, limits)
			}
			b.ReportMetric(perByte, "bytes/byte")
		})
	}
}
