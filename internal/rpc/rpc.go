// Package rpc carries JSON-RPC 2.0 for shellport in three layers: frame.go
// finds message boundaries (one JSON object per line), wire.go holds the wire
// shapes and error codes, and conn.go answers requests — one goroutine per
// request, cancellation by id, exactly one reply each.
//
// It knows nothing about sessions or tools; the runtime supplies a Handler.
package rpc
