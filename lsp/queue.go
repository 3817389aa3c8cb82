package lsp

import (
	"context"
	"sync"

	"go.lsp.dev/uri"
)

// docQueue has the edits of each document computed and sent one at a time, in the order they
// were scheduled, each against the result of the one before. An edit of several documents
// waits for every one of them, so that no other edit of any of them runs in between. It is
// safe for concurrent use.
type docQueue struct {
	mu    sync.Mutex
	tails map[uri.URI]chan struct{} // per document, closed when its last queued job is done
}

// newDocQueue returns an empty queue.
func newDocQueue() *docQueue { return &docQueue{tails: map[uri.URI]chan struct{}{}} }

// place is a job's place in the queues of its documents.
type place struct {
	us    []uri.URI
	prevs []chan struct{} // closed when the jobs before end; empty when the queues were
	done  chan struct{}   // closed when this job ends
}

// enqueue appends a job on the documents us to their queues; the job runs through run.
func (q *docQueue) enqueue(us []uri.URI) place {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := place{us: us, done: make(chan struct{})}
	for _, u := range us {
		prev := q.tails[u]
		if prev == t.done {
			continue // a URI named twice: the job must not wait for itself
		}
		if prev != nil {
			t.prevs = append(t.prevs, prev)
		}
		q.tails[u] = t.done
	}
	return t
}

// end ends t's job, letting the next ones run.
func (q *docQueue) end(t place) {
	close(t.done)
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, u := range t.us {
		if q.tails[u] == t.done {
			delete(q.tails, u)
		}
	}
}

// run waits for t's turn, runs f unless ctx ended first, then ends the job; it reports whether
// f ran. A job that gives up waiting keeps its place until the jobs before it have ended (on
// a goroutine started by spawn), so that the job after it cannot overtake them: order holds
// across cancellations too.
func (q *docQueue) run(ctx context.Context, t place, spawn func(func()), f func()) bool {
	if !t.wait(ctx) {
		if len(t.prevs) == 0 {
			q.end(t)
		} else {
			spawn(func() {
				for _, p := range t.prevs {
					<-p
				}
				q.end(t)
			})
		}
		return false
	}
	defer q.end(t)
	f()
	return true
}

// wait waits for the jobs before t; false means ctx ended first.
func (t place) wait(ctx context.Context) bool {
	for _, p := range t.prevs {
		select {
		case <-p:
		case <-ctx.Done():
			return false
		}
	}
	return ctx.Err() == nil
}
