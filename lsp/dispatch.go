package lsp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// This file dispatches the client's messages to the handlers, one file per LSP feature, and
// enforces the lifecycle around them.

// method describes how one LSP method is served.
type method struct {
	// async releases the connection's reader before the handler runs, for handlers that may
	// wait for the client (an applyEdit round trip): a reader blocked in such a handler could
	// never read the answer it waits for, nor the didChange that comes with it.
	async bool
	serve serveFunc
}

// methods are the methods the server knows. Unknown requests get MethodNotFound and unknown
// notifications are ignored.
var methods = map[string]method{
	"initialize":                       {serve: typed((*server).initialize)},
	"initialized":                      {serve: nothing},
	"shutdown":                         {serve: (*server).shutdown},
	"$/cancelRequest":                  {serve: typed((*server).cancelRequest)},
	"$/setTrace":                       {serve: nothing},
	"textDocument/didOpen":             {serve: typed((*server).didOpen)},
	"textDocument/didChange":           {serve: typed((*server).didChange)},
	"textDocument/didClose":            {serve: typed((*server).didClose)},
	"textDocument/didSave":             {serve: nothing},
	"workspace/didChangeConfiguration": {serve: typed((*server).didChangeConfiguration)},
	"workspace/executeCommand":         {async: true, serve: typed((*server).executeCommand)},
	"textDocument/codeAction":          {serve: typed((*server).codeAction)},
	"codeAction/resolve":               {serve: typed((*server).resolveCodeAction)},
	"textDocument/codeLens":            {serve: typed((*server).codeLens)},
	"textDocument/documentSymbol":      {serve: typed((*server).documentSymbol)},
	ext.MethodParse:                    {serve: typed((*server).parse)},
	ext.MethodClose:                    {serve: typed((*server).closeStream)},
	ext.MethodApply:                    {async: true, serve: (*server).apply},
	ext.MethodResolveEdit:              {async: true, serve: (*server).resolveEdit},
}

// serveFunc serves one method: params are the raw params, isCall tells a request from a
// notification.
type serveFunc = func(s *server, ctx context.Context, params jsonrpc2.RawMessage, isCall bool) (any, error)

// typed adapts a handler of decoded params: a message whose params do not decode into P is
// InvalidParams and never reaches the handler.
func typed[P any](f func(s *server, ctx context.Context, p *P, isCall bool) (any, error)) serveFunc {
	return func(s *server, ctx context.Context, params jsonrpc2.RawMessage, isCall bool) (any, error) {
		p := new(P)
		if err := decode(params, p); err != nil {
			return nil, err
		}
		return f(s, ctx, p, isCall)
	}
}

// nothing serves methods the server accepts but has no use for.
func nothing(*server, context.Context, jsonrpc2.RawMessage, bool) (any, error) { return nil, nil }

// handle is the connection's handler. It enforces the lifecycle, turns every failure of a
// request into a JSON-RPC error (a panic included: it is logged and answered with
// InternalError, and the session goes on) and never fails a notification, which jsonrpc2
// would treat as fatal to the connection.
//
// Handlers run on a goroutine of their own, the reader waiting for those served in wire order
// however long they take: no message is ever served before one sent earlier has been. A
// handler that never returns (a bug) holds the messages after it, but not the session: the
// transport tells of exit and of the end of input without the reader (see Serve), and when the
// session ends the reader stops waiting at once.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name, isCall, id := req.Method(), req.IsCall(), req.ID()
	defer func() {
		if r := recover(); r != nil {
			result, err = s.recovered(name, isCall, r)
		}
	}()

	if name == "exit" {
		s.exit()
		return nil, nil
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case state == stateNew && name != "initialize":
		if isCall {
			return nil, errNotInitialized
		}
		return nil, nil
	case state == stateShutdown:
		if isCall {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted now")
		}
		return nil, nil
	}

	m, ok := methods[name]
	if !ok {
		if isCall {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method %q is not served by assistant-ls", name)
		}
		s.log.Debug("ignored unknown notification", zap.String("method", name))
		return nil, nil
	}
	if m.async {
		jsonrpc2.Async(ctx)
	}
	// Read only now: Async replaces the params, which borrowed the reader's buffer, by a copy.
	params := req.Params()
	// The request context of jsonrpc2 is recycled when the handler returns, and a context
	// derived from it may still be consulted by the context package after that; deriving from
	// the connection's context is safe, and $/cancelRequest uses this cancel instead.
	conn := jsonrpc2.DetachContext(ctx)
	ctx, cancel := context.WithCancel(conn)
	if isCall {
		s.mu.Lock()
		s.inflight[id] = cancel
		s.mu.Unlock()
	}
	type answer struct {
		result any
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		defer func() {
			if isCall {
				s.mu.Lock()
				delete(s.inflight, id)
				s.mu.Unlock()
			}
			cancel()
		}()
		r, err := s.serve(ctx, name, m, params, isCall)
		answered <- answer{r, err}
	}()
	select {
	case a := <-answered:
		return a.result, a.err
	case <-conn.Done():
		// The session ended (exit, or Serve's context): nothing waits for the answer, and a
		// handler that does not return must not hold the end of the session.
		if !isCall {
			return nil, nil
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the server is shutting down")
	}
}

