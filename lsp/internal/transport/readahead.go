package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxReadAhead bounds the bytes of input read ahead and not yet handed to jsonrpc2 (frames,
// and the reasons for input skipped). Past it the stream stops reading until jsonrpc2 takes
// a frame, so a client that floods a server whose handler is stuck cannot make it buffer
// without end; while it is reached, an exit or the end of input further on is noticed only
// once jsonrpc2 reads again. The frame that passes the bound is still queued (a frame may be
// larger than the bound), so at most maxReadAhead plus one frame wait, and one more is read.
const maxReadAhead = 16 << 20

// maxExitBody bounds the body taken for an exit notification when read ahead: an exit has no
// params, so its body is some 40 bytes, and larger bodies are not scanned. A larger exit is
// still served, in wire order.
const maxExitBody = 4 << 10

// itemOverhead is what a queued item counts beside its bytes, so that a flood of empty items
// (rejected headers) is bounded too.
const itemOverhead = 64

// item is one result of reading ahead: a frame, or a reason input was skipped.
type item struct {
	body   []byte // a frame's body, when reject is ""
	n      int64  // the input the frame took, its header included
	reject string // why a header block was skipped
}

// size is what the item counts towards maxReadAhead.
func (it item) size() int { return len(it.body) + len(it.reject) + itemOverhead }

// readAhead is the queue between the goroutine that reads the connection and ReadFrame. The
// goroutine reads whole frames ahead of jsonrpc2, so that it sees the exit notification and the
// end of input while the connection's reader is still held by a handler (one that never
// returns, a bug), and tells the server at once through ended; the frames themselves are
// handed on strictly in the order they were read.
type readAhead struct {
	done  chan struct{} // closed by stop
	once  sync.Once
	avail chan struct{} // holds a token when an item was queued
	room  chan struct{} // holds a token when an item was taken
	ended chan struct{} // closed once the exit notification or the end of input was read

	mu    sync.Mutex
	items []item
	bytes int   // the sizes of items
	exit  bool  // the input ended with an exit notification; set before ended is closed
	err   error // why the input ended, returned once items are taken
}

// newReadAhead returns an empty queue.
func newReadAhead() *readAhead {
	return &readAhead{
		done:  make(chan struct{}),
		avail: make(chan struct{}, 1),
		room:  make(chan struct{}, 1),
		ended: make(chan struct{}),
	}
}

// push queues it, waiting while maxReadAhead bytes wait unread. It reports false once the
// queue is stopped: reading is over.
func (q *readAhead) push(it item) bool {
	for {
		if q.stopped() {
			return false
		}
		q.mu.Lock()
		if q.bytes < maxReadAhead {
			q.items = append(q.items, it)
			q.bytes += it.size()
			q.mu.Unlock()
			notify(q.avail)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.done:
			return false
		}
	}
}

// next takes the first item, waiting for one. Once the items are taken it fails with the error
// that ended the input, if any; it fails with ctx's error when ctx ends, and with
// io.ErrClosedPipe once the queue is stopped: nothing is handed on after stop, even what was
// already read. After an exit notification no error follows: next waits for stop or ctx.
func (q *readAhead) next(ctx context.Context) (item, error) {
	for {
		if q.stopped() {
			return item{}, io.ErrClosedPipe
		}
		q.mu.Lock()
		if len(q.items) > 0 {
			it := q.items[0]
			q.items[0] = item{}
			q.items = q.items[1:]
			q.bytes -= it.size()
			q.mu.Unlock()
			notify(q.room)
			return it, nil
		}
		err := q.err
		q.mu.Unlock()
		if err != nil {
			return item{}, err
		}
		select {
		case <-q.avail:
		case <-ctx.Done():
			return item{}, ctx.Err()
		case <-q.done:
		}
	}
}

// end records that the input ended, with err (nil for an exit notification, which is queued
// after this), and tells whoever waits on ended at once: that tells the server even when
// maxReadAhead is reached and the exit is still to be queued.
func (q *readAhead) end(err error) {
	q.mu.Lock()
	q.exit, q.err = err == nil, err
	q.mu.Unlock()
	notify(q.avail)
	close(q.ended)
}

// exitRead reports whether the input ended with an exit notification.
func (q *readAhead) exitRead() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.exit
}

// stop ends reading: next fails from now on, and the reading goroutine ends at its next push
// (a Read of the connection that never returns keeps it until the process ends).
func (q *readAhead) stop() { q.once.Do(func() { close(q.done) }) }

// stopped reports whether stop was called.
func (q *readAhead) stopped() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

// notify leaves a token in ch, a channel of capacity one, unless one is there already.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// readLoop reads frames ahead until the exit notification, the end of the input or stop.
func (s *Stream) readLoop() {
	for {
		body, n, err := s.readFrame()
		if err != nil {
			s.src.end(err)
			return
		}
		if isExit(body) {
			// Nothing after exit is ever served, so nothing after it is read.
			s.src.end(nil)
			s.src.push(item{body: body, n: n})
			return
		}
		if !s.src.push(item{body: body, n: n}) {
			return
		}
	}
}

// isExit reports whether body is an exit notification jsonrpc2 will decode. The top-level
// scan rules out every other message without decoding it; only a small body whose method may
// be "exit" is decoded, so that a frame jsonrpc2 would refuse is not taken for one.
func isExit(body []byte) bool {
	if len(body) > maxExitBody {
		return false
	}
	method := scanTop(body).method
	if !bytes.Equal(method, []byte(`"exit"`)) && bytes.IndexByte(method, '\\') < 0 {
		return false
	}
	if !json.Valid(body) {
		return false
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return false
	}
	req, ok := msg.(jsonrpc2.RequestMessage)
	return ok && req.Method() == "exit"
}
