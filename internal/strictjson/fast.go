package strictjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The fast path. Nearly every object a client sends is plain: exact keys,
// each once, strings without escapes, whole numbers. For those, Decode's
// three passes (json.Valid, Check, encoding/json's own scan and decode)
// are one: DecodeFast reads such an object in a single pass and stores
// exactly what encoding/json would, and anything else — an escape, an
// unknown or repeated key, a type it does not handle, invalid input —
// makes it give up without touching dst, so the slow path decides, and
// words the error, exactly as before (issue 16; FuzzFastMatchesSlow holds
// the two to the same answers).

// fastMaxDepth bounds the nesting the fast path walks; deeper values take
// the slow path.
const fastMaxDepth = 64

// fastMaxMembers bounds the members of one object the fast path reads.
const fastMaxMembers = 32

type fastKind uint8

const (
	fastNone      fastKind = iota // not read here: its presence sends the object to the slow path
	fastString                    // a string kind
	fastBool                      // a bool kind
	fastInt                       // a signed integer kind
	fastIntSlice                  // a slice of a signed integer kind
	fastRaw                       // json.RawMessage
	fastStringPtr                 // a pointer to a string kind
	fastBoolPtr                   // a pointer to a bool kind
	fastIntPtr                    // a pointer to a signed integer kind
)

type fastField struct {
	index int
	kind  fastKind
	bits  int // of an integer kind
}

// fastPlan is how DecodeFast reads a struct type; nil fields means never.
type fastPlan struct {
	fields map[string]fastField
}

var fastPlans sync.Map // reflect.Type → *fastPlan

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func planOf(t reflect.Type) *fastPlan {
	if p, ok := fastPlans.Load(t); ok {
		return p.(*fastPlan)
	}
	p := makePlan(t)
	fastPlans.Store(t, p)
	return p
}

// makePlan maps the JSON names of t's fields to how each is read. A type
// with embedded fields, or two fields of one name, is left to the slow path
// whole.
func makePlan(t reflect.Type) *fastPlan {
	fields := map[string]fastField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return &fastPlan{}
		}
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := cutComma(tag)
		if name == "" {
			name = f.Name
		}
		if !plainName(name) {
			return &fastPlan{}
		}
		if _, taken := fields[name]; taken {
			return &fastPlan{}
		}
		kind := kindOf(f.Type)
		if hasOption(opts, "string") {
			kind = fastNone
		}
		fields[name] = fastField{index: i, kind: kind, bits: intBits(f.Type)}
	}
	return &fastPlan{fields: fields}
}

func cutComma(tag string) (string, string, bool) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = cutComma(opts)
		if o == want {
			return true
		}
	}
	return false
}

// plainName is a field name encoding/json takes as it is.
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}

// decodesItself reports whether encoding/json hands t's values to a method
// of t rather than storing them itself.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

func kindOf(t reflect.Type) fastKind {
	if t == rawMessage {
		return fastRaw
	}
	if decodesItself(t) {
		return fastNone
	}
	switch t.Kind() {
	case reflect.String:
		return fastString
	case reflect.Bool:
		return fastBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fastInt
	case reflect.Slice:
		if e := t.Elem(); !decodesItself(e) && kindOf(e) == fastInt {
			return fastIntSlice
		}
	case reflect.Pointer:
		if e := t.Elem(); !decodesItself(e) {
			switch kindOf(e) {
			case fastString:
				return fastStringPtr
			case fastBool:
				return fastBoolPtr
			case fastInt:
				return fastIntPtr
			}
		}
	}
	return fastNone
}

func intBits(t reflect.Type) int {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return t.Bits()
	}
	return 0
}

