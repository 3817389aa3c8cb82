package transport

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitBody is the exit notification as clients send it.
const exitBody = `{"jsonrpc":"2.0","method":"exit"}`

// notification is a valid notification body with the given method and a string param of n
// bytes.
func notification(method string, n int) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":{"s":"` + strings.Repeat("x", n) + `"}}`
}

// waitEnded waits for s to tell of the end of its input.
func waitEnded(t *testing.T, s *Stream) {
	t.Helper()
	select {
	case <-s.InputEnded():
	case <-time.After(waitTimeout):
		t.Fatal("the stream did not tell of the end of its input")
	}
}

// ended reports whether s has told of the end of its input.
func ended(s *Stream) bool {
	select {
	case <-s.InputEnded():
		return true
	default:
		return false
	}
}

// TestReadAheadKeepsOrder: frames are handed on in the order they were sent, and input skipped
// for its header is reported in its place among them, not when it was read ahead.
func TestReadAheadKeepsOrder(t *testing.T) {
	t.Parallel()
	input := frame(request("a")) + "Content-Length: ten\r\n\r\n" + frame(request("b")) +
		"Garbage\r\n\r\n" + frame(request("c")) + frame(request("d"))
	var seen []string
	conn := &fakeConn{in: strings.NewReader(input)}
	s := NewStream(conn, Options{MaxBody: 1024, Rejected: func(string) { seen = append(seen, "rejected") }})
	defer func() { _ = s.Close() }()
	waitEnded(t, s) // everything is read ahead before the first frame is taken
	for {
		body, _, err := s.ReadFrame(context.Background())
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		seen = append(seen, string(body))
	}
	assert.Equal(t, []string{request("a"), "rejected", request("b"), "rejected", request("c"), request("d")}, seen)
}

