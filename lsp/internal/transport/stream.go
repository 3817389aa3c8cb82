package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxHeaderLine bounds one header line; longer lines are treated as garbage, never buffered.
const maxHeaderLine = 1024

// maxQueuedBytes bounds the frames waiting to be written; past it writers wait, so a client
// that stops reading cannot make the server buffer without end.
const maxQueuedBytes = 256 << 20

// flushTimeout bounds how long Close waits for a client to read the frames still queued, so
// that a client that stopped reading cannot hold the server forever.
const flushTimeout = 2 * time.Second

// closeGrace is how long Close waits, after closing the connection, for a writer whose write
// the close interrupted.
const closeGrace = 50 * time.Millisecond

// Options configure a Stream.
type Options struct {
	// MaxBody bounds the body of one incoming frame. A frame declaring more is skipped unread
	// and reported through Rejected. It must be positive.
	MaxBody int
	// Logger receives warnings about input that was skipped or answered here; nil means none.
	Logger *zap.Logger
	// Rejected, when set, is called with the reason for every frame skipped for its header or
	// its size, in its place among the frames: on the goroutine calling ReadFrame, before the
	// frames read after it are returned. It must not wait for the client.
	Rejected func(reason string)
}

// Stream is a jsonrpc2.Stream whose reads never fail on malformed input and whose writes never
// wait for the client. It also provides ReadFrame and WriteFrame, the methods jsonrpc2's
// connection looks for to read raw frames, so that every frame passes through ReadFrame.
//
// Writes are queued and written by one goroutine: the connection's reader answers requests
// itself, and if it waited for a client that is itself busy writing to the server (an answer
// to window/workDoneProgress/create, say), neither side would ever read again.
//
// Reads run on a goroutine of their own as well, reading whole frames ahead of jsonrpc2 (at
// most maxReadAhead bytes): Close ends a pending ReadFrame at once even when closing the
// connection does not interrupt its Read (standard input does not: a process whose client keeps
// stdin open would otherwise never see its reader end), and InputEnded tells of an exit or the
// end of input while the connection's reader is still held by a handler.
type Stream struct {
	rwc      io.ReadWriteCloser
	src      *readAhead
	in       *bufio.Reader // read by readLoop only
	maxBody  int
	resync   bool   // skipping input until the next Content-Length; readLoop's
	tail     []byte // the end of an overlong line; readLoop's
	log      *zap.Logger
	rejected func(reason string)

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []outFrame
	queued  int
	werr    error // the first write error; every later write fails with it
	closing bool
	once    sync.Once
	written chan struct{} // closed when writeLoop has returned
	held    *heldPayloads // long payloads encoded by s.Codec(), until written
}

// NewStream returns a stream over rwc. It starts the goroutines that read rwc and write to
// it; Close stops them (a Read of rwc that never returns keeps its goroutine, and the frames
// it read ahead, until the process ends).
func NewStream(rwc io.ReadWriteCloser, opts Options) *Stream {
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	s := &Stream{
		rwc:      rwc,
		src:      newReadAhead(),
		in:       bufio.NewReaderSize(rwc, 64<<10),
		maxBody:  opts.MaxBody,
		log:      log,
		rejected: opts.Rejected,
		written:  make(chan struct{}),
		held:     &heldPayloads{},
	}
	s.cond = sync.NewCond(&s.mu)
	go s.writeLoop()
	go s.readLoop()
	return s
}

// Read implements jsonrpc2.Stream for callers that do not use ReadFrame.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	return msg, n, err
}

// Write implements jsonrpc2.Stream: it queues msg and returns.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	// The envelope is short unless the payload was encoded by another codec than s.Codec().
	env := jsonrpc2.AppendMessage(make([]byte, maxHeader, maxHeader+256), msg)
	body := env[maxHeader:]
	f := outFrame{}
	if at := bytes.Index(body, []byte(tokenMark)); at >= 0 {
		payload, ok := s.held.take(body[at:])
		if !ok {
			return 0, fmt.Errorf("a payload encoded for this stream was already written or dropped")
		}
		// The header and the envelope up to the payload are one part; the payload, written
		// from the buffer it was encoded into, and the rest of the envelope follow.
		head := appendHeader(make([]byte, 0, maxHeader+at), len(body)-tokenLen+len(payload))
		f = outFrame{head: append(head, body[:at]...), body: payload, tail: body[at+tokenLen:]}
	} else {
		// The header goes right-aligned in the room kept before the body.
		header := appendHeader(make([]byte, 0, maxHeader), len(body))
		start := maxHeader - len(header)
		copy(env[start:], header)
		f.head = env[start:]
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.queueFrame(f)
}