// DecodeFast decodes data into dst, a non-nil pointer to a struct, when
// data is a plain object (see the top of this file) and reports whether it
// did. When it reports false, dst is as it was: decode with [Decode], which
// also words what is wrong. What it decodes, [Decode] and encoding/json
// decode the same way.
func DecodeFast(data []byte, dst any) bool {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false
	}
	plan := planOf(v.Elem().Type())
	if plan.fields == nil {
		return false
	}
	type set struct {
		f     fastField
		value []byte
	}
	var sets [fastMaxMembers]set
	var seen uint64
	n := 0
	it := objectIter{s: scan{data: data}}
	if !it.open() {
		return false
	}
	for {
		key, value, st := it.next()
		if st == iterEnd {
			break
		}
		if st == iterBail || n == fastMaxMembers {
			return false
		}
		f, ok := plan.fields[string(key)]
		if !ok || f.kind == fastNone || f.index < 64 && seen&(1<<f.index) != 0 || f.index >= 64 {
			return false
		}
		seen |= 1 << f.index
		if !fits(f, value) {
			return false
		}
		sets[n] = set{f, value}
		n++
	}
	if !it.close() {
		return false
	}
	sv := v.Elem()
	for _, s := range sets[:n] {
		store(sv.Field(s.f.index), s.f.kind, s.value)
	}
	return true
}

// fits reports whether value (valid JSON) can be stored in a field of f's
// kind exactly as encoding/json would store it.
func fits(f fastField, value []byte) bool {
	if string(value) == "null" {
		return true
	}
	switch f.kind {
	case fastString, fastStringPtr:
		_, ok := PlainString(value)
		return ok
	case fastBool, fastBoolPtr:
		return string(value) == "true" || string(value) == "false"
	case fastInt, fastIntPtr:
		return wholeNumber(value, f.bits)
	case fastIntSlice:
		return eachInt(value, f.bits, nil)
	case fastRaw:
		return true
	}
	return false
}