// serve runs m's handler for one message and translates its failure, a panic included.
func (s *server) serve(ctx context.Context, name string, m method, params jsonrpc2.RawMessage, isCall bool) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = s.recovered(name, isCall, r)
		}
	}()
	if s.opts.Fault != nil {
		s.opts.Fault(name)
	}
	result, err = m.serve(s, ctx, params, isCall)
	if err == nil {
		return result, nil
	}
	if !isCall {
		s.log.Warn("notification failed", zap.String("method", name), zap.Error(err))
		return nil, nil
	}
	s.log.Debug("request failed", zap.String("method", name), zap.Error(err))
	return nil, toRPCError(ctx, err)
}

// recovered logs a handler's panic r and returns the answer: InternalError for a request,
// nothing for a notification.
func (s *server) recovered(name string, isCall bool, r any) (any, error) {
	s.log.Error("handler panicked", zap.String("method", name), zap.Any("panic", r),
		zap.ByteString("stack", debug.Stack()))
	if !isCall {
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InternalError,
		"internal error while serving %s: %v; the server keeps running, please report this", name, r)
}

// toRPCError gives err the JSON-RPC code the client can act on.
func toRPCError(ctx context.Context, err error) error {
	var rpc *jsonrpc2.Error
	var se *streamError
	var br *badRequest
	switch {
	case errors.As(err, &rpc):
		return err
	case errors.As(err, &se):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, se.msg)
	case errors.As(err, &br):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, br.msg)
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(protocol.CodeRequestCancelled, "the request was cancelled")
	default:
		return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
}

// decode unmarshals params into v; a failure is InvalidParams naming what was wrong.
func decode(params jsonrpc2.RawMessage, v any) error {
	if len(params) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "params are missing")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	if err := checkPositions(reflect.ValueOf(v)); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// positionType is the type every position of the decoded params has.
var positionType = reflect.TypeFor[protocol.Position]()

// checkPositions refuses a position anywhere in v whose line or character is past the LSP's
// uinteger: go.lsp.dev decodes them as uint32, so 2^31 to 2^32-1 would otherwise be taken, and
// clamped, as a position past the end. Checking here covers every method's params at once.
func checkPositions(v reflect.Value) error {
	if !holdsPositions(v.Type()) {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return checkPositions(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == positionType {
			p := protocol.Position{Line: uint32(v.Field(0).Uint()), Character: uint32(v.Field(1).Uint())}
			if p.Line > docs.MaxUinteger || p.Character > docs.MaxUinteger {
				return fmt.Errorf("position {line: %d, character: %d} is past the LSP's uinteger (at most %d); a position past the end of a line or document is sent as at most %[3]d, and clamps",
					p.Line, p.Character, docs.MaxUinteger)
			}
			return nil
		}
		for i := range v.NumField() {
			if err := checkPositions(v.Field(i)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkPositions(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkPositions(it.Value()); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsTypes caches holdsPositions by type: the walk of a didChange's text or a delta's string
// is then skipped at the cost of one map look-up.
var holdsTypes sync.Map // reflect.Type → bool

// holdsPositions reports whether a value of type t can contain a protocol.Position (interfaces
// aside: decoded JSON in an any is maps and slices of plain values).
func holdsPositions(t reflect.Type) bool {
	if h, ok := holdsTypes.Load(t); ok {
		return h.(bool)
	}
	h := holdsPositionsIn(t, map[reflect.Type]bool{})
	holdsTypes.Store(t, h)
	return h
}

// holdsPositionsIn is holdsPositions for t, seen holding the types being looked at (a type that
// contains itself holds a position only if it does otherwise).
func holdsPositionsIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == positionType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsPositionsIn(t.Elem(), seen)
	case reflect.Map:
		return holdsPositionsIn(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() && holdsPositionsIn(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
