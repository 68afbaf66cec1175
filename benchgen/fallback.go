package benchgen

// fallbackFiles is a tiny stand-in for the Go source tree, used only when
// GOROOT/src cannot be read. A corpus built from it has a far smaller
// vocabulary than a real one, so the caller warns on stderr.
var fallbackFiles = []struct{ path, text string }{
	{"cache/lru.go", `package cache

// Cache keeps the most recently used entries in memory and evicts the
// oldest one when it is full. Lookups move an entry to the front of the
// list. The zero value is not usable; call New to build one.
type Cache struct {
	max   int
	items map[string]*entry
	head  *entry
}

// New returns a cache that holds at most max entries. A max of zero means
// the cache never evicts anything, which is only safe in tests.
func New(max int) *Cache {
	return &Cache{max: max, items: make(map[string]*entry)}
}

// Get reports the value stored under key and whether it was present.
// Reading an entry counts as a use, so it will be evicted last.
func (c *Cache) Get(key string) (string, bool) {
	e, ok := c.items[key]
	if !ok {
		return "", false
	}
	c.moveToFront(e)
	return e.value, true
}
`},
	{"config/load.go", `package config

// Load reads the configuration file and fills in defaults for missing
// fields. Unknown keys are reported as warnings rather than errors so that
// older binaries keep working with newer files.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	return parse(data)
}

// The timeout applies to the whole request, including retries. A request
// that is retried three times still fails after the same deadline.
func (c Config) Deadline(now time.Time) time.Time {
	return now.Add(c.Timeout)
}
`},
	{"server/handler.go", `package server

// ServeHTTP answers health checks directly and hands everything else to
// the router. Panics in handlers are recovered and logged, and the client
// receives a plain internal server error.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	if r.URL.Path == "/healthz" {
		w.WriteHeader(http.StatusOK)
		return
	}
	s.router.ServeHTTP(w, r)
}

// Shutdown stops accepting connections and waits for active requests to
// finish. It returns the context error if the deadline passes first.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.http.Shutdown(ctx)
}
`},
	{"store/migrate.go", `package store

// Migrate applies every migration newer than the recorded schema version
// inside one transaction. If any step fails the database is left exactly
// as it was before the call.
func Migrate(db *sql.DB, steps []Step) error {
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()
	for _, step := range steps {
		if _, err := tx.Exec(step.SQL); err != nil {
			return fmt.Errorf("migration %d: %w", step.Version, err)
		}
	}
	return tx.Commit()
}

// The lock table prevents two processes from migrating at the same time.
// A stale lock older than ten minutes is taken over with a warning.
func acquireLock(tx *sql.Tx) error {
	_, err := tx.Exec("INSERT INTO schema_lock VALUES (1)")
	return err
}
`},
	{"auth/token.go", `package auth

// Verify checks the signature and expiry of a token. Clock skew of up to
// one minute is tolerated because servers rarely agree on the time.
func Verify(token string, key []byte) (Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, errMalformed
	}
	return decodeClaims(parts[1])
}

// Refresh issues a new token with the same subject and a later expiry.
// Refreshing an expired token is refused so that stolen tokens age out.
func Refresh(c Claims, now time.Time) (string, error) {
	if now.After(c.Expiry) {
		return "", errExpired
	}
	return sign(c.withExpiry(now.Add(time.Hour)))
}
`},
	{"queue/worker.go", `package queue

// Run pulls jobs from the queue until the context is cancelled. Each job
// gets its own timeout, and a job that fails is retried with exponential
// backoff up to the configured number of attempts.
func (w *Worker) Run(ctx context.Context) error {
	for {
		job, err := w.next(ctx)
		if err != nil {
			return err
		}
		w.handle(ctx, job)
	}
}

// Flaky tests in this package usually mean the backoff timer fired before
// the fake clock advanced. Use the clock interface instead of time.Sleep.
func (w *Worker) backoff(attempt int) time.Duration {
	return time.Duration(1<<attempt) * w.base
}
`},
}

// fallbackTextSource builds a TextSource from fallbackFiles.
func fallbackTextSource() *TextSource {
	ts := &TextSource{Origin: "built-in fallback text"}
	var current *textPackage
	for _, f := range fallbackFiles {
		current = ts.packageFor(current, pathDir(f.path))
		ts.addFile(current, f.path, f.text)
	}
	ts.closePackage(current)
	return ts
}
