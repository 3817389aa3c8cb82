package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/transport"
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
	}, waitTimeout, time.Millisecond, "the pusher takes every queued push")
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
	t.Parallel()
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
	err := c.request("assistant/parse", map[string]any{"stream": "s2", "delta": "B"}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "a delta of the evicted s2 is refused")
	assert.Equal(t, "B", content(map[string]any{"stream": "s2", "text": "B"}), "a whole text starts s2 over")
	assert.Equal(t, "cccc!", content(map[string]any{"stream": "s3", "delta": "!"}), "s3 stayed")
	assert.NotEmpty(t, c.logs.FilterMessage("stream evicted: too much stream text").All())
	err = c.request("assistant/parse", map[string]any{"stream": "huge", "delta": strings.Repeat("x", heldEstimate(5, 1)+1)}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Contains(t, err.Error(), "MaxTotalStreamBytes")
}

// countingPeer is a client that reads every notification at once: it encodes each with the
// transport's codec and counts the bytes of assistant/blocks.
type countingPeer struct {
	mu    sync.Mutex
	bytes int
}

// Call drops the request.
func (*countingPeer) Call(context.Context, string, any, any) error { return nil }

// Notify encodes the notification and counts its bytes.
func (p *countingPeer) Notify(_ context.Context, method string, params any) error {
	b, err := transport.Codec{}.Marshal(params)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.bytes += len(b)
	p.mu.Unlock()
	return nil
}

// pushed returns the bytes counted so far.
func (p *countingPeer) pushed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bytes
}

// mappedHeap is what the Go runtime holds from the system for its heap and the rest, less what
// it returned: the part of the resident set the server's memory makes.
func mappedHeap() uint64 {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	return samples[0].Value.Uint64() - samples[1].Value.Uint64()
}

// streamCost is what streaming a message costs, per byte of the message.
type streamCost struct {
	live float64 // live heap held once the message has streamed
	peak float64 // most the runtime held from the system meanwhile (an RSS upper bound)
	push float64 // bytes of assistant/blocks pushes
}

// costShapes are 32 MiB messages (within MaxStreamBytes) as the deltas of the three shapes
// whose storage differs most: one text block, one write_to_file in the text, and one native
// write_to_file call, all in 4 KiB deltas; and, for the total bound, a message of tiny tool uses.
func costShapes() map[string][]ext.ParseParams {
	const size = DefaultMaxStreamBytes - 1024
	deltas := func(msg string) []ext.ParseParams {
		var out []ext.ParseParams
		for i := 0; i < len(msg); i += 4096 {
			d := msg[i:min(i+4096, len(msg))]
			out = append(out, ext.ParseParams{Stream: "s", Delta: &d})
		}
		return out
	}
	line := "plain prose line of text, no tags at all\n"
	args := `{"path": "x.txt", "content": "` + strings.Repeat(`line of text\n`, (size-40)/14) + `"}`
	var call []ext.ParseParams
	for i := 0; i < len(args); i += 4096 {
		a := args[i:min(i+4096, len(args))]
		call = append(call, ext.ParseParams{Stream: "s", ToolCall: &ext.ToolCall{ID: "c1", Name: toolWrite, Arguments: &a}})
	}
	return map[string][]ext.ParseParams{
		"text":           deltas(strings.Repeat(line, size/len(line))),
		"write_to_file":  deltas("<write_to_file>\n<path>x.txt</path>\n<content>\n" + strings.Repeat("line of text\n", (size-50)/13)),
		"tool call":      call,
		"tiny tool uses": deltas(strings.Repeat("<read_file><path>a.go</path></read_file>\n", size/41)),
	}
}

