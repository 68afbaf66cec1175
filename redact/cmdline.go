package redact

import (
	"strings"
	"sync"
)

// Passwords given on command lines: the flags of common tools that take
// one (mysql -pPW, sshpass -p PW, docker login -p PW, htpasswd -b FILE
// USER PW, curl -u USER:PW, xfreerdp /p:PW, openssl -passin pass:PW, …),
// and a literal echoed into one that reads it from its input (echo PW |
// docker login --password-stdin). The rule is keyed by the tools' names;
// at each, parseCommand splits the command that follows into words as a
// shell would (quotes, escaped newlines), up to the end of the command
// (a newline, ;, |, & or a closing parenthesis outside quotes), and the
// tool's flags are read from them.

// word is one shell word: text[lo:hi] is its content (quotes taken off
// when the word is wholly quoted), raw its span with the quotes.
type word struct {
	lo, hi int
	rawLo  int
	rawHi  int
}

// maxCommandWords bounds the words read of one command.
const maxCommandWords = 64

// parseCommand splits text[i:end] into words up to the end of the
// command. It never reads past end.
func parseCommand(text string, i, end int, out []word) []word {
	for len(out) < maxCommandWords {
		// Spaces, and newlines escaped by a backslash (a continued line).
		for i < end {
			if text[i] == ' ' || text[i] == '\t' {
				i++
			} else if text[i] == '\\' && i+1 < end && text[i+1] == '\n' {
				i += 2
			} else if text[i] == '\\' && i+2 < end && text[i+1] == '\\' && text[i+2] == 'n' {
				i += 3 // "\\\n" as JSON writes a continued line
			} else {
				break
			}
		}
		if i >= end {
			return out
		}
		switch text[i] {
		case '\n', '\r', ';', '|', '&', ')', '`':
			return out
		}
		w := word{rawLo: i}
		quoted := true // the word is one quoted string
		for i < end {
			c := text[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == ')' || c == '`' {
				break
			}
			if c == '"' || c == '\'' {
				j := strings.IndexByte(text[i+1:end], c)
				if j < 0 {
					i = end
					quoted = false
					break
				}
				if i != w.rawLo {
					quoted = false
				}
				i += j + 2
				if i < end && !isCommandEnd(text[i]) {
					quoted = false
				}
				continue
			}
			quoted = false
			if c == '\\' && i+1 < end {
				i += 2
				continue
			}
			i++
		}
		w.rawHi = i
		w.lo, w.hi = w.rawLo, w.rawHi
		if quoted && w.rawHi-w.rawLo >= 2 {
			w.lo, w.hi = w.rawLo+1, w.rawHi-1
		}
		out = append(out, w)
	}
	return out
}

func isCommandEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == ')' || c == '`'
}

// valueSpan is the part of text[lo:hi] that is a flag's value, quotes
// taken off when it is wholly quoted.
func valueSpan(text string, lo, hi int) (int, int) {
	if hi-lo >= 2 && (text[lo] == '"' || text[lo] == '\'') && text[hi-1] == text[lo] {
		return lo + 1, hi - 1
	}
	return lo, hi
}

// Flag value forms.
const (
	flagSep   = 1 << iota // -p PW, --password PW
	flagEq                // --password=PW
	flagGlued             // -pPW, /p:PW
)

// Parts of a value that are the password.
const (
	partAll     = iota
	partColon   // user:PW (curl -u)
	partPercent // user%PW (smbclient -U)
	partComma   // user,PW (lftp -u)
	partPass    // pass:PW (openssl -passin)
	partSlash   // user/PW@db (sqlplus)
)

type cliFlag struct {
	name  string
	forms int
	part  int
	needs string // a word the command must hold ("login"), or ""
}

type cliTool struct {
	names []string
	flags []cliFlag
	// positional, if set, finds the password among the words that are
	// not flags (htpasswd -b FILE USER PW).
	positional func(text string, words []word) (int, int, bool)
}

func flags(forms, part int, needs string, names ...string) []cliFlag {
	var out []cliFlag
	for _, n := range names {
		out = append(out, cliFlag{name: n, forms: forms, part: part, needs: needs})
	}
	return out
}

