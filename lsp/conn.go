package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// This file is the server's transport: LSP base-protocol framing that survives a misbehaving
// client, and the jsonrpc2 codec and peer built on it.
//
// jsonrpc2 v1.0.1 ends the connection on the first frame whose header or body it cannot
// decode. The LSP contract wants a ParseError or InvalidRequest answer instead, and the server
// to keep serving, so frames are read here: a bad header is skipped by resynchronising on the
// next "Content-Length:", and a bad body is answered with an error response (id null unless
// the id could be read) before it ever reaches jsonrpc2.

// maxHeaderLine bounds one header line; longer lines are treated as garbage, never buffered.
const maxHeaderLine = 1024

// maxQueuedBytes bounds the frames waiting to be written; past it writers wait, so a client
// that stops reading cannot make the server buffer without end.
const maxQueuedBytes = 256 << 20

// frameStream is a jsonrpc2.Stream whose reads never fail on malformed input and whose writes
// never wait for the client. It also provides ReadFrame and WriteFrame, the methods jsonrpc2's
// connection looks for to read raw frames, so that every frame passes through ReadFrame.
//
// Writes are queued and written by one goroutine: the connection's reader answers requests
// itself, and if it waited for a client that is itself busy writing to the server (an answer
// to window/workDoneProgress/create, say), neither side would ever read again.
type frameStream struct {
	rwc      io.ReadWriteCloser
	in       *bufio.Reader
	maxBody  int
	body     []byte // reused body buffer; a frame is valid until the next read
	resync   bool   // skipping input until the next Content-Length line
	tail     []byte // the end of an overlong line
	log      *zap.Logger
	rejected func(reason string) // called for every frame dropped for its header or size

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	queued  int
	werr    error // the first write error; every later write fails with it
	closing bool
	once    sync.Once
	written chan struct{} // closed when writeLoop has returned
}

// newFrameStream returns a stream over rwc whose frames may carry at most maxBody bytes.
// Larger frames are skipped unread and reported through rejected.
func newFrameStream(rwc io.ReadWriteCloser, maxBody int, log *zap.Logger, rejected func(string)) *frameStream {
	s := &frameStream{
		rwc:      rwc,
		in:       bufio.NewReaderSize(rwc, 64<<10),
		maxBody:  maxBody,
		log:      log,
		rejected: rejected,
	}
	s.cond = sync.NewCond(&s.mu)
	s.written = make(chan struct{})
	go s.writeLoop()
	return s
}

// Read implements jsonrpc2.Stream for callers that do not use ReadFrame.
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	return msg, n, err
}

// Write implements jsonrpc2.Stream: it queues msg and returns.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.WriteFrame(ctx, jsonrpc2.AppendMessage(nil, msg))
}

// WriteFrame queues one encoded message body with its header.
func (s *frameStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, data...)
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.queued > maxQueuedBytes && s.werr == nil && !s.closing {
		s.cond.Wait()
	}
	switch {
	case s.werr != nil:
		return 0, s.werr
	case s.closing:
		return 0, io.ErrClosedPipe
	}
	s.queue = append(s.queue, buf)
	s.queued += len(buf)
	s.cond.Broadcast()
	return int64(len(buf)), nil
}

// writeLoop writes queued frames in order until the stream closes and its queue is empty, or a
// write fails.
func (s *frameStream) writeLoop() {
	defer close(s.written)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closing {
			s.cond.Wait()
		}
		frames := s.queue
		s.queue = nil
		s.mu.Unlock()
		if len(frames) == 0 {
			return
		}
		for _, f := range frames {
			_, err := s.rwc.Write(f)
			s.mu.Lock()
			s.queued -= len(f)
			if err != nil && s.werr == nil {
				s.werr = err
			}
			s.cond.Broadcast()
			failed := s.werr != nil
			s.mu.Unlock()
			if failed {
				return
			}
		}
	}
}

// flushTimeout bounds how long Close waits for a client to read the frames still queued, so
// that a client that stopped reading cannot hold the server forever.
const flushTimeout = 2 * time.Second

