//go:build !unix

package benchrun

// syncAll is a no-op where there is no sync(2).
func syncAll() error { return nil }