// Codec returns the payload codec for a jsonrpc2 connection on s, which lets s write long
// payloads from the buffers they were encoded into.
func (s *Stream) Codec() Codec { return Codec{held: s.held} }

// maxHeader is the longest header the server writes: "Content-Length: ", 20 digits, CRLF CRLF.
const maxHeader = len("Content-Length: ") + 20 + 4

// appendHeader appends the header of a body of n bytes.
func appendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

// outFrame is one framed message as it is written: head, then body and tail, which are empty
// unless the message was split around its payload.
type outFrame struct{ head, body, tail []byte }

// size is the frame's length in bytes.
func (f outFrame) size() int { return len(f.head) + len(f.body) + len(f.tail) }

// writeTo writes the frame's parts to w in order.
func (f outFrame) writeTo(w io.Writer) error {
	for _, part := range [...][]byte{f.head, f.body, f.tail} {
		if len(part) == 0 {
			continue
		}
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

// WriteFrame queues one encoded message body with its header and returns without waiting for
// the client. It fails once the stream is closing or a write has failed.
func (s *Stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	buf := appendHeader(make([]byte, 0, len(data)+32), len(data))
	buf = append(buf, data...)
	return s.queueFrame(outFrame{head: buf})
}

// queueFrame queues f, one framed message, waiting while the queue is full.
func (s *Stream) queueFrame(f outFrame) (int64, error) {
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
	s.queue = append(s.queue, f)
	s.queued += f.size()
	s.cond.Broadcast()
	return int64(f.size()), nil
}

// writeLoop writes queued frames in order until the stream closes and its queue is empty, or a
// write fails. A failed write also ends reading: a session that cannot answer is over (the
// client closed its end of standard output, say), even if its input stays open.
func (s *Stream) writeLoop() {
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
			err := f.writeTo(s.rwc)
			s.mu.Lock()
			s.queued -= f.size()
			if err != nil && s.werr == nil {
				s.werr = err
			}
			s.cond.Broadcast()
			failed := s.werr != nil
			s.mu.Unlock()
			if failed {
				s.src.stop()
				return
			}
		}
	}
}

