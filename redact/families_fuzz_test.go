package redact

import (
	"strings"
	"testing"
)

// FuzzFamilies: the parsers of recall's find rules (command lines,
// prose, .netrc, .pgpass, PuTTY, XML, cookies, encoded keys) never panic
// and return spans inside the text, in the part the rule may read, for
// every keyword occurrence of every such rule; and parseCommand's words
// lie in order inside what it was given.
func FuzzFamilies(f *testing.F) {
	for _, s := range []string{
		"mysql -uroot -pS3cret! shop", "sshpass -p 'x y' ssh h", "echo pw | docker login --password-stdin",
		"htpasswd -nb admin pw1", "curl -u a:b\\\n -X POST", "xfreerdp /p:abc /v:h", "openssl rsa -passin pass:x",
		"sqlplus system/pw@db", "smbclient //h/s pw -U a%b", "net use Z: \\\\h\\s pw /user:x", "echo 'u:p' | chpasswd",
		"the wifi password is sunshine42.", "use \"x y\" as the password", "passphrase: a b c d", "creds are app / pw!",
		"machine h login u password p", "h:5432:db:u:pw", "PuTTY\nPrivate-Lines: 1\nAAAA\nPrivate-MAC: 00ff",
		"<password>x</password>", "Cookie: a=b; c=d", "c2tfbGl2ZV8", "736b5f6c6976655f", "mysql -p'", "sudo -S x",
	} {
		f.Add(s)
	}
	r := New()
	f.Fuzz(func(t *testing.T, text string) {
		lower := []byte(text) // ASCII folded, as the prefilter folds
		for i, c := range lower {
			if c >= 'A' && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for _, ru := range r.rules {
			if ru.find == nil {
				continue
			}
			for _, kw := range ru.keywords {
				for at := 0; ; {
					i := strings.Index(string(lower[at:]), kw)
					if i < 0 {
						break
					}
					start := at + i
					end := min(len(text), start+ru.window)
					for _, sp := range ru.find(text, start, end, nil) {
						if sp[0] < 0 || sp[1] > len(text) || sp[0] > sp[1] {
							t.Fatalf("%s at %d of %q: span %v out of the text", ru.kind, start, text, sp)
						}
						if sp[1] > end && ru.kind != "encoded-secret" {
							t.Fatalf("%s at %d of %q: span %v past the window's end %d", ru.kind, start, text, sp, end)
						}
					}
					at = start + 1
				}
			}
		}
		last := 0
		for _, w := range parseCommand(text, 0, len(text), nil) {
			if w.rawLo < last || w.rawHi > len(text) || w.lo < w.rawLo || w.hi > w.rawHi || w.lo > w.hi {
				t.Fatalf("%q: word %+v out of order or bounds", text, w)
			}
			last = w.rawHi
		}
	})
}
