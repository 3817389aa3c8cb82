package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"go.uber.org/zap"
)

// runeChunks splits s into pieces of n bytes, each moved forward to a character boundary.
func runeChunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// deltaNote is the params of one assistant/parse notification of the benchmark.
type deltaNote struct {
	Stream string `json:"stream"`
	Delta  string `json:"delta,omitempty"`
	Final  bool   `json:"final,omitempty"`
}

// BenchmarkStreamDeltas streams testdata/perf/msg_100kb.txt through the whole server, wire
// included, in 40-byte assistant/parse notifications, until the client has the final push.
// The edit pipeline runs too (the message's edits target files that do not exist). It reports
// deltas per second and pushes per message.
func BenchmarkStreamDeltas(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "perf", "msg_100kb.txt"))
	if err != nil {
		b.Fatal(err)
	}
	deltas := runeChunks(string(data), 40)
	c := newTestClient(b, profileHelix)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		name := fmt.Sprintf("bench-%d", n)
		n++
		for _, d := range deltas {
			if err := c.conn.Notify(c.ctx, "assistant/parse", deltaNote{Stream: name, Delta: d}); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.conn.Notify(c.ctx, "assistant/parse", deltaNote{Stream: name, Final: true}); err != nil {
			b.Fatal(err)
		}
		c.waitFor("the final push", func() bool { return c.final(name) })
	}
	b.ReportMetric(float64(n*len(deltas))/b.Elapsed().Seconds(), "deltas/s")
	b.ReportMetric(float64(len(c.pushes("bench-0"))), "pushes/msg")
}

// discardPeer is a client that is never there.
type discardPeer struct{}

// call drops the request.
func (discardPeer) Call(context.Context, string, any, any) error { return nil }

// notify drops the notification.
func (discardPeer) Notify(context.Context, string, any) error { return nil }

// BenchmarkIdleStreamMemory measures the heap a finished, idle stream keeps, for a short
// message of two blocks (84 bytes of text).
func BenchmarkIdleStreamMemory(b *testing.B) {
	const streams = 2000
	msg := "I'll read the file first.\n\n<read_file>\n<path>internal/httpx/client.go</path>\n</read_file>"
	var perStream float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ss := newStreams(streamLimits{maxText: DefaultMaxStreamBytes, maxStreams: streams, pushInterval: defaultPushInterval},
			defaultConfig(), discardPeer{}, zap.NewNop())
		for i := range streams {
			if _, err := ss.handleParse(ext.ParseParams{Stream: fmt.Sprintf("stream-%d", i), Delta: &msg, Final: true}, false); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perStream = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / streams
		runtime.KeepAlive(ss)
	}
	b.ReportMetric(perStream, "bytes/stream")
}
