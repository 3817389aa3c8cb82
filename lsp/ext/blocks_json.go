package ext

import (
	"slices"
	"strconv"

	"github.com/assistant-ls/assistant-ls/lsp/internal/jsonq"
	"go.lsp.dev/protocol"
)

// The params of assistant/blocks carry whole partial blocks, up to MaxStreamBytes each. Encoded
// by the protocol package's reflection they cost a growing buffer, a copy of its result and a
// copy of that; here they are encoded in one buffer, sized by a first walk that counts the
// bytes. The bytes are the protocol codec's (encoding/json/v2 with invalid UTF-8 replaced by
// U+FFFD and no HTML escaping), with map keys in sorted order.

// AppendJSON appends the JSON encoding of p to dst, growing dst at most once.
func (p *BlocksParams) AppendJSON(dst []byte) ([]byte, error) {
	return appendSized(dst, p.encode)
}

// AppendJSON appends the JSON encoding of r to dst, growing dst at most once.
func (r *ParseResult) AppendJSON(dst []byte) ([]byte, error) {
	return appendSized(dst, r.encode)
}

// appendSized runs encode once to count the bytes and once to write them after dst.
func appendSized(dst []byte, encode func(*jsonWriter) error) ([]byte, error) {
	count := &jsonWriter{count: true}
	if err := encode(count); err != nil {
		return nil, err
	}
	w := &jsonWriter{buf: slices.Grow(dst, count.n)}
	if err := encode(w); err != nil {
		return nil, err
	}
	return w.buf, nil
}

func (p *BlocksParams) encode(w *jsonWriter) error {
	w.raw(`{"stream":`)
	w.str(p.Stream)
	w.raw(`,"from":`)
	w.int(p.From)
	w.raw(`,"blocks":`)
	if err := encodeBlocks(w, p.Blocks); err != nil {
		return err
	}
	w.raw(`,"final":`)
	w.bool(p.Final)
	w.raw(`}`)
	return nil
}

func (r *ParseResult) encode(w *jsonWriter) error {
	w.raw(`{"stream":`)
	w.str(r.Stream)
	w.raw(`,"blocks":`)
	if err := encodeBlocks(w, r.Blocks); err != nil {
		return err
	}
	w.raw(`,"final":`)
	w.bool(r.Final)
	w.raw(`}`)
	return nil
}

// encodeBlocks writes blocks as an array (a nil slice too, as encoding/json/v2 does).
func encodeBlocks(w *jsonWriter, blocks []Block) error {
	w.raw(`[`)
	for i := range blocks {
		if i > 0 {
			w.raw(`,`)
		}
		if err := blocks[i].encode(w); err != nil {
			return err
		}
	}
	w.raw(`]`)
	return nil
}

// encode writes b with its struct tags' names, order and omitzero.
func (b *Block) encode(w *jsonWriter) error {
	w.raw(`{"index":`)
	w.int(b.Index)
	w.raw(`,"id":`)
	w.str(b.ID)
	w.raw(`,"type":`)
	w.str(string(b.Type))
	w.raw(`,"partial":`)
	w.bool(b.Partial)
	if b.Content != nil {
		w.raw(`,"content":`)
		w.str(*b.Content)
	}
	if b.Name != "" {
		w.raw(`,"name":`)
		w.str(b.Name)
	}
	if b.Params != nil {
		w.raw(`,"params":`)
		w.stringMap(b.Params)
	}
	if b.CallID != "" {
		w.raw(`,"callId":`)
		w.str(b.CallID)
	}
	if b.Input != nil {
		w.raw(`,"input":`)
		if err := w.anyMap(b.Input); err != nil {
			return err
		}
	}
	if b.Edit != nil {
		w.raw(`,"edit":`)
		if err := w.marshal(b.Edit); err != nil {
			return err
		}
	}
	w.raw(`}`)
	return nil
}

// jsonWriter appends JSON to buf, or only counts its bytes in n when count is set.
type jsonWriter struct {
	buf   []byte
	n     int
	count bool
}

func (w *jsonWriter) raw(s string) {
	if w.count {
		w.n += len(s)
		return
	}
	w.buf = append(w.buf, s...)
}

func (w *jsonWriter) int(i int) {
	if w.count {
		var tmp [20]byte
		w.n += len(strconv.AppendInt(tmp[:0], int64(i), 10))
		return
	}
	w.buf = strconv.AppendInt(w.buf, int64(i), 10)
}

func (w *jsonWriter) bool(v bool) {
	if v {
		w.raw(`true`)
	} else {
		w.raw(`false`)
	}
}

// str writes s quoted as the protocol codec quotes it (jsonq.AppendQuoted).
func (w *jsonWriter) str(s string) {
	if w.count {
		w.n += jsonq.QuotedLen(s)
		return
	}
	w.buf = jsonq.AppendQuoted(w.buf, s)
}

// stringMap writes m as an object, its keys sorted.
func (w *jsonWriter) stringMap(m map[string]string) {
	w.raw(`{`)
	for i, k := range sortedKeys(m) {
		if i > 0 {
			w.raw(`,`)
		}
		w.str(k)
		w.raw(`:`)
		w.str(m[k])
	}
	w.raw(`}`)
}

// anyMap writes m as an object, its keys sorted.
func (w *jsonWriter) anyMap(m map[string]any) error {
	w.raw(`{`)
	for i, k := range sortedKeys(m) {
		if i > 0 {
			w.raw(`,`)
		}
		w.str(k)
		w.raw(`:`)
		if err := w.value(m[k]); err != nil {
			return err
		}
	}
	w.raw(`}`)
	return nil
}

// value writes a decoded JSON value: strings, arrays and objects here, since a tool call's
// input may hold long ones, anything else through the protocol codec.
func (w *jsonWriter) value(v any) error {
	switch v := v.(type) {
	case string:
		w.str(v)
	case map[string]any:
		return w.anyMap(v)
	case []any:
		w.raw(`[`)
		for i, e := range v {
			if i > 0 {
				w.raw(`,`)
			}
			if err := w.value(e); err != nil {
				return err
			}
		}
		w.raw(`]`)
	case nil:
		w.raw(`null`)
	case bool:
		w.bool(v)
	default:
		return w.marshal(v)
	}
	return nil
}

// marshal writes v as the protocol codec encodes it.
func (w *jsonWriter) marshal(v any) error {
	b, err := protocol.Marshal(v)
	if err != nil {
		return err
	}
	if w.count {
		w.n += len(b)
		return nil
	}
	w.buf = append(w.buf, b...)
	return nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
