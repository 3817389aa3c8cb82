//go:build !testfaults

package main

import "github.com/assistant-ls/assistant-ls/lsp"

// withFaults returns o: only a binary built with the testfaults tag injects faults.
func withFaults(o lsp.Options) lsp.Options { return o }
