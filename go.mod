module github.com/recall-dev/recall

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/klauspost/compress v1.20.3
	github.com/wasilibs/go-re2 v1.13.0
	golang.org/x/sys v0.49.0
)

require golang.org/x/term v0.47.0
