package lsp

import "container/list"

// evictedMemory is how many evicted streams, per MaxStreams, a server remembers by name.
const evictedMemory = 4

// recentNames is a bounded set of the names of the streams evicted most recently. A delta that
// continues an evicted stream would otherwise start a new stream from the middle of its message,
// whose blocks (and edits) are the tail of the message taken for a whole one; remembering the
// name lets it be refused instead. The oldest names are forgotten past the bound, so what the
// server holds for evicted streams stays a few bytes each.
type recentNames struct {
	max   int
	order *list.List // of string, most recent first
	at    map[string]*list.Element
}

func newRecentNames(max int) *recentNames {
	return &recentNames{max: max, order: list.New(), at: map[string]*list.Element{}}
}

// add remembers name, forgetting the oldest name past the bound.
func (r *recentNames) add(name string) {
	if e, ok := r.at[name]; ok {
		r.order.MoveToFront(e)
		return
	}
	r.at[name] = r.order.PushFront(name)
	for r.order.Len() > r.max {
		delete(r.at, r.order.Remove(r.order.Back()).(string))
	}
}

// has reports whether name is remembered.
func (r *recentNames) has(name string) bool {
	_, ok := r.at[name]
	return ok
}

// remove forgets name.
func (r *recentNames) remove(name string) {
	if e, ok := r.at[name]; ok {
		r.order.Remove(e)
		delete(r.at, name)
	}
}