// store puts value, checked by fits, in the field v as encoding/json does:
// null leaves a string, bool or number as it is and empties a pointer or a
// slice; a pointer that is set keeps its target; a slice and a
// RawMessage reuse their storage.
func store(v reflect.Value, kind fastKind, value []byte) {
	if string(value) == "null" {
		switch kind {
		case fastStringPtr, fastBoolPtr, fastIntPtr, fastIntSlice:
			v.SetZero()
		case fastRaw:
			v.SetBytes(append(v.Bytes()[:0], value...))
		}
		return
	}
	switch kind {
	case fastStringPtr, fastBoolPtr, fastIntPtr:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch kind {
	case fastString, fastStringPtr:
		s, _ := PlainString(value)
		v.SetString(s)
	case fastBool, fastBoolPtr:
		v.SetBool(value[0] == 't')
	case fastInt, fastIntPtr:
		n, _ := strconv.ParseInt(string(value), 10, 64)
		v.SetInt(n)
	case fastIntSlice:
		count := 0
		eachInt(value, 64, func(int64) { count++ })
		if v.IsNil() || v.Cap() < count {
			v.Set(reflect.MakeSlice(v.Type(), count, count))
		} else {
			v.SetLen(count)
		}
		i := 0
		eachInt(value, 64, func(n int64) { v.Index(i).SetInt(n); i++ })
	case fastRaw:
		v.SetBytes(append(v.Bytes()[:0], value...))
	}
}

// PlainString returns the text of a JSON string token that holds no
// escape and only valid UTF-8 — the text exactly, with nothing to decode —
// and reports whether it was one. value must be valid JSON.
func PlainString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	inner := value[1 : len(value)-1]
	ascii := true
	for _, c := range inner {
		if c == '\\' {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// wholeNumber reports whether value is a JSON integer (no fraction, no
// exponent) that fits bits, which is what encoding/json stores in an int.
func wholeNumber(value []byte, bits int) bool {
	if len(value) == 0 || bits == 0 {
		return false
	}
	for i, c := range value {
		if !(c >= '0' && c <= '9' || c == '-' && i == 0) {
			return false
		}
	}
	_, err := strconv.ParseInt(string(value), 10, bits)
	return err == nil
}

// eachInt checks that value is an array of whole numbers that fit bits,
// calling each (when not nil) with them in order.
func eachInt(value []byte, bits int, each func(int64)) bool {
	s := scan{data: value}
	if !s.eat('[') {
		return false
	}
	s.ws()
	if s.eat(']') {
		return s.i == len(value)
	}
	for {
		s.ws()
		start := s.i
		if !s.number() || !wholeNumber(value[start:s.i], bits) {
			return false
		}
		if each != nil {
			n, _ := strconv.ParseInt(string(value[start:s.i]), 10, 64)
			each(n)
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		return s.eat(']') && s.i == len(value)
	}
}

// Members calls fn with the key and the value (its exact bytes) of each
// member of the JSON object data, in order, and reports whether data was
// one valid JSON object, with nothing but white space around it, whose
// keys hold no escapes — the plain shape. fn returns false to stop; then,
// or when data is not of that shape, Members reports false, having called
// fn for some members already. It finds no duplicate keys: fn sees each.
func Members(data []byte, fn func(key, value []byte) bool) bool {
	it := objectIter{s: scan{data: data}}
	if !it.open() {
		return false
	}
	for {
		key, value, st := it.next()
		switch st {
		case iterEnd:
			return it.close()
		case iterBail:
			return false
		}
		if !fn(key, value) {
			return false
		}
	}
}

const (
	iterMember = iota
	iterEnd
	iterBail
)

// objectIter walks the members of one top-level object.
type objectIter struct {
	s     scan
	first bool
}

func (it *objectIter) open() bool {
	it.s.ws()
	it.first = true
	return it.s.eat('{')
}

func (it *objectIter) next() (key, value []byte, state int) {
	s := &it.s
	s.ws()
	if it.first {
		it.first = false
		if s.eat('}') {
			return nil, nil, iterEnd
		}
	} else {
		if s.eat('}') {
			return nil, nil, iterEnd
		}
		if !s.eat(',') {
			return nil, nil, iterBail
		}
		s.ws()
	}
	start := s.i
	plain, ok := s.str()
	if !ok || !plain {
		return nil, nil, iterBail
	}
	key = s.data[start+1 : s.i-1]
	s.ws()
	if !s.eat(':') {
		return nil, nil, iterBail
	}
	s.ws()
	start = s.i
	if !s.value(1) {
		return nil, nil, iterBail
	}
	return key, s.data[start:s.i], iterMember
}

// close reports whether nothing but white space follows the object.
func (it *objectIter) close() bool {
	it.s.ws()
	return it.s.i == len(it.s.data)
}

// scan validates JSON the way encoding/json's scanner does (which does
// not look at the bytes of a string beyond quotes, escapes and control
// characters), one value at a time.
type scan struct {
	data []byte
	i    int
}

func (s *scan) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) eat(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scan) lit(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// value skips one valid value at s.i (no leading white space).
func (s *scan) value(depth int) bool {
	if s.i >= len(s.data) || depth > fastMaxDepth {
		return false
	}
	switch s.data[s.i] {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		s.i++
		s.ws()
		if s.eat('}') {
			return true
		}
		for {
			s.ws()
			if s.i >= len(s.data) || s.data[s.i] != '"' {
				return false
			}
			if _, ok := s.str(); !ok {
				return false
			}
			s.ws()
			if !s.eat(':') {
				return false
			}
			s.ws()
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	case '[':
		s.i++
		s.ws()
		if s.eat(']') {
			return true
		}
		for {
			s.ws()
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	return s.number()
}

// str skips the string at s.i and reports whether it held no escape.
func (s *scan) str() (plain, ok bool) {
	if !s.eat('"') {
		return false, false
	}
	plain = true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return plain, true
		case c < 0x20:
			return false, false
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.data) {
				return false, false
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.data) {
					return false, false
				}
				for _, h := range s.data[s.i+2 : s.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false, false
					}
				}
				s.i += 6
			default:
				return false, false
			}
		default:
			s.i++
		}
	}
	return false, false
}

// number skips a number at s.i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) number() bool {
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.data) && s.data[s.i] >= '1' && s.data[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.eat('.') && !s.digits() {
		return false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits skips one or more digits and reports whether there was one.
func (s *scan) digits() bool {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