// TestReadAheadTellsOfExit: the exit notification is told of while nothing takes the frames
// before it; they are still handed on, in order, and nothing after exit is read.
func TestReadAheadTellsOfExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		exit string // the exit frame's body
		is   bool   // whether it is taken for exit
	}{
		{"exit", exitBody, true},
		{"exit with an id", `{"jsonrpc":"2.0","id":7,"method":"exit"}`, true},
		{"escaped method", `{"jsonrpc":"2.0","method":"\u0065xit"}`, true},
		{"null params", `{"method":"exit","params":null,"jsonrpc":"2.0"}`, true},
		{"exit inside params", `{"jsonrpc":"2.0","method":"x","params":{"method":"exit"}}`, false},
		{"not JSON-RPC", `{"method":"exit"}`, false},
		{"invalid JSON", `{"jsonrpc":"2.0","method":"exit",}`, false},
		{"too large to be scanned", `{"jsonrpc":"2.0","method":"exit","params":{"s":"` + strings.Repeat("x", maxExitBody) + `"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			after := frame(request("after"))
			conn := &fakeConn{in: strings.NewReader(frame(request("a")) + frame(request("b")) + frame(tt.exit) + after)}
			s := NewStream(conn, Options{MaxBody: 1 << 20})
			waitEnded(t, s)
			assert.Equal(t, tt.is, s.ExitRead())
			want := []string{request("a"), request("b")}
			if tt.is {
				want = append(want, tt.exit)
			}
			for _, w := range want {
				body, _, err := s.ReadFrame(context.Background())
				require.NoError(t, err)
				assert.Equal(t, w, string(body))
			}
			if !tt.is {
				// Taken for an ordinary frame (or answered as malformed, and skipped), reading
				// went on to the end of the input.
				for {
					body, _, err := s.ReadFrame(context.Background())
					require.NoError(t, err, "the frame after it was not read")
					if string(body) == request("after") {
						break
					}
				}
				require.NoError(t, s.Close())
				return
			}
			read := make(chan error, 1)
			go func() {
				body, _, err := s.ReadFrame(context.Background())
				if err == nil {
					t.Errorf("a frame after exit was read: %q", body)
				}
				read <- err
			}()
			require.NoError(t, s.Close())
			assert.ErrorIs(t, <-read, io.ErrClosedPipe)
		})
	}
}

// TestReadAheadTellsOfEndOfInput: the end of the input is told of before the frames before
// it are taken; they are handed on, then the end's error.
func TestReadAheadTellsOfEndOfInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		err   error
	}{
		{"between frames", frame(request("a")) + frame(request("b")), io.EOF},
		{"inside a frame", frame(request("a")) + frame(request("b")) + "Content-Length: 10\r\n\r\n{", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewStream(&fakeConn{in: strings.NewReader(tt.input)}, Options{MaxBody: 1024})
			defer func() { _ = s.Close() }()
			waitEnded(t, s)
			assert.False(t, s.ExitRead())
			for _, w := range []string{request("a"), request("b")} {
				body, _, err := s.ReadFrame(context.Background())
				require.NoError(t, err)
				assert.Equal(t, w, string(body))
			}
			for range 2 { // the end stays
				_, _, err := s.ReadFrame(context.Background())
				assert.ErrorIs(t, err, tt.err)
			}
		})
	}
}

// TestReadAheadIsBounded: a client that floods a stream nobody reads makes it read ahead
// maxReadAhead bytes and one frame, no more; an exit past that is told of only once frames
// are taken, and every frame is still handed on, in order.
func TestReadAheadIsBounded(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	frames := maxReadAhead/size + 8
	pr, pw := io.Pipe()
	defer func() { _ = pr.Close() }()
	go func() {
		for i := range frames {
			if _, err := io.WriteString(pw, frame(notification(string(rune('a'+i%26)), size))); err != nil {
				return
			}
		}
		_, _ = io.WriteString(pw, frame(exitBody))
	}()
	s := NewStream(&fakeConn{in: pr}, Options{MaxBody: 2 * size})
	defer func() { _ = s.Close() }()

	// Wait for the queue to fill: the reading goroutine then waits for room.
	queued := func() int {
		s.src.mu.Lock()
		defer s.src.mu.Unlock()
		return s.src.bytes
	}
	deadline := time.Now().Add(waitTimeout)
	for queued() < maxReadAhead {
		require.True(t, time.Now().Before(deadline), "the queue never filled: %d bytes", queued())
		runtime.Gosched()
	}
	frameSize := len(notification("a", size)) + itemOverhead
	assert.Less(t, queued(), maxReadAhead+frameSize, "past the bound, no frame is queued")
	assert.False(t, ended(s), "the exit behind the bound was read")

	for i := range frames {
		body, _, err := s.ReadFrame(context.Background())
		require.NoError(t, err)
		require.Equal(t, notification(string(rune('a'+i%26)), size), string(body), "frame %d", i)
	}
	waitEnded(t, s)
	assert.True(t, s.ExitRead())
	body, _, err := s.ReadFrame(context.Background())
	require.NoError(t, err)
	assert.Equal(t, exitBody, string(body))
}

// BenchmarkReadFrame reads frames of a small request and of a 1 MiB delta through the stream.
func BenchmarkReadFrame(b *testing.B) {
	for _, size := range []int{64, 1 << 20} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			one := frame(notification("assistant/parse", size))
			b.SetBytes(int64(len(one)))
			s := NewStream(&fakeConn{in: &repeated{frame: one}}, Options{MaxBody: 2 << 20})
			defer func() { _ = s.Close() }()
			b.ResetTimer()
			for range b.N {
				if _, _, err := s.ReadFrame(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// repeated reads as the same frame over and over, without end.
type repeated struct {
	frame string
	at    int
}

func (r *repeated) Read(p []byte) (int, error) {
	n := copy(p, r.frame[r.at:])
	r.at = (r.at + n) % len(r.frame)
	return n, nil
}
