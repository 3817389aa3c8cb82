package transport

import (
	"bytes"
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxNesting is the depth of nested objects and arrays past which encoding/json calls valid
// JSON invalid. Such a body goes on to jsonrpc2, whose scanner has no depth limit, so that the
// request is answered under its own id (InvalidParams from the handler, typically).
const maxNesting = 10000

// check reports whether body is a single JSON-RPC message jsonrpc2 can decode, and answers
// the client when it is not: ParseError for a body that is not JSON, InvalidRequest for JSON
// that is not a JSON-RPC request. The answer carries the request's id where a shallow scan of
// the body's top level finds one.
func (s *Stream) check(ctx context.Context, body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case !json.Valid(body) && !nestsDeeper(body, maxNesting):
		s.answer(ctx, topLevelID(body), jsonrpc2.NewError(jsonrpc2.ParseError,
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
	if len(trimmed) == 0 || trimmed[0] != '{' {
		s.answer(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			"the message is not a JSON-RPC 2.0 object"))
		return false
	}
	m := scanTop(body)
	if m.method == nil {
		// A malformed response has nobody waiting for an answer.
		s.log.Warn("dropped a message that is neither a valid request nor a valid response")
		return false
	}
	s.answer(ctx, ParseID(m.id), jsonrpc2.NewError(jsonrpc2.InvalidRequest,
		`the request is not valid JSON-RPC 2.0: it needs "jsonrpc": "2.0", a string method and an integer or string id`))
	return false
}

// answer writes an error response for a frame that never reached jsonrpc2.
func (s *Stream) answer(ctx context.Context, id jsonrpc2.ID, e *jsonrpc2.Error) {
	s.log.Warn("answered a malformed message", zap.String("error", e.Message))
	if _, err := s.WriteFrame(ctx, jsonrpc2.AppendResponse(nil, id, nil, e)); err != nil {
		s.log.Debug("could not answer a malformed message", zap.Error(err))
	}
}

// ParseID returns the JSON-RPC id written as raw JSON where it is an integer or a string, so
// that its sender can match an answer (or a $/cancelRequest) to it; any other value, or none,
// is the null id.
func ParseID(raw []byte) jsonrpc2.ID {
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

// topLevelID returns the id of a body that may be malformed, as far as scanTop recovers it.
func topLevelID(body []byte) jsonrpc2.ID { return ParseID(scanTop(body).id) }

// topMembers is what scanTop found at the top level of a body.
type topMembers struct {
	id     []byte // the raw value of the last "id" member, nil without one
	method []byte // the raw value of the last "method" member, nil without one
}

// scanTop walks the members of the top-level object of body without descending into their
// values, so it works at any depth, and it keeps what it found before any syntax error: the id
// of a request that is malformed further on is still recovered.
func scanTop(body []byte) topMembers {
	var m topMembers
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return m
	}
	i++
	for {
		i = skipSpace(body, i)
		end := skipString(body, i)
		if end < 0 {
			return m
		}
		key := body[i:end]
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return m
		}
		i = skipSpace(body, i+1)
		end = skipValue(body, i)
		if end < 0 {
			return m
		}
		switch string(key) {
		case `"id"`:
			m.id = body[i:end]
		case `"method"`:
			m.method = body[i:end]
		}
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ',' {
			return m
		}
		i++
	}
}

// skipSpace returns the index of the first byte at or after i that is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or -1. Objects and arrays
// are skipped by counting brackets outside strings; their contents are not checked.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && bytes.IndexByte([]byte(",}] \t\r\n"), b[i]) < 0 {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// nestsDeeper reports whether objects and arrays in body nest more than limit levels deep,
// counting brackets outside strings.
func nestsDeeper(body []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			if i = skipString(body, i); i < 0 {
				return false
			}
			i--
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}
