package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// waitTimeout bounds every wait of these tests: a last resort, reached only when the stream
// hangs, so it is minutes, since a busy machine under -race may take seconds.
const waitTimeout = 5 * time.Minute

// fakeConn reads its input and records what is written to it.
type fakeConn struct {
	in  io.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *fakeConn) Read(p []byte) (int, error) { return c.in.Read(p) }

func (c *fakeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *fakeConn) Close() error { return nil }

// written returns the bodies of the frames written so far.
func (c *fakeConn) written(t *testing.T) []string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var bodies []string
	for rest := c.out.String(); rest != ""; {
		var n int
		_, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &n)
		require.NoError(t, err, "not a frame: %q", rest)
		start := strings.Index(rest, "\r\n\r\n") + 4
		bodies = append(bodies, rest[start:start+n])
		rest = rest[start+n:]
	}
	return bodies
}

// frame wraps a body in a Content-Length header.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// request is a valid request body with the given method.
func request(method string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`
}

// readAll reads frames until the input ends and returns their bodies and the reasons given for
// the input skipped.
func readAll(t *testing.T, input string, maxBody int) (bodies, rejected []string, conn *fakeConn) {
	t.Helper()
	conn = &fakeConn{in: strings.NewReader(input)}
	s := NewStream(conn, Options{MaxBody: maxBody, Rejected: func(r string) { rejected = append(rejected, r) }})
	for {
		body, _, err := s.ReadFrame(context.Background())
		if err != nil {
			require.ErrorIs(t, err, io.EOF, "bodies so far: %q", bodies)
			break
		}
		bodies = append(bodies, string(body))
	}
	require.NoError(t, s.Close())
	return bodies, rejected, conn
}

// TestResynchronise checks that after a bad header the next valid frames are all read, for
// every way the header can be bad, and that each skip is reported.
func TestResynchronise(t *testing.T) {
	a, b := frame(request("a")), frame(request("b"))
	tests := []struct {
		name    string
		garbage string
		reason  string // a substring of the first reason reported
	}{
		{"nothing", "", ""},
		{"header without its blank line", "Content-Length: 5\r\nhello", "runs into the next message's header"},
		{"JSON body after a header without its blank line", "Content-Length: 38\r\n" + request("x"), "runs into the next message's header"},
		{"CR-only line ends", "Content-Length: 38\r\r" + request("x"), "runs into the next message's header"},
		{"CR-only line ends everywhere", "Content-Length: 38\r\r" + request("x") + "Content-Length: 38\r\r" + request("y"), "runs into the next message's header"},
		{"oversized frame ending in header text", "Content-Length: 100\r\n\r\n" + strings.Repeat(" ", 100-len("Content-Length:")) + "Content-Length:", "above the limit"},
		{"oversized frame ending in a header line", "Content-Length: 100\r\n\r\n" + strings.Repeat(" ", 80) + "Content-Length: 3\r\n", "above the limit"},
		{"header without a colon", "Garbage line\r\n\r\n{}", "no colon"},
		{"header name that is JSON", `{"jsonrpc": 1}` + "\r\n", "not a header name"},
		{"no Content-Length", "Content-Type: x\r\n\r\n", "no Content-Length"},
		{"length not a number", "Content-Length: ten\r\n\r\n", "not a number"},
		{"overlong header line", strings.Repeat("x", 3*maxHeaderLine) + "\r\n", "longer than"},
		{"overlong line ending in a header", strings.Repeat("x", 3*maxHeaderLine) + "Content-Length: 2\r\n\r\n{}", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies, rejected, _ := readAll(t, tt.garbage+a+b, 64)
			require.GreaterOrEqual(t, len(bodies), 2, "bodies: %q", bodies)
			assert.Equal(t, []string{request("a"), request("b")}, bodies[len(bodies)-2:], "the two valid frames after the garbage")
			if tt.reason == "" {
				assert.Empty(t, rejected)
				return
			}
			require.NotEmpty(t, rejected)
			assert.Contains(t, rejected[0], tt.reason)
		})
	}
}

// TestMalformedBodies checks the answer to each kind of body jsonrpc2 cannot decode, and that
// the ones it can decode are passed on.
func TestMalformedBodies(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name   string
		body   string
		pass   bool   // ReadFrame returns it
		answer string // the answer written, as JSON; "" for none
	}{
		{"valid", request("a"), true, ""},
		{"not JSON", `{"jsonrpc":"2.0","method":`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
		{"not JSON, id recovered", `{"jsonrpc":"2.0","id":"r-1","method":"x","params":{"a":1,,}}`, false, `{"jsonrpc":"2.0","id":"r-1","error":{"code":-32700}}`},
		{"truncated, id recovered", `{"jsonrpc":"2.0","id":7,"method":`, false, `{"jsonrpc":"2.0","id":7,"error":{"code":-32700}}`},
		{"nested past the decoder's depth", `{"jsonrpc":"2.0","id":"deep","method":"m","params":{"a":` + deep + `}}`, true, ""},
		{"binary", "\xff\xfe\x00\x01", false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
		{"not an object", `42`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
		{"batch", `[` + request("a") + `]`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
		{"wrong version", `{"jsonrpc":"1.0","id":"old","method":"m"}`, false, `{"jsonrpc":"2.0","id":"old","error":{"code":-32600}}`},
		{"no version, deeply nested", `{"id":9,"method":"m","params":` + deep + `}`, false, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600}}`},
		{"malformed response", `{"jsonrpc":"2.0","id":99,"result":1,"error":{"code":1,"message":"x"}}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies, _, conn := readAll(t, frame(tt.body), 1<<20)
			if tt.pass {
				assert.Equal(t, []string{tt.body}, bodies)
			} else {
				assert.Empty(t, bodies)
			}
			out := conn.written(t)
			if tt.answer == "" {
				assert.Empty(t, out)
				return
			}
			require.Len(t, out, 1)
			var got struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(out[0]), &got))
			gotJSON, err := json.Marshal(map[string]any{"jsonrpc": got.JSONRPC, "id": got.ID, "error": map[string]int{"code": got.Error.Code}})
			require.NoError(t, err)
			assert.JSONEq(t, tt.answer, string(gotJSON))
		})
	}
}

// TestFramesAreNotReused checks that a frame stays as it was read after the next one is read:
// jsonrpc2 borrows a request's method and params from it, and keeps them past the read loop.
func TestFramesAreNotReused(t *testing.T) {
	conn := &fakeConn{in: strings.NewReader(frame(request("first")) + frame(request("ZZZZZ")))}
	s := NewStream(conn, Options{MaxBody: 1024})
	defer func() { _ = s.Close() }()
	first, _, err := s.ReadFrame(context.Background())
	require.NoError(t, err)
	_, _, err = s.ReadFrame(context.Background())
	require.NoError(t, err)
	assert.Equal(t, request("first"), string(first))
}

// TestAsyncHandlerKeepsMethod is the race of issue 7, item 9, through jsonrpc2: a handler that
// takes the method name, releases the reader with Async and uses the name after the next frame
// was read. Under the race detector it fails if the frame's bytes are reused.
func TestAsyncHandlerKeepsMethod(t *testing.T) {
	serverEnd, clientEnd := net.Pipe()
	s := NewStream(serverEnd, Options{MaxBody: 1024})
	conn := jsonrpc2.NewConn(s, jsonrpc2.WithCodec(Codec{}))
	nextDone := make(chan struct{})
	names := make(chan string, 1)
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		name := req.Method()
		if name == "first/slow" {
			jsonrpc2.Async(ctx)
			<-nextDone
			names <- strings.Clone(name)
			return nil, nil
		}
		close(nextDone)
		return nil, nil
	})
	client := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	client.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	require.NoError(t, client.Notify(context.Background(), "first/slow", map[string]int{"n": 1}))
	require.NoError(t, client.Notify(context.Background(), "ZZZZZ/ZZZZ", map[string]int{"n": 2}))
	select {
	case name := <-names:
		assert.Equal(t, "first/slow", name)
	case <-time.After(waitTimeout):
		t.Fatal("the slow handler never finished")
	}
	require.NoError(t, conn.Close())
	_ = client.Close()
}

// blockedConn is standard input as a client that keeps it open leaves it: Read never returns,
// and Close does not interrupt it.
type blockedConn struct {
	fakeConn
	block chan struct{}
}

func (c *blockedConn) Read([]byte) (int, error) {
	<-c.block
	return 0, io.EOF
}

// TestCloseEndsBlockedRead checks that Close ends a ReadFrame whose Read of the connection
// never returns, and that no frame is read after Close even when one is waiting.
func TestCloseEndsBlockedRead(t *testing.T) {
	t.Run("blocked", func(t *testing.T) {
		conn := &blockedConn{block: make(chan struct{})}
		defer close(conn.block)
		s := NewStream(conn, Options{MaxBody: 1024})
		read := make(chan error, 1)
		go func() {
			_, _, err := s.ReadFrame(context.Background())
			read <- err
		}()
		require.NoError(t, s.Close())
		select {
		case err := <-read:
			assert.ErrorIs(t, err, io.ErrClosedPipe)
		case <-time.After(waitTimeout):
			t.Fatal("ReadFrame did not return after Close")
		}
	})
	t.Run("frame waiting", func(t *testing.T) {
		conn := &fakeConn{in: strings.NewReader(frame(request("a")) + frame(request("b")))}
		s := NewStream(conn, Options{MaxBody: 1024})
		_, _, err := s.ReadFrame(context.Background())
		require.NoError(t, err)
		require.NoError(t, s.Close())
		_, _, err = s.ReadFrame(context.Background())
		assert.ErrorIs(t, err, io.ErrClosedPipe)
	})
}

// TestCloseFlushes checks that frames queued before Close are written, in order, and that
// writes after it fail.
func TestCloseFlushes(t *testing.T) {
	conn := &fakeConn{in: strings.NewReader("")}
	s := NewStream(conn, Options{MaxBody: 1024})
	for _, m := range []string{"a", "b", "c"} {
		_, err := s.WriteFrame(context.Background(), []byte(request(m)))
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	assert.Equal(t, []string{request("a"), request("b"), request("c")}, conn.written(t))
	_, err := s.WriteFrame(context.Background(), []byte(request("d")))
	assert.True(t, errors.Is(err, io.ErrClosedPipe), "err: %v", err)
}

// TestParseID checks the ids an answer can be matched by.
func TestParseID(t *testing.T) {
	tests := []struct {
		raw  string
		want jsonrpc2.ID
	}{
		{`7`, jsonrpc2.NewNumberID(7)},
		{` "a-1" `, jsonrpc2.NewStringID("a-1")},
		{`null`, jsonrpc2.ID{}},
		{``, jsonrpc2.ID{}},
		{`1.5`, jsonrpc2.ID{}},
		{`{"x":1}`, jsonrpc2.ID{}},
		{`"unterminated`, jsonrpc2.ID{}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseID([]byte(tt.raw)), "raw %q", tt.raw)
	}
}

// brokenConn is a connection whose output the client closed: every write fails, while its
// input stays open.
type brokenConn struct{ blockedConn }

func (c *brokenConn) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestWriteFailureEndsReading checks that a failed write ends a pending ReadFrame, so that a
// session that can no longer answer ends, and that later writes fail with the write's error.
func TestWriteFailureEndsReading(t *testing.T) {
	conn := &brokenConn{blockedConn{block: make(chan struct{})}}
	defer close(conn.block)
	s := NewStream(conn, Options{MaxBody: 1024})
	read := make(chan error, 1)
	go func() {
		_, _, err := s.ReadFrame(context.Background())
		read <- err
	}()
	_, err := s.WriteFrame(context.Background(), []byte(request("a")))
	require.NoError(t, err, "the frame is queued before the write fails")
	select {
	case err := <-read:
		assert.EqualError(t, err, "broken pipe")
	case <-time.After(waitTimeout):
		t.Fatal("ReadFrame did not return after a write failed")
	}
	require.Eventually(t, func() bool {
		_, err := s.WriteFrame(context.Background(), []byte(request("b")))
		return err != nil && err.Error() == "broken pipe"
	}, waitTimeout, time.Millisecond)
	require.NoError(t, s.Close())
}

// TestWriteFramesLongPayloads checks that a message whose long payload the stream's codec held
// back, to frame the message around it instead of copying it (issue 16, item 14), is written as
// the bytes jsonrpc2 frames it in: calls, notifications and responses, with payloads on both
// sides of the threshold, an error response, and a method that holds what the envelope is cut
// at. Once written, no payload stays held.
func TestWriteFramesLongPayloads(t *testing.T) {
	t.Parallel()
	conn := &fakeConn{in: strings.NewReader("")}
	s := NewStream(conn, Options{MaxBody: 1 << 20})
	codec := s.Codec()
	long := jsonrpc2.RawMessage(`{"content":"` + strings.Repeat("x", splitAbove) + `"}`)
	short := jsonrpc2.RawMessage(`{"a":1}`)
	var want []string
	for _, params := range []jsonrpc2.RawMessage{long, short} {
		held, err := codec.Marshal(params)
		require.NoError(t, err)
		if len(params) > splitAbove {
			require.Less(t, len(held), 100, "a long payload is held back")
		}
		for _, m := range []func(jsonrpc2.RawMessage) jsonrpc2.Message{
			func(p jsonrpc2.RawMessage) jsonrpc2.Message { return jsonrpc2.NewNotification("assistant/blocks", p) },
			func(p jsonrpc2.RawMessage) jsonrpc2.Message {
				return jsonrpc2.NewNotification(tokenMark+`"params":0`, p)
			},
			func(p jsonrpc2.RawMessage) jsonrpc2.Message {
				return jsonrpc2.NewCall(jsonrpc2.NewNumberID(7), "workspace/applyEdit", p)
			},
			func(p jsonrpc2.RawMessage) jsonrpc2.Message {
				return jsonrpc2.NewCall(jsonrpc2.NewStringID(`s"1`), "x", p)
			},
			func(p jsonrpc2.RawMessage) jsonrpc2.Message {
				return jsonrpc2.NewResponse(jsonrpc2.NewNumberID(3), p, nil)
			},
		} {
			want = append(want, string(jsonrpc2.AppendMessage(nil, m(params))))
			p, err := codec.Marshal(params)
			require.NoError(t, err)
			_, err = s.Write(context.Background(), m(p))
			require.NoError(t, err)
		}
	}
	errResp := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(4), nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad"))
	want = append(want, string(jsonrpc2.AppendMessage(nil, errResp)))
	_, err := s.Write(context.Background(), errResp)
	require.NoError(t, err)
	heldNow := func() int {
		s.held.mu.Lock()
		defer s.held.mu.Unlock()
		return len(s.held.byID)
	}
	assert.Equal(t, 1, heldNow(), "only the payload marshalled and never written is held")
	require.NoError(t, s.Close())
	assert.Zero(t, heldNow(), "Close drops what was never written")
	got := conn.written(t)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i], got[i], "message %d", i)
	}
}