// closeGrace is how long Close waits, after closing the connection, for a writer whose write
// the close interrupted.
const closeGrace = 50 * time.Millisecond

// Close writes the frames still queued, then closes the connection and waits for the writer to
// stop: the answer to shutdown and the last pushes must reach the client before Serve returns
// and the process exits, and nothing may be written to the connection after that. A client
// that does not read within flushTimeout loses what is left; Close takes at most flushTimeout
// (plus closeGrace) in all.
func (s *frameStream) Close() error {
	var err error
	s.once.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.cond.Broadcast()
		s.mu.Unlock()
		deadline := time.Now().Add(flushTimeout)
		if !waitClosed(s.written, time.Until(deadline)) {
			s.log.Warn("the client did not read the last messages; closing without them")
		}
		err = s.rwc.Close()
		// A write blocked on a closed connection fails at once, so the writer ends within the
		// short floor; one on a stream whose Close does nothing (standard output) may never
		// end, so this wait is bounded by the same deadline.
		waitClosed(s.written, max(time.Until(deadline), closeGrace))
	})
	return err
}

// waitClosed waits at most d for ch to be closed and reports whether it was.
func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// ReadFrame returns the body of the next frame that jsonrpc2 can decode. Frames it cannot
// decode are answered (ParseError for a body that is not JSON, InvalidRequest for JSON that is
// not a JSON-RPC request) or, for responses, logged and dropped. It fails only when the
// connection does.
func (s *frameStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, 0, err
		}
		if s.check(ctx, body) {
			return body, n, nil
		}
	}
}

// check reports whether body is a single JSON-RPC message jsonrpc2 can decode, and answers
// the client when it is not.
func (s *frameStream) check(ctx context.Context, body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case !json.Valid(body):
		s.answer(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError,
			"the message body is not valid JSON; send one JSON-RPC 2.0 object per Content-Length frame"))
		return false
	case len(trimmed) > 0 && trimmed[0] == '[':
		s.answer(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			"JSON-RPC batches are not part of LSP; send each message in its own frame"))
		return false
	}
	if _, err := jsonrpc2.DecodeMessage(body); err == nil {
		return true
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if err := json.Unmarshal(body, &probe); err != nil || probe.Method == nil {
		// A malformed response (or not an object at all) has nobody waiting for an answer.
		s.log.Warn("dropped a message that is neither a valid request nor a valid response")
		if err != nil {
			s.answer(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
				"the message is not a JSON-RPC 2.0 object"))
		}
		return false
	}
	s.answer(ctx, probeID(probe.ID), jsonrpc2.NewError(jsonrpc2.InvalidRequest,
		`the request is not valid JSON-RPC 2.0: it needs "jsonrpc": "2.0", a string method and an integer or string id`))
	return false
}

// probeID recovers the id of a malformed request where it is a number or a string, so its
// sender can match the error; any other id is answered with null.
func probeID(raw json.RawMessage) jsonrpc2.ID {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return jsonrpc2.ID{}
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil {
		return jsonrpc2.NewNumberID(n)
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return jsonrpc2.NewStringID(str)
	}
	return jsonrpc2.ID{}
}

// answer writes an error response for a frame that never reached jsonrpc2.
func (s *frameStream) answer(ctx context.Context, id jsonrpc2.ID, e *jsonrpc2.Error) {
	s.log.Warn("answered a malformed message", zap.String("error", e.Message))
	if _, err := s.WriteFrame(ctx, jsonrpc2.AppendResponse(nil, id, nil, e)); err != nil {
		s.log.Debug("could not answer a malformed message", zap.Error(err))
	}
}

