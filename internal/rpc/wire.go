package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shellport/shellport/internal/jsonappend"
	"github.com/shellport/shellport/internal/strictjson"
)

// Standard JSON-RPC 2.0 codes, and shellport's own in -32000…-32099.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeSessionNotFound: the request names a session that does not exist.
	CodeSessionNotFound = -32001
	// CodeUnknownTool: tools/call names a tool that is not mounted.
	CodeUnknownTool = -32002
	// CodeShutDown: the runtime was shut down and takes no more calls.
	CodeShutDown = -32003
	// CodeMessageTooLarge: a message exceeded the configured size limit.
	CodeMessageTooLarge = -32004
	// CodeConfig: the runtime config is invalid, or initialize came twice.
	CodeConfig = -32005
	// CodeSandbox: a session's sandbox cannot be applied: this machine
	// cannot enforce it, or (session/update) the session has processes
	// running under its current one.
	CodeSandbox = -32006

	// CodeRequestCancelled is the LSP/ACP code for a cancelled request.
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. Handlers return it to choose the code;
// any other error becomes an internal error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ID is a request id: a JSON number or string, kept as its exact JSON text so
// it is echoed back byte for byte (EncodeResponse).
type ID json.RawMessage

// MarshalJSON writes the id as given, or null when absent.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id) == 0 {
		return []byte("null"), nil
	}
	return id, nil
}

// String returns the id's JSON text as it was sent.
func (id ID) String() string { return string(id) }

// Key returns the id's canonical form: two ids name the same request exactly
// when they are the same JSON value, however they are spelt — "a<b" and
// "a\u003cb" are one id, and so are 10, 10.0 and 1e1 — and a string id
// never equals a number id. Duplicate detection and $/cancelRequest compare
// Keys, never the text.
func (id ID) Key() string {
	if len(id) == 0 {
		return ""
	}
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "t" + string(id)
		}
		return "s" + s
	}
	return "n" + canonicalNumber(string(id))
}

// idKey is an id's identity as a map key, equal for two ids exactly when
// their Keys are equal (the in-flight set is keyed by it). A whole number
// of at most 18 digits, the id clients send, is its value, so that making
// the key allocates nothing (issue 16: Key made two strings per call, at
// admission and at the reply); any other id is its Key.
type idKey struct {
	text  string // Key, or "" for a whole number kept in small
	small int64
}

// maxSmallDigits is how many digits a whole number may have to be keyed
// by its value: every such number fits in an int64.
const maxSmallDigits = 18

func (id ID) key() idKey {
	if n, ok := smallInteger(id); ok {
		return idKey{small: n}
	}
	k := id.Key()
	if k == "" {
		return idKey{text: "null"} // no id (never in the set: a notification)
	}
	if n, ok := smallFromKey(k); ok {
		return idKey{small: n}
	}
	return idKey{text: k}
}

// smallInteger reads text spelt as a whole number ("-"? digits) of at most
// maxSmallDigits digits.
func smallInteger[T ID | string](text T) (int64, bool) {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > maxSmallDigits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(text) {
		n = -n
	}
	return n, true
}

// smallFromKey reads a number's Key ("n0", or "n" sign "0." digits "e"
// point) as a whole number of at most maxSmallDigits digits, if it is one:
// 1e1 and 10.0 have the key of 10.
func smallFromKey(k string) (int64, bool) {
	t, ok := strings.CutPrefix(k, "n")
	if !ok {
		return 0, false
	}
	if t == "0" {
		return 0, true
	}
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	t, ok = strings.CutPrefix(t, "0.")
	if !ok {
		return 0, false // "~": an exponent kept as written
	}
	digits, exp, ok := strings.Cut(t, "e")
	if !ok {
		return 0, false
	}
	point, err := strconv.Atoi(exp)
	if err != nil || point < len(digits) || point > maxSmallDigits {
		return 0, false
	}
	n, ok := smallInteger(digits + strings.Repeat("0", point-len(digits)))
	if neg {
		n = -n
	}
	return n, ok
}

