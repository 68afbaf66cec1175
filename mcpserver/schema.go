package mcpserver

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the schema of a tool's arguments T as the SDK would infer
// it, but lenient where clients differ: a count (Count) may come as a
// JSON number or as a string of digits, which some clients send for
// every number; and a scope is one of its two values, listed.
func inputSchema[T any]() *jsonschema.Schema {
	count := &jsonschema.Schema{Types: []string{"null", "integer", "string"}, Pattern: `^\s*-?[0-9]+\s*$`}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[Count](): count,
	}})
	if err != nil {
		panic(err) // the argument types are this package's: a test sees it
	}
	if scope, ok := s.Properties["scope"]; ok {
		scope.Enum = []any{"message", "session"}
	}
	return s
}