// readFrame reads the next well-formed header block and its body. Malformed header blocks
// (and those declaring a body above the limit) are skipped by resynchronising on the next
// "Content-Length:", each reported through s.rejected. Its errors are the connection's.
func (s *frameStream) readFrame() ([]byte, int64, error) {
	length, consumed := -1, 0
	bad := func(reason string) {
		s.resync, length = true, -1
		s.log.Warn("skipped input that is not a valid message header", zap.String("reason", reason))
		if s.rejected != nil {
			s.rejected(reason)
		}
	}
	for {
		line, overlong, n, err := s.readLine()
		consumed += n
		if err != nil {
			if errors.Is(err, io.EOF) && consumed > 0 && !s.resync {
				return nil, 0, io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		if overlong && !s.resync {
			bad(fmt.Sprintf("a header line is longer than %d bytes", maxHeaderLine))
		}
		if s.resync {
			// Bodies carry no line break, so the next header usually follows the skipped
			// bytes on the same line.
			i := indexFold(line, "content-length:")
			if i < 0 {
				continue
			}
			line, s.resync, length = line[i:], false, -1
		}
		if len(line) == 0 {
			if length < 0 {
				bad("the header block has no Content-Length")
				continue
			}
			if length > s.maxBody {
				// Not trusting a length above the limit is what keeps garbage from making
				// the server wait for, or allocate, gigabytes; the real body is then skipped
				// by resynchronising.
				bad(fmt.Sprintf("a message of %d bytes is above the limit of %d bytes (Options.MaxMessageBytes); it was dropped",
					length, s.maxBody))
				continue
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			bad(fmt.Sprintf("header line %q has no colon", truncate(line)))
			continue
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
			continue
		}
		v, ok := parseLength(bytes.TrimSpace(value))
		if !ok {
			bad(fmt.Sprintf("Content-Length %q is not a number", truncate(value)))
			continue
		}
		length = v
	}
	if cap(s.body) < length {
		s.body = make([]byte, length)
	}
	body := s.body[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(consumed + length), nil
}

// readLine returns the next line without its line break. A line longer than maxHeaderLine
// cannot be a header: it is consumed without being buffered, and only its last maxHeaderLine
// bytes are returned (with overlong set), where a header following skipped bytes would be.
func (s *frameStream) readLine() (line []byte, overlong bool, n int, err error) {
	line, err = s.in.ReadSlice('\n')
	n = len(line)
	if err == nil && n <= maxHeaderLine+2 {
		return trimEOL(line), false, n, nil
	}
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, n, err
	}
	s.tail = keepTail(append(s.tail[:0], line...))
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = s.in.ReadSlice('\n')
		n += len(line)
		s.tail = keepTail(append(s.tail, line...))
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, true, n, err
	}
	return trimEOL(s.tail), true, n, nil
}

// keepTail keeps the last maxHeaderLine bytes of b, in place.
func keepTail(b []byte) []byte {
	if len(b) <= maxHeaderLine {
		return b
	}
	k := copy(b, b[len(b)-maxHeaderLine:])
	return b[:k]
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// indexFold returns the index of the lower-case ASCII word in line, ignoring case, or -1.
func indexFold(line []byte, word string) int {
	for i := 0; i+len(word) <= len(line); i++ {
		if bytes.EqualFold(line[i:i+len(word)], []byte(word)) {
			return i
		}
	}
	return -1
}

// parseLength parses a Content-Length value: decimal digits only, at most 1 GiB.
func parseLength(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 10 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil && n <= 1<<30
}

// truncate shortens garbage quoted in a log line or message.
func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// lspCodec encodes and decodes payloads with the protocol package, which knows the LSP union
// types and replaces invalid UTF-8 in strings with U+FFFD instead of failing the message.
type lspCodec struct{}

// Marshal implements jsonrpc2.Codec.
func (lspCodec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (lspCodec) Unmarshal(data []byte, v any) error {
	if raw, ok := v.(*jsonrpc2.RawMessage); ok {
		*raw = bytes.Clone(data)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// connPeer is the peer the edit pipeline talks to the client through. Calls run on the
// caller's goroutine and wait for the answer, which the connection's reader delivers; the
// caller must therefore never be the reader itself (see server.handle, which releases the
// reader before any handler that may call the client).
type connPeer struct{ conn jsonrpc2.Conn }

// call sends a request to the client and decodes its result into result (which may be nil).
func (p connPeer) call(ctx context.Context, method string, params, result any) error {
	if _, err := p.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// notify sends a notification to the client.
func (p connPeer) notify(ctx context.Context, method string, params any) error {
	if err := p.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
