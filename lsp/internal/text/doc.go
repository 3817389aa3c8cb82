// Package text is the server's text layer: byte offsets and LSP positions (Mapper, one for the
// whole server), documents held for cheap small changes (Rope), byte edits and the minimal edits
// between two contents, line breaks and the UTF-8 byte order mark. It knows nothing of files,
// clients or the edit formats.
package text
