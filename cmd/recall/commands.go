package main

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/alecthomas/kong"
)

// commandOptions gives kong the commands it is to build.
func commandOptions(all []command) []kong.Option {
	opts := make([]kong.Option, 0, len(all))
	for _, cmd := range all {
		opts = append(opts, kong.DynamicCommand(cmd.name, cmd.help, "", cmd.target, cmd.tags...))
	}
	return opts
}

// chosenCommands is the part of the tree args can run: only the command
// named by the first word, or the default command (search) when that word
// names none — kong would choose the same: a command name comes before the
// default command's words. The first word is the first argument, or the
// one after a run of flags that a search may take before its words
// (`recall --no-update -n 5 jwt`); then only the default command is
// built, since a command named after flags is rare enough to take the
// whole tree. Anything else — no word, --help, --version, a flag the run
// does not know, clustered short flags, a value that looks like a flag,
// `--` — takes the whole tree, so kong sees what it would see anyway.
func chosenCommands(c *cli, args []string) []command {
	all := commandsOf(c)
	at, ok := firstWord(args, leadingFlags())
	if !ok {
		return all
	}
	for _, cmd := range all {
		if cmd.name == args[at] {
			if at > 0 {
				return all
			}
			return []command{cmd}
		}
	}
	return all[:1] // a word that names no command: the default, search
}

// firstWord returns where the first word of args is, skipping the flags
// before it and their values. known maps each flag allowed there (long
// names and one-letter short names) to whether it takes a value; ok is
// false when a flag before the word is not one of them or is written in a
// form this reader does not take apart, or when there is no word.
func firstWord(args []string, known map[string]bool) (at int, ok bool) {
	for at < len(args) && strings.HasPrefix(args[at], "-") {
		name, inline := flagName(args[at])
		takesValue, found := known[name]
		if !found {
			return 0, false
		}
		at++
		if takesValue && !inline {
			if at >= len(args) || strings.HasPrefix(args[at], "-") {
				return 0, false
			}
			at++
		}
	}
	return at, at < len(args)
}

// flagName is the name of the flag arg spells (`--name`, `--name=value`,
// `-n`) and whether it holds its own value; "" for any other form.
func flagName(arg string) (name string, inline bool) {
	if long, ok := strings.CutPrefix(arg, "--"); ok {
		name, _, inline = strings.Cut(long, "=")
		return name, inline
	}
	if len(arg) == 2 {
		return arg[1:], false
	}
	return "", false // "-", clustered shorts, "-n5"
}

// leadingFlags lists the flags that may come before a search's words: the
// global flags and the search command's own, each with whether it takes
// a value. It reads the same struct tags kong does (name, short), without
// kong's expansion of every help text.
func leadingFlags() map[string]bool {
	known := map[string]bool{}
	for _, t := range []reflect.Type{reflect.TypeFor[Globals](), reflect.TypeFor[searchCmd]()} {
		for f := range fieldsOf(t) {
			takesValue := f.Type.Kind() != reflect.Bool
			known[flagLongName(f)] = takesValue
			if short := f.Tag.Get("short"); short != "" {
				known[short] = takesValue
			}
		}
	}
	return known
}

// fieldsOf yields the exported fields of t that kong reads as flags.
func fieldsOf(t reflect.Type) func(yield func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for f := range t.Fields() {
			_, positional := f.Tag.Lookup("arg")
			if !f.IsExported() || f.Tag.Get("kong") == "-" || positional {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// flagLongName is a field's flag name as kong derives it: the name tag,
// else the field name in lower kebab case, an acronym kept whole
// (IndexDir → index-dir, JSON → json, HTTPPort → http-port).
func flagLongName(f reflect.StructField) string {
	if name := f.Tag.Get("name"); name != "" {
		return name
	}
	rs := []rune(f.Name)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