// measureStream streams deltas into a streams set whose pusher runs against a countingPeer,
// and returns what it cost. Deltas the set refuses end the stream early (a bound was reached).
func measureStream(tb testing.TB, deltas []ext.ParseParams, limits streamLimits) (streamCost, int) {
	debug.FreeOSMemory() // so that what earlier runs left mapped is not counted as free
	base := liveHeap()
	baseMapped := mappedHeap()
	peer := &countingPeer{}
	ss := newStreams(limits, defaultConfig(), peer, zap.NewNop())
	ctx, cancel := context.WithCancel(context.Background())
	var pusher sync.WaitGroup
	pusher.Go(func() { ss.run(ctx) })
	n, peak := 0, baseMapped
	for i, d := range deltas {
		if _, err := ss.handleParse(d, false); err != nil {
			break
		}
		if d.Delta != nil {
			n += len(*d.Delta)
		} else {
			n += len(*d.ToolCall.Arguments)
		}
		if i%16 == 0 {
			peak = max(peak, mappedHeap())
		}
	}
	peak = max(peak, mappedHeap())
	// The pushes the throttle held back go out when the pusher gets to them.
	ss.mu.Lock()
	for _, st := range ss.byName {
		if st.timer != nil && st.timer.Stop() {
			st.timer = nil
			ss.enqueueLocked(st)
		}
	}
	ss.mu.Unlock()
	for {
		ss.mu.Lock()
		idle := len(ss.pending) == 0
		ss.mu.Unlock()
		if idle {
			break
		}
		runtime.Gosched()
	}
	live := float64(liveHeap()) - float64(base)
	cancel()
	pusher.Wait()
	runtime.KeepAlive(ss)
	return streamCost{live: live / float64(n), peak: float64(peak-baseMapped) / float64(n), push: float64(peer.pushed()) / float64(n)}, n
}

// BenchmarkStreamMemory reports, for each shape of costShapes, the live heap and the memory
// taken from the system per byte of the message, and the bytes pushed per byte, with the
// server's limits and throttle. Each iteration streams the whole message into a new set.
//
// The throttle's effect depends on how fast the deltas arrive, which in-process is faster than
// through any wire; "unthrottled" (no time window) is the worst case, where only the bytes
// rule bounds the pushes.
func BenchmarkStreamMemory(b *testing.B) {
	for name, deltas := range costShapes() {
		for _, interval := range []time.Duration{defaultPushInterval, 0} {
			limits := streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: DefaultMaxTotalStreamBytes, maxStreams: 1, pushInterval: interval}
			if interval == 0 {
				name += "/unthrottled"
			}
			b.Run(name, func(b *testing.B) {
				var cost streamCost
				var n int
				for b.Loop() {
					cost, n = measureStream(b, deltas, limits)
				}
				b.SetBytes(int64(n))
				b.ReportMetric(cost.live, "live-B/B")
				b.ReportMetric(cost.peak, "rss-B/B")
				b.ReportMetric(cost.push, "push-B/B")
				b.ReportMetric(float64(n)/(1<<20), "MiB-taken")
			})
		}
	}
}

// TestStreamPushBytesLinear streams long blocks of each shape to a client that reads every push
// before the next delta arrives, the case where the time window coalesces nothing: the pushes
// of a growing block must add up to a few times its length, not to its length squared over the
// delta size (issue 16, item 14). The pusher is driven by the test, after each delta.
func TestStreamPushBytesLinear(t *testing.T) {
	t.Parallel()
	const size = 2 << 20
	line := "plain prose line of text, no tags at all\n"
	args := `{"path": "x.txt", "content": "` + strings.Repeat(`line of text\n`, size/14) + `"}`
	var call []ext.ParseParams
	for i := 0; i < len(args); i += 4096 {
		a := args[i:min(i+4096, len(args))]
		call = append(call, ext.ParseParams{Stream: "s", ToolCall: &ext.ToolCall{ID: "c1", Name: toolWrite, Arguments: &a}})
	}
	deltas := func(msg string) []ext.ParseParams {
		var out []ext.ParseParams
		for i := 0; i < len(msg); i += 4096 {
			d := msg[i:min(i+4096, len(msg))]
			out = append(out, ext.ParseParams{Stream: "s", Delta: &d})
		}
		return out
	}
	shapes := map[string][]ext.ParseParams{
		"text":          deltas(strings.Repeat(line, size/len(line))),
		"write_to_file": deltas("<write_to_file>\n<path>x.txt</path>\n<content>\n" + strings.Repeat("line of text\n", size/13)),
		"tool call":     call,
	}
	for name, ds := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			peer := &countingPeer{}
			// No time window, and a bandwidth no push reaches: only the bytes rule throttles.
			ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxStreams: 1, pushBandwidth: 1e-9},
				defaultConfig(), peer, zap.NewNop())
			drain := func() {
				ss.mu.Lock()
				pending := ss.pending
				ss.pending = nil
				ss.mu.Unlock()
				for _, st := range pending {
					ss.push(context.Background(), st)
				}
			}
			n := 0
			for _, d := range ds {
				_, err := ss.handleParse(d, false)
				require.NoError(t, err)
				if d.Delta != nil {
					n += len(*d.Delta)
				} else {
					n += len(*d.ToolCall.Arguments)
				}
				drain()
			}
			_, err := ss.handleParse(ext.ParseParams{Stream: "s", Final: true}, false)
			require.NoError(t, err)
			drain()
			ratio := float64(peer.pushed()) / float64(n)
			t.Logf("%.2f bytes pushed per byte streamed", ratio)
			assert.LessOrEqual(t, ratio, 5.0)
			ss.stop()
		})
	}
}

