// Package jsonscan is the JSON scanning the transcript readers share in
// place of encoding/json.
//
// encoding/json validates every byte of its input with a state function
// per byte before it decodes it by reflection, and transcripts are
// mostly bytes no row is made of: a file written whole into a tool
// call's input, a command's output. The readers walk only the members
// they read and skip the rest with byte searches, eight bytes at a time.
// What they share is here:
//
//   - strings: StringEnd finds a string's end without checking it;
//     ValidString checks it as encoding/json does; DecodeString and
//     Unquote decode one as json.Unmarshal into a string does;
//   - values: SkipValue skips one by its structure alone; Valid and
//     ValidValue check one as json.Valid does (its grammar and its
//     nesting limit);
//   - objects and arrays: ObjectWalk and ArrayWalk step through members
//     and elements, the caller skipping or reading each value;
//   - keys: PlainKey and FieldIndex match a key to a struct field's name
//     as encoding/json does, when it is plain ASCII.
//
// The fuzz tests hold each piece to encoding/json, or to the simpler
// scanning it replaced.
package jsonscan
