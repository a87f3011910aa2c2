package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellport/shellport/internal/core"
)

// annotations are the MCP hints for each canonical tool: what a client may
// show before it asks the user to approve a call.
var annotations = map[string]mcpsdk.ToolAnnotations{
	"bash":               {DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	"bash_output":        {ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	"bash_kill":          {DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	"str_replace_editor": {DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	"apply_patch":        {DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
}

func ptr[T any](v T) *T { return &v }

// renamedTools maps the names the config exposes tools under back to their
// canonical names, so a renamed tool keeps its annotations.
func renamedTools(cfg core.Config) map[string]string { return cfg.CanonicalNames() }

// mcpTool declares one of our tools to the SDK with our schema unchanged.
func mcpTool(t toolInfo, renamed map[string]string) (*mcpsdk.Tool, error) {
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema["type"] != "object" {
		// The SDK would panic on it; our schemas are always objects.
		return nil, fmt.Errorf("tool %q: input schema is not a JSON object schema", t.Name)
	}
	tool := &mcpsdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	canonical := t.Name
	if c, ok := renamed[t.Name]; ok {
		canonical = c
	}
	if a, ok := annotations[canonical]; ok {
		tool.Annotations = &a
	}
	return tool, nil
}

// handler runs a tools/call of the named tool in the session.
func (c *carrier) handler(name string) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		meta := req.Params.GetMeta()
		c.flushNotices(ctx, meta)
		defer c.flushNotices(ctx, meta)
		// A client that asked for progress gets it with the latest line
		// of the call's live output; one that did not costs no stream.
		var progress *callProgress
		var output func(string)
		if token := req.Params.GetProgressToken(); token != nil {
			progress = c.startProgress(ctx, req.Session, token)
			output = progress.output
		}
		res, err := c.bridge.call(ctx, name, req.Params.Arguments, output)
		if progress != nil {
			progress.stop()
		}
		if err != nil {
			return nil, rpcError(err)
		}
		return toMCP(res), nil
	}
}

// toMCP carries our result over unchanged: the text content, isError,
// structuredContent and _meta (the ACP presentation) as the runtime made
// them.
func toMCP(res *callResult) *mcpsdk.CallToolResult {
	out := &mcpsdk.CallToolResult{IsError: res.IsError, Content: []mcpsdk.Content{}}
	for _, part := range res.Content {
		out.Content = append(out.Content, &mcpsdk.TextContent{Text: part.Text})
	}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		out.StructuredContent = res.StructuredContent
	}
	if len(res.Meta) > 0 {
		out.Meta = mcpsdk.Meta{}
		for k, v := range res.Meta {
			out.Meta[k] = v
		}
	}
	return out
}

// rpcError passes a JSON-RPC error of the runtime on to the client with its
// code and message; anything else (a cancelled context) as it is.
func rpcError(err error) error {
	var ce *coreError
	if errors.As(err, &ce) {
		return &sdk.Error{Code: ce.Code, Message: ce.Message}
	}
	return err
}