// TestStreamTotalBoundWhateverTheContent streams messages whose blocks cost far more than their
// text (issue 16, item 14): tiny tool uses in small deltas and in one long delta, and native
// tool calls without arguments, which add no text at all. The stream is refused once it would
// hold more than MaxTotalStreamBytes, and what it holds stays within the bound.
func TestStreamTotalBoundWhateverTheContent(t *testing.T) {
	const maxTotal = 8 << 20
	tiny := strings.Repeat("<read_file><path>a.go</path></read_file>\n", 4<<20/41)
	var small, calls []ext.ParseParams
	for i := 0; i < len(tiny); i += 4096 {
		d := tiny[i:min(i+4096, len(tiny))]
		small = append(small, ext.ParseParams{Stream: "s", Delta: &d})
	}
	for i := range 40000 {
		calls = append(calls, ext.ParseParams{Stream: "s", ToolCall: &ext.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "read_file"}})
	}
	shapes := map[string][]ext.ParseParams{
		"small deltas":            small,
		"one delta":               {{Stream: "s", Delta: &tiny}},
		"calls without arguments": calls,
	}
	for name, deltas := range shapes {
		t.Run(name, func(t *testing.T) {
			base := liveHeap()
			ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: maxTotal, maxStreams: 1, pushInterval: time.Hour},
				defaultConfig(), discardPeer{}, zap.NewNop())
			var err error
			for _, d := range deltas {
				if _, err = ss.handleParse(d, false); err != nil {
					break
				}
			}
			require.Error(t, err, "the stream is refused before it holds more than the bound")
			assert.Contains(t, err.Error(), "MaxTotalStreamBytes")
			assert.LessOrEqual(t, ss.total, maxTotal)
			held := float64(liveHeap()) - float64(base)
			runtime.KeepAlive(ss)
			t.Logf("%.1f MiB held, %d bytes by the estimate", held/(1<<20), ss.total)
			assert.LessOrEqual(t, held, float64(maxTotal))
		})
	}
}

// TestStreamLongDeltaInPieces sends messages as one delta longer than applyPiece, which the
// stream parses in pieces: the blocks are those of the whole text, tool calls' included.
func TestStreamLongDeltaInPieces(t *testing.T) {
	t.Parallel()
	msg := streamShapes(t, 300<<10)["many blocks"] + "naïve 😀 " + strings.Repeat("é", applyPiece)
	ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxTotal: DefaultMaxTotalStreamBytes, maxStreams: 2, pushInterval: time.Hour},
		defaultConfig(), discardPeer{}, zap.NewNop())
	res, err := ss.handleParse(ext.ParseParams{Stream: "m", Delta: &msg, Final: true}, true)
	require.NoError(t, err)
	assert.Equal(t, expectedBlocks(t, "m", msg, true), comparable(t, res.Blocks))

	content := strings.Repeat("line of text, \"quoted\" 😀\n", 3*applyPiece/25)
	args := `{"path": "x.txt", "content": ` + jsonString(content) + `}`
	res, err = ss.handleParse(ext.ParseParams{Stream: "c", Delta: &msg, ToolCall: &ext.ToolCall{ID: "c1", Name: toolWrite, Arguments: &args, Done: true}}, true)
	require.NoError(t, err)
	require.Len(t, res.Blocks, len(parse.Parse(msg))+1)
	last := res.Blocks[len(res.Blocks)-1]
	assert.False(t, last.Partial)
	assert.Equal(t, content, last.Params["content"])
	assert.Equal(t, content, last.Input["content"])
}