// canonicalNumber spells a JSON number as sign, significant digits and the
// position of the decimal point, so equal values get equal text. Exponents
// too long to be meant are kept as written rather than expanded.
func canonicalNumber(text string) string {
	sign := ""
	t := text
	if strings.HasPrefix(t, "-") {
		sign, t = "-", t[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(t), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	e := 0
	if hasExp {
		exp = strings.TrimPrefix(exp, "+")
		if len(strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")) > 9 {
			return "~" + text
		}
		n, err := strconv.Atoi(exp)
		if err != nil {
			return "~" + text
		}
		e = n
	}
	digits := intPart + frac
	point := len(intPart) + e // value = 0.digits × 10^point
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return "0"
	}
	return sign + "0." + trimmed + "e" + strconv.Itoa(point)
}

// version is the "jsonrpc" member; it accepts nothing but "2.0".
type version struct{}

func (version) MarshalJSON() ([]byte, error) { return []byte(`"2.0"`), nil }

func (*version) UnmarshalJSON(b []byte) error {
	if string(b) != `"2.0"` {
		return fmt.Errorf("jsonrpc must be \"2.0\", got %s", clip(b, 20))
	}
	return nil
}

// wireIn is any incoming message. Pointers tell absent from null.
type wireIn struct {
	Version *version        `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
}

// wireResponse is the shape of a reply; EncodeResponse writes its bytes
// by hand, and a test holds it to encoding/json's for this struct.
type wireResponse struct {
	Version version `json:"jsonrpc"`
	ID      ID      `json:"id"`
	Result  any     `json:"result,omitempty"`
	Error   *Error  `json:"error,omitempty"`
}

type wireNotification struct {
	Version version `json:"jsonrpc"`
	Method  string  `json:"method"`
	Params  any     `json:"params,omitempty"`
}

// Request is a decoded request or notification.
type Request struct {
	ID     ID // empty for a notification
	Method string
	Params json.RawMessage

	sink func([]byte) error // where the reply goes; nil means the server's writer
}

// IsNotification reports whether the sender expects no reply.
func (r *Request) IsNotification() bool { return len(r.ID) == 0 }

// Decode parses one message. It returns the request and, when the message is
// malformed, an *Error to send back (with whatever id could be read).
func Decode(msg []byte) (*Request, *Error) {
	if in, ok := decodePlain(msg); ok {
		return checkRequest(&in)
	}
	var in wireIn
	// The common case in one call, without a Decoder's copy of the
	// message: Unmarshal succeeds exactly when the Decoder below would
	// (one value, nothing after it), which then only words the errors.
	if json.Unmarshal(msg, &in) == nil {
		return checkRequest(&in)
	}
	in = wireIn{}
	dec := json.NewDecoder(bytes.NewReader(msg))
	if err := dec.Decode(&in); err != nil {
		if !json.Valid(msg) {
			return nil, Errorf(CodeParseError, "parse error: the message is not valid JSON: %v", err)
		}
		req := &Request{ID: idOf(msg)}
		return req, Errorf(CodeInvalidRequest, "invalid request: %v", err)
	}
	if dec.More() {
		return nil, Errorf(CodeParseError, "parse error: more than one JSON value on the line")
	}
	return checkRequest(&in)
}

// decodePlain reads a request in the shape clients send — one object, the
// members jsonrpc ("2.0"), id, method (a string without escapes) and
// params, each at most once and spelt exactly — in one pass, into what
// json.Unmarshal would make of it. Anything else (a response, another
// member, a repeated or miscased one, an escape, invalid JSON) reports
// false, and Decode reads the message as before (issue 16).
func decodePlain(msg []byte) (wireIn, bool) {
	var in wireIn
	var seen [4]bool
	ok := strictjson.Members(msg, func(key, value []byte) bool {
		var i int
		switch string(key) {
		case "jsonrpc":
			if string(value) != `"2.0"` {
				return false
			}
			in.Version, i = &version{}, 0
		case "id":
			in.ID, i = append(json.RawMessage(nil), value...), 1
		case "method":
			if string(value) == "null" {
				i = 2 // json.Unmarshal leaves Method nil
				break
			}
			m, plain := strictjson.PlainString(value)
			if !plain {
				return false
			}
			in.Method, i = &m, 2
		case "params":
			in.Params, i = append(json.RawMessage(nil), value...), 3
		default:
			return false
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	})
	return in, ok
}

// checkRequest makes a Request of a decoded message, or the error to send
// back for it.
func checkRequest(in *wireIn) (*Request, *Error) {
	req := &Request{ID: ID(in.ID), Params: in.Params}
	if string(in.ID) == "null" {
		req.ID = nil
	}
	switch {
	case in.Version == nil:
		return req, Errorf(CodeInvalidRequest, `invalid request: missing "jsonrpc": "2.0"`)
	case len(in.ID) > 0 && in.ID[0] == '"' && !validID(in.ID):
		req.ID = nil
		return req, Errorf(CodeInvalidRequest, "invalid request: the id string is not valid Unicode (invalid UTF-8 or a lone surrogate escape)")
	case len(in.ID) > 0 && !validID(in.ID):
		req.ID = nil
		return req, Errorf(CodeInvalidRequest, "invalid request: id must be a number or a string, got %s", clip(in.ID, 20))
	case in.Method == nil && (in.Result != nil || in.Error != nil):
		return req, Errorf(CodeInvalidRequest, "invalid request: the runtime sends no requests, so it takes no responses")
	case in.Method == nil || *in.Method == "":
		return req, Errorf(CodeInvalidRequest, `invalid request: missing "method"`)
	}
	req.Method = *in.Method
	if len(in.Params) > 0 && in.Params[0] != '{' && string(in.Params) != "null" {
		return req, Errorf(CodeInvalidParams, "invalid params: params of %q must be an object", req.Method)
	}
	return req, nil
}

// validID reports whether raw (valid JSON) is an id JSON-RPC allows: a
// number, or a string that is valid Unicode.
func validID(raw json.RawMessage) bool {
	switch raw[0] {
	case '"':
		return strictjson.Check(raw, nil) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// idOf digs the id out of a message that failed to decode as a whole, so the
// client can still match the error to its request.
func idOf(msg []byte) ID {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &probe) == nil && len(probe.ID) > 0 && validID(probe.ID) {
		return ID(probe.ID)
	}
	return nil
}

// EncodeResponse returns the wire form of a reply. The id is written exactly
// as the request spelt it (encoding/json would re-escape <, >, & and
// U+2028/9), so a client matching replies by text finds its own. The
// members are written around the marshalled result in one buffer, the
// bytes encoding/json gives wireResponse, without a second copy of a large
// result (issue 16).
func EncodeResponse(id ID, result any, rpcErr *Error) ([]byte, error) {
	if rpcErr == nil && result == nil {
		result = struct{}{}
	}
	if a, ok := result.(jsonappend.Appender); ok && rpcErr == nil {
		// A tool call's result writes itself: the same bytes as
		// encoding/json, without its reflection (issue 16).
		const head = `{"jsonrpc":"2.0","id":`
		out := make([]byte, 0, 1024)
		out = append(out, head...)
		if len(id) == 0 {
			out = append(out, "null"...)
		} else {
			out = append(out, id...)
		}
		out = append(out, `,"result":`...)
		if out, ok = a.AppendJSON(out); ok {
			return append(out, '}'), nil
		}
	}
	var res, errJSON []byte
	var err error
	if result != nil {
		if res, err = json.Marshal(result); err != nil {
			return nil, err
		}
	}
	if rpcErr != nil {
		if errJSON, err = json.Marshal(rpcErr); err != nil {
			return nil, err
		}
	}
	const head = `{"jsonrpc":"2.0","id":`
	out := make([]byte, 0, len(head)+len(id)+len(res)+len(errJSON)+32)
	out = append(out, head...)
	if len(id) == 0 {
		out = append(out, "null"...)
	} else {
		out = append(out, id...)
	}
	if res != nil {
		out = append(append(out, `,"result":`...), res...)
	}
	if errJSON != nil {
		out = append(append(out, `,"error":`...), errJSON...)
	}
	return append(out, '}'), nil
}

// EncodeNotification returns the wire form of a notification.
func EncodeNotification(method string, params any) ([]byte, error) {
	return json.Marshal(wireNotification{Method: method, Params: params})
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// IDFromHead recovers the id of a message from its first bytes, for replying
// to a message too large to read whole. It walks the top-level members of
// the object as far as the bytes go and returns the id if one was complete.
func IDFromHead(head []byte) ID {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" && len(value) > 0 && validID(value) {
			return ID(value)
		}
	}
	return nil
}
