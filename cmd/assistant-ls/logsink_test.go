package main

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedWriter blocks every Write until it is opened, as a pipe nobody reads does.
type gatedWriter struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
	err  error
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	<-w.open
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	return w.buf.Write(p)
}

func (w *gatedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestLogSinkNeverBlocks writes far more than the sink holds to a writer that does not take
// it: every Write returns, the excess is dropped and counted, and once the writer takes
// entries again the count is written after what was kept.
func TestLogSinkNeverBlocks(t *testing.T) {
	t.Parallel()
	w := &gatedWriter{open: make(chan struct{})}
	s := newLogSink(w)
	line := strings.Repeat("x", 1023) + "\n"
	total := 3 * sinkMaxQueued / len(line)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range total {
			_, _ = s.Write([]byte(line))
		}
	}()
	select {
	case <-done:
	case <-time.After(procTimeout):
		t.Fatalf("Write blocked for %v on a writer that does not read", procTimeout)
	}
	require.NoError(t, s.Sync(), "Sync gives up after its timeout")
	close(w.open)
	var out string
	require.Eventually(t, func() bool {
		out = w.String()
		return strings.Contains(out, "log entries were dropped")
	}, procTimeout, time.Millisecond)
	kept := strings.Count(out, line)
	assert.Greater(t, kept, 0)
	assert.Less(t, kept, total)
	assert.Contains(t, out, "entries were dropped")
}

// TestLogSinkAfterFailure checks that a failed write (standard error closed) makes the sink
// drop entries without trying to write them.
func TestLogSinkAfterFailure(t *testing.T) {
	t.Parallel()
	w := &gatedWriter{open: make(chan struct{}), err: errors.New("broken pipe")}
	close(w.open)
	s := newLogSink(w)
	_, err := s.Write([]byte("a\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.failed
	}, procTimeout, time.Millisecond)
	_, err = s.Write([]byte("b\n"))
	require.NoError(t, err)
	assert.NoError(t, s.Sync())
	assert.Empty(t, w.String())
}
