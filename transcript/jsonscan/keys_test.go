package jsonscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFieldIndexMatchesJSON: the field FieldIndex finds for a plain key is
// the one json.Unmarshal fills, for every casing of the names.
func TestFieldIndexMatchesJSON(t *testing.T) {
	names := []string{"id", "type", "sessionId", "ID2", "file_path", "filePath"}
	var fields []reflect.StructField
	for i, n := range names {
		fields = append(fields, reflect.StructField{Name: "F" + strings.Repeat("x", i), Type: reflect.TypeFor[*int](), Tag: reflect.StructTag(`json:"` + n + `"`)})
	}
	typ := reflect.StructOf(fields)
	keys := []string{"", "x", "Id", "iD", "ID", "TYPE", "sessionid", "SESSIONID", "id2", "FILE_PATH", "filepath", "FilePath", "file-path", "types"}
	for _, n := range names {
		keys = append(keys, n, strings.ToUpper(n), strings.ToLower(n))
	}
	for _, key := range keys {
		v := reflect.New(typ)
		if err := json.Unmarshal([]byte(`{"`+key+`":1}`), v.Interface()); err != nil {
			t.Fatal(err)
		}
		want := -1
		for i := range names {
			if !v.Elem().Field(i).IsNil() {
				want = i
			}
		}
		if !PlainKey([]byte(key)) {
			t.Fatalf("%q is not plain", key)
		}
		if got := FieldIndex([]byte(key), names); got != want {
			t.Errorf("FieldIndex(%q) = %d, encoding/json fills %d", key, got, want)
		}
	}
	for _, key := range []string{`a\"b`, "ſessionId", "\u212aey"} {
		if PlainKey([]byte(key)) {
			t.Errorf("PlainKey(%q) = true", key)
		}
	}
}
