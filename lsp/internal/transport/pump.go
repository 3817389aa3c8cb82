package transport

import (
	"io"
	"sync"
)

// pumpChunk is the size of one read of the connection.
const pumpChunk = 64 << 10

// pump reads its source on a goroutine of its own and hands the bytes over, so that a reader
// can be released by stop even while the source's Read is blocked and cannot be interrupted.
type pump struct {
	chunks chan chunk
	free   chan []byte // buffers the reader is done with; two circulate
	done   chan struct{}
	once   sync.Once

	// Owned by the reading goroutine.
	cur []byte // what is left of the current chunk
	buf []byte // the current chunk's buffer, returned to free once cur is used up
	err error  // the source's error, returned once cur is used up
}

// chunk is the result of one Read of the source.
type chunk struct {
	buf []byte
	n   int
	err error
}

// newPump starts reading src.
func newPump(src io.Reader) *pump {
	p := &pump{chunks: make(chan chunk), free: make(chan []byte, 2), done: make(chan struct{})}
	p.free <- make([]byte, pumpChunk)
	p.free <- make([]byte, pumpChunk)
	go p.run(src)
	return p
}

// run reads src until it fails or the pump is stopped.
func (p *pump) run(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		}
		n, err := src.Read(buf)
		select {
		case p.chunks <- chunk{buf: buf, n: n, err: err}:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements io.Reader. After stop it fails with io.ErrClosedPipe.
func (p *pump) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.buf != nil {
			p.free <- p.buf // never blocks: only two buffers exist
			p.buf = nil
		}
		if p.err != nil {
			return 0, p.err
		}
		select {
		case c := <-p.chunks:
			p.buf, p.cur, p.err = c.buf, c.buf[:c.n], c.err
		case <-p.done:
			return 0, io.ErrClosedPipe
		}
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// stop releases a blocked Read and fails every later one.
func (p *pump) stop() { p.once.Do(func() { close(p.done) }) }

// stopped reports whether stop was called.
func (p *pump) stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