func join(lists ...[]cliFlag) []cliFlag {
	var out []cliFlag
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var cliTools = []cliTool{
	{names: []string{"mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlsh", "mariadb-dump", "mycli"},
		flags: join(flags(flagGlued, partAll, "", "-p"), flags(flagEq|flagSep, partAll, "", "--password"))},
	{names: []string{"sshpass"}, flags: flags(flagGlued|flagSep, partAll, "", "-p")},
	{names: []string{"docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "az"},
		flags: join(flags(flagSep|flagEq|flagGlued, partAll, "login", "-p"), flags(flagSep|flagEq, partAll, "", "--password", "--registry-password"))},
	{names: []string{"helm"}, flags: join(flags(flagSep|flagEq, partAll, "", "--password"), flags(flagSep, partAll, "login", "-p"))},
	{names: []string{"twine"}, flags: flags(flagSep|flagEq, partAll, "", "-p", "--password")},
	{names: []string{"htpasswd"}, positional: htpasswdPassword},
	{names: []string{"curl"}, flags: flags(flagSep|flagEq|flagGlued, partColon, "", "-u", "--user", "-U", "--proxy-user")},
	{names: []string{"wget"}, flags: flags(flagSep|flagEq, partAll, "", "--password", "--http-password", "--ftp-password", "--proxy-password")},
	{names: []string{"smbclient", "rpcclient", "smbmap"},
		flags:      join(flags(flagSep|flagEq|flagGlued, partPercent, "", "-U", "--user"), flags(flagSep|flagEq, partAll, "", "--password", "-p")),
		positional: smbclientPassword},
	{names: []string{"xfreerdp", "xfreerdp3", "wlfreerdp", "sdl-freerdp", "cmdkey"}, flags: flags(flagGlued, partAll, "", "/p:", "/password:", "/pass:", "-p:")},
	{names: []string{"rdesktop", "psexec", "psexec.py"}, flags: flags(flagSep|flagGlued, partAll, "", "-p")},
	{names: []string{"openssl"}, flags: join(flags(flagSep, partPass, "", "-passin", "-passout", "-pass", "-password"), flags(flagSep, partAll, "", "-k"))},
	{names: []string{"redis-cli"}, flags: flags(flagSep|flagEq, partAll, "", "-a", "--pass", "--user-pass")},
	{names: []string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop"},
		flags: flags(flagSep|flagEq, partAll, "", "-p", "--password")},
	{names: []string{"sqlcmd", "ipmitool"}, flags: flags(flagSep|flagGlued, partAll, "", "-P")},
	{names: []string{"ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldappasswd", "ldapwhoami", "ldapcompare", "ldapmodrdn"},
		flags: flags(flagSep|flagGlued, partAll, "", "-w")},
	{names: []string{"keytool", "jarsigner"}, flags: flags(flagSep, partAll, "", "-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-new")},
	{names: []string{"zip", "unzip"}, flags: flags(flagSep|flagEq, partAll, "", "-P", "--password")},
	{names: []string{"7z", "7za", "7zz"}, flags: flags(flagGlued, partAll, "", "-p")},
	{names: []string{"gpg", "gpg2"}, flags: flags(flagSep|flagEq, partAll, "", "--passphrase")},
	{names: []string{"ssh-keygen"}, flags: flags(flagSep, partAll, "", "-N", "-P")},
	{names: []string{"sqlplus", "expdp", "impdp", "sqlldr"}, positional: oraclePassword},
	{names: []string{"lftp"}, flags: flags(flagSep, partComma, "", "-u")},
	{names: []string{"influx", "clickhouse-client", "cqlsh", "snowsql"},
		flags: flags(flagSep|flagEq, partAll, "", "-password", "--password", "-p", "-t", "--token", "-w")},
	{names: []string{"snmpwalk", "snmpget", "snmpset", "snmpbulkwalk"}, flags: flags(flagSep, partAll, "", "-A", "-X")},
	{names: []string{"wpa_passphrase"}, positional: secondPositional},
	{names: []string{"nmcli"}, positional: nmcliPassword},
	{names: []string{"rabbitmqctl"}, positional: rabbitmqPassword},
	{names: []string{"net"}, positional: netUsePassword},
	{names: []string{"chpasswd", "--password-stdin", "--stdin", "sudo"}, positional: nil},
}

// cliToolsByName indexes cliTools by name, built on first use: a
// process that redacts nothing (a search, the no-change check) does not
// pay for it at start.
var cliToolsByName = sync.OnceValue(func() map[string]*cliTool {
	m := map[string]*cliTool{}
	for i := range cliTools {
		for _, n := range cliTools[i].names {
			m[n] = &cliTools[i]
		}
	}
	return m
})

// cliKeywordOf is the keyword of a tool whose name alone is in too many
// words to be one.
var cliKeywordOf = map[string]string{"net": "net use", "az": "az login"}

func cliKeywords() []string {
	var k []string
	for i := range cliTools {
		for _, n := range cliTools[i].names {
			if kw, ok := cliKeywordOf[n]; ok {
				n = kw
			}
			k = append(k, strings.ToLower(n))
		}
	}
	return k
}

func cliRule() *rule {
	return &rule{kind: "cli-password", keywords: cliKeywords(), priority: priorityStructural, anchored: true, window: 2048, find: findCLIPassword}
}

// commandStart reports whether a command's name can start at text[i]:
// the start of the text or a line, after a space, a quote, an operator
// or a path (/usr/bin/mysql, ./7z).
func commandStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	switch text[i-1] {
	case ' ', '\t', '\n', '\r', ';', '|', '&', '(', '`', '"', '\'', '/', '$', '{':
		return true
	case 'n':
		return i >= 2 && text[i-2] == '\\' // \n written out in JSON
	}
	return false
}

func findCLIPassword(text string, start, end int, out [][2]int) [][2]int {
	if !commandStart(text, start) {
		return out
	}
	nameEnd := start
	for nameEnd < end && !isCommandEnd(text[nameEnd]) && text[nameEnd] != '"' && text[nameEnd] != '\'' {
		nameEnd++
	}
	name := text[start:nameEnd]
	tool := cliToolsByName()[name]
	if tool == nil {
		tool = cliToolsByName()[strings.TrimSuffix(strings.ToLower(name), ".exe")]
	}
	if tool == nil {
		return out
	}
	if name == "--stdin" && !strings.HasSuffix(text[:start], "passwd ") {
		return out
	}
	if name == "chpasswd" || name == "--password-stdin" || name == "--stdin" {
		return echoedPassword(text, start, end, name, out)
	}
	if name == "sudo" {
		// sudo -S reads the password from its input.
		if words := parseCommand(text, nameEnd, end, nil); len(words) > 0 && holdsWord(text, words[:min(3, len(words))], "-S") {
			return echoedPassword(text, start, end, name, out)
		}
		return out
	}
	words := parseCommand(text, nameEnd, end, nil)
	for k := 0; k < len(words); k++ {
		w := words[k]
		raw := text[w.rawLo:w.rawHi]
		for _, f := range tool.flags {
			if f.needs != "" && !holdsWord(text, words, f.needs) {
				continue
			}
			lo, hi := -1, -1
			switch {
			case raw == f.name && f.forms&flagSep != 0 && k+1 < len(words):
				next := words[k+1]
				if next.lo < next.hi && text[next.lo] == '-' && next.lo == next.rawLo {
					continue // another flag: this one asks for the password
				}
				lo, hi = next.lo, next.hi
			case f.forms&flagEq != 0 && strings.HasPrefix(raw, f.name+"="):
				lo, hi = valueSpan(text, w.rawLo+len(f.name)+1, w.rawHi)
			case f.forms&flagGlued != 0 && len(raw) > len(f.name) && strings.HasPrefix(raw, f.name) &&
				(f.name[len(f.name)-1] == ':' || f.name[0] == '-' && len(f.name) == 2):
				lo, hi = valueSpan(text, w.rawLo+len(f.name), w.rawHi)
			default:
				continue
			}
			if lo, hi, ok := passwordPart(text, lo, hi, f.part); ok {
				out = append(out, [2]int{lo, hi})
			}
			break
		}
	}
	if tool.positional != nil {
		if lo, hi, ok := tool.positional(text, words); ok {
			out = append(out, [2]int{lo, hi})
		}
	}
	return out
}

func holdsWord(text string, words []word, w string) bool {
	for _, x := range words {
		if text[x.lo:x.hi] == w {
			return true
		}
	}
	return false
}

// passwordPart takes the password out of a flag's value text[lo:hi].
func passwordPart(text string, lo, hi, part int) (int, int, bool) {
	if lo < 0 || lo >= hi {
		return 0, 0, false
	}
	v := text[lo:hi]
	sep := ""
	switch part {
	case partColon:
		sep = ":"
	case partPercent:
		sep = "%"
	case partComma:
		sep = ","
	case partPass:
		if !strings.HasPrefix(v, "pass:") {
			return 0, 0, false // env:VAR, file:PATH, fd:N, stdin
		}
		lo += len("pass:")
	case partSlash:
		i := strings.IndexByte(v, '/')
		if i <= 0 {
			return 0, 0, false
		}
		lo += i + 1
		if j := strings.IndexByte(text[lo:hi], '@'); j >= 0 {
			hi = lo + j
		}
	}
	if sep != "" {
		i := strings.Index(v, sep)
		if i < 0 {
			return 0, 0, false
		}
		lo += i + 1
	}
	if lo >= hi || !literalSecret(text[lo:hi], true) {
		return 0, 0, false
	}
	return lo, hi, true
}

// positionals are the words that are not flags, and the flags' letters
// (for htpasswd's -b).
func positionals(text string, words []word) (pos []word, shortFlags string) {
	for _, w := range words {
		if w.lo < w.hi && text[w.rawLo] == '-' && w.rawHi-w.rawLo > 1 {
			shortFlags += text[w.rawLo+1 : w.rawHi]
			continue
		}
		pos = append(pos, w)
	}
	return pos, shortFlags
}

func htpasswdPassword(text string, words []word) (int, int, bool) {
	pos, fl := positionals(text, words)
	if !strings.Contains(fl, "b") {
		return 0, 0, false
	}
	n := 2 // FILE USER PW
	if strings.Contains(fl, "n") {
		n = 1 // USER PW
	}
	if len(pos) <= n {
		return 0, 0, false
	}
	return passwordPart(text, pos[n].lo, pos[n].hi, partAll)
}

func smbclientPassword(text string, words []word) (int, int, bool) {
	pos, _ := positionals(text, words)
	// smbclient //host/share PASSWORD: the share, then a password.
	if len(pos) < 2 || !strings.HasPrefix(text[pos[0].lo:pos[0].hi], "//") && !strings.HasPrefix(text[pos[0].lo:pos[0].hi], `\\`) {
		return 0, 0, false
	}
	// Words after flags that take a value (-U user) are not positionals.
	for i, w := range words {
		if w.rawLo == pos[1].rawLo && i > 0 {
			if p := text[words[i-1].rawLo:words[i-1].rawHi]; strings.HasPrefix(p, "-") {
				return 0, 0, false
			}
		}
	}
	return passwordPart(text, pos[1].lo, pos[1].hi, partAll)
}

func oraclePassword(text string, words []word) (int, int, bool) {
	for _, w := range words {
		v := text[w.lo:w.hi]
		if v == "" || v[0] == '-' || v[0] == '/' || v[0] == '@' {
			continue
		}
		if strings.IndexByte(v, '/') > 0 {
			return passwordPart(text, w.lo, w.hi, partSlash)
		}
		return 0, 0, false
	}
	return 0, 0, false
}

func secondPositional(text string, words []word) (int, int, bool) {
	pos, _ := positionals(text, words)
	if len(pos) < 2 {
		return 0, 0, false
	}
	return passwordPart(text, pos[1].lo, pos[1].hi, partAll)
}

func nmcliPassword(text string, words []word) (int, int, bool) {
	for i := 0; i+1 < len(words); i++ {
		switch text[words[i].lo:words[i].hi] {
		case "password", "wifi-sec.psk", "802-11-wireless-security.psk":
			return passwordPart(text, words[i+1].lo, words[i+1].hi, partAll)
		}
	}
	return 0, 0, false
}

func rabbitmqPassword(text string, words []word) (int, int, bool) {
	pos, _ := positionals(text, words)
	if len(pos) >= 3 {
		switch text[pos[0].lo:pos[0].hi] {
		case "add_user", "change_password", "authenticate_user":
			return passwordPart(text, pos[2].lo, pos[2].hi, partAll)
		}
	}
	return 0, 0, false
}

func netUsePassword(text string, words []word) (int, int, bool) {
	pos, _ := positionals(text, words)
	if len(pos) < 2 || !strings.EqualFold(text[pos[0].lo:pos[0].hi], "use") {
		return 0, 0, false
	}
	for _, w := range pos[1:] {
		v := text[w.lo:w.hi]
		switch {
		case len(v) == 2 && v[1] == ':', strings.HasPrefix(v, `\\`), strings.HasPrefix(v, "/"), v == "*":
			continue
		}
		return passwordPart(text, w.lo, w.hi, partAll)
	}
	return 0, 0, false
}

// echoedPassword finds the literal that echo, printf or a here-string
// gives a command that reads a password from its input (chpasswd,
// --password-stdin, passwd --stdin), on the same line.
func echoedPassword(text string, start, end int, name string, out [][2]int) [][2]int {
	lineStart := strings.LastIndexByte(text[max(0, start-512):start], '\n') + max(0, start-512) + 1
	line := text[lineStart:start]
	// Here-string after the command: cmd --password-stdin <<< PW
	rest := text[start:end]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	if i := strings.Index(rest, "<<<"); i >= 0 {
		words := parseCommand(text, start+i+3, start+len(rest), nil)
		if len(words) > 0 {
			if lo, hi, ok := passwordPart(text, words[0].lo, words[0].hi, partAll); ok {
				return append(out, [2]int{lo, hi})
			}
		}
	}
	for _, verb := range []string{"echo ", "printf "} {
		i := strings.LastIndex(line, verb)
		if i < 0 || !commandStart(text, lineStart+i) {
			continue
		}
		words := parseCommand(text, lineStart+i+len(verb), start, nil)
		for _, w := range words {
			v := text[w.lo:w.hi]
			if strings.HasPrefix(v, "-") && w.lo == w.rawLo {
				continue // echo -n, -e
			}
			part := partAll
			if name == "chpasswd" {
				part = partColon
			}
			if lo, hi, ok := passwordPart(text, w.lo, w.hi, part); ok {
				if nl := strings.Index(text[lo:hi], `\n`); nl >= 0 {
					hi = lo + nl // printf 'pw\npw\n'
				}
				return append(out, [2]int{lo, hi})
			}
			break
		}
	}
	return out
}
