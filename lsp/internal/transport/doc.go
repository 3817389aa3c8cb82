// Package transport is the server's side of the LSP base protocol: Content-Length framing that
// survives a misbehaving client, a write queue that never makes a handler wait for the client,
// the payload codec, and the peer the server calls the client through.
//
// jsonrpc2 v1.0.1 ends the connection on the first frame whose header or body it cannot
// decode. LSP wants a ParseError or InvalidRequest answer instead, and the server to keep
// serving, so frames are read here: a bad header is skipped by resynchronising on the next
// "Content-Length:", and a bad body is answered with an error response (under the request's own
// id when it can be found) before it ever reaches jsonrpc2.
package transport