// Close ends reading at once: a pending ReadFrame returns, and no frame is read after it. It
// then writes the frames still queued, closes the connection and waits for the writer to
// stop: the answer to shutdown and the last pushes must reach the client before the process
// exits, and nothing may be written to the connection after that. A client that does not read
// within flushTimeout loses what is left; Close takes at most flushTimeout (plus closeGrace).
func (s *Stream) Close() error {
	var err error
	s.once.Do(func() {
		s.src.stop()
		s.mu.Lock()
		s.closing = true
		s.cond.Broadcast()
		s.mu.Unlock()
		// A payload encoded and not yet queued now never will be.
		s.held.drop()
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

// ReadFrame returns the body of the next frame that jsonrpc2 can decode, in the order the
// frames were sent. The body is the caller's to keep: it is never reused, so what jsonrpc2
// borrows from it (a request's method and params) stays valid for as long as anything refers
// to it. Frames jsonrpc2 cannot decode are answered here (see check) or, for responses, logged
// and dropped; input skipped for its header is reported here too (Options.Rejected), in its
// place among the frames. ReadFrame fails only when the connection does: with the input's
// error (io.EOF at its end) once the frames before it are read, with io.ErrClosedPipe once
// Close has begun, with the write's error once a write failed. After an exit notification it
// waits for Close or ctx: nothing after exit is read.
func (s *Stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		it, err := s.src.next(ctx)
		if s.src.stopped() {
			return nil, 0, s.stopErr()
		}
		switch {
		case err != nil:
			return nil, 0, err
		case it.reject != "":
			s.report(it.reject)
		case s.check(ctx, it.body):
			return it.body, it.n, nil
		}
	}
}

// InputEnded returns a channel closed as soon as the reading goroutine reads the exit
// notification or reaches the end of the input (or a read fails), before jsonrpc2 has read the
// frames sent before it: a server whose reader is held by a handler learns of the end without
// its reader. ExitRead then tells which it was. Reading ahead stops at maxReadAhead bytes
// unread, and an exit or end of input past that is noticed only as jsonrpc2 reads on.
func (s *Stream) InputEnded() <-chan struct{} { return s.src.ended }

// ExitRead reports whether the input ended with an exit notification; it is meaningful once
// InputEnded is closed.
func (s *Stream) ExitRead() bool { return s.src.exitRead() }

// stopErr is why reading stopped: the failed write that ended it, or io.ErrClosedPipe for Close.
func (s *Stream) stopErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	return io.ErrClosedPipe
}

// contentLength is the header the reader resynchronises on, in lower case.
const contentLength = "content-length:"

// readFrame reads the next well-formed header block and its body. Malformed header blocks
// (and those declaring a body above the limit) are skipped by resynchronising on the next
// "Content-Length:", each reported through s.reject. Its errors are the connection's.
//
// The resynchronisation looks for the header in the line that showed the block to be bad, not
// only in the lines after it: a frame without its blank line, or with bare CR line ends, runs
// into the next frame's header on the same line, and that frame must not be lost with it.
func (s *Stream) readFrame() ([]byte, int64, error) {
	length, consumed := -1, 0
	for {
		if s.src.stopped() {
			return nil, 0, io.ErrClosedPipe
		}
		line, overlong, n, err := s.readLine()
		consumed += n
		if err != nil {
			if errors.Is(err, io.EOF) && consumed > 0 && !s.resync {
				return nil, 0, io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		if overlong && !s.resync {
			s.reject(fmt.Sprintf("a header line is longer than %d bytes", maxHeaderLine))
		}
		// The last occurrence is the one that can start a header: anything after it up to the
		// line break is its value.
		i := lastIndexFold(line, contentLength)
		switch {
		case s.resync && i < 0:
			continue
		case s.resync:
			line, s.resync, length = line[i:], false, -1
		case i > 0:
			s.reject("a header line runs into the next message's header: the message before it lacks the blank line after its header, or ends its lines with a bare CR")
			line, s.resync, length = line[i:], false, -1
		}
		if len(line) == 0 {
			if length < 0 {
				s.reject("the header block has no Content-Length")
				continue
			}
			if length > s.maxBody {
				// Not trusting a length above the limit is what keeps garbage from making
				// the server wait for, or allocate, gigabytes; the real body is then skipped
				// by resynchronising.
				s.reject(fmt.Sprintf("a message of %d bytes is above the limit of %d bytes; it was dropped",
					length, s.maxBody))
				continue
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		switch {
		case !ok:
			s.reject(fmt.Sprintf("header line %q has no colon", truncate(line)))
			continue
		case !isToken(bytes.TrimSpace(name)):
			s.reject(fmt.Sprintf("%q is not a header name", truncate(name)))
			continue
		case !bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")):
			continue
		}
		v, ok := parseLength(bytes.TrimSpace(value))
		if !ok {
			s.reject(fmt.Sprintf("Content-Length %q is not a number", truncate(value)))
			continue
		}
		length = v
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(consumed + length), nil
}

// reject starts skipping input up to the next Content-Length, and queues why, for ReadFrame
// to report in its place among the frames.
func (s *Stream) reject(reason string) {
	s.resync = true
	s.src.push(item{reject: reason})
}

// report logs and reports why input was skipped.
func (s *Stream) report(reason string) {
	s.log.Warn("skipped input that is not a valid message header", zap.String("reason", reason))
	if s.rejected != nil {
		s.rejected(reason)
	}
}

// readLine returns the next line without its line break. A line longer than maxHeaderLine
// cannot be a header: it is consumed without being buffered, and only its last maxHeaderLine
// bytes are returned (with overlong set), where a header following skipped bytes would be.
func (s *Stream) readLine() (line []byte, overlong bool, n int, err error) {
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

// lastIndexFold returns the index of the last occurrence of the lower-case ASCII word in line,
// ignoring case, or -1.
func lastIndexFold(line []byte, word string) int {
	for i := len(line) - len(word); i >= 0; i-- {
		if bytes.EqualFold(line[i:i+len(word)], []byte(word)) {
			return i
		}
	}
	return -1
}

// isToken reports whether name is a header field name: one or more token characters of
// RFC 9110. Anything else (a quote or brace of a JSON body, say) means the line is no header.
func isToken(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
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
