package main

import (
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// stringLists decodes every []string flag (--require, --exclude,
// --project, --session, --type) as kong does, one value split at the
// flag's separator (',' unless sep says otherwise, '\' escaping it), but
// in time linear in the value. kong's own split (kong.SplitEscaped) builds
// each part one character at a time by string concatenation, quadratic in
// a part's length: a 120 KB --exclude value took 5 s, and a megabyte
// minutes, before recall could refuse it (query.MaxFilterBytes).
// Positional arguments are taken as they are, without the JSON round trip
// kong's string decoder makes of each (four copies of a long query).
// A value that is not a string is left to kong's decoder.
func stringLists() kong.Option {
	typ := reflect.TypeFor[[]string]()
	fallback := kong.NewRegistry().RegisterDefaults().ForType(typ)
	return kong.TypeMapper(typ, kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
		add := func(s string) { target.Set(reflect.Append(target, reflect.ValueOf(s))) }
		if ctx.Value.Flag != nil {
			if t := ctx.Scan.Peek(); !t.IsEOL() {
				if s, ok := t.Value.(string); ok {
					ctx.Scan.Pop()
					for _, part := range splitEscaped(s, ctx.Value.Tag.Sep) {
						add(part)
					}
					return nil
				}
			}
			return fallback.Decode(ctx, target)
		}
		// Positional arguments: every value, as kong takes them, without
		// the JSON round trip its string decoder makes of each.
		for t := ctx.Scan.Peek(); t.IsValue(); t = ctx.Scan.Peek() {
			s, ok := t.Value.(string)
			if !ok {
				return fallback.Decode(ctx, target)
			}
			ctx.Scan.Pop()
			add(s)
		}
		return nil
	}))
}

// splitEscaped is kong.SplitEscaped, part for part, in linear time: s
// split at sep (-1: not split), where '\' before sep makes it a plain
// character and is kept before anything else; a last empty part is
// dropped.
func splitEscaped(s string, sep rune) []string {
	if sep == -1 {
		return []string{s}
	}
	var out []string
	var token strings.Builder
	escaped := false
	for i, ch := range s {
		switch {
		case escaped:
			if ch != sep {
				token.WriteByte('\\')
			}
			token.WriteRune(ch)
			escaped = false
		case ch == '\\' && i < len(s)-1:
			escaped = true
		case ch == sep:
			out = append(out, token.String())
			token.Reset()
		default:
			token.WriteRune(ch)
		}
	}
	if token.Len() > 0 {
		out = append(out, token.String())
	}
	return out
}
