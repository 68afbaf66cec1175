# recall — see README.md. Every target works on a fresh machine with Go.
GO      ?= go
BIN     := bin/recall
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BENCH_SIZE ?= 1GB
FUZZTIME ?= 10s
# Pure Go, statically linked: nothing to install beside the binary, and it
# starts about a millisecond sooner than one linked against libc (os/user,
# which kong imports, would otherwise pull in cgo).
export CGO_ENABLED ?= 0

.PHONY: build index test race fuzz lint bench microbench pgo eval install clean

## build: compile bin/recall, bin/recall-mcp (the MCP server `recall mcp` runs),
## bin/recall-opencode (the reader of OpenCode's database recall runs),
## bin/recall-hint (the prompt hint's hook) and bin/recall-bench
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/recall
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/recall-mcp ./cmd/recall-mcp
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/recall-opencode ./cmd/recall-opencode
	$(GO) build -ldflags '-s -w' -o bin/recall-hint ./cmd/recall-hint
	$(GO) build -o bin/recall-bench ./cmd/recall-bench

## index: build, then index the default transcript location (~/.claude/projects)
index: build
	./$(BIN) index

## test: formatting, vet, then every test (unit, golden, fuzz seeds, crash, end-to-end)
test: lint
	$(GO) test -count=1 ./...

## race: the packages that run goroutines together (search workers, the
## indexer's readers and committer, the MCP server) under the race
## detector; it needs cgo, so a machine without a C compiler skips it
race:
	@if CGO_ENABLED=1 $(GO) env CC >/dev/null 2>&1 && command -v "$$(CGO_ENABLED=1 $(GO) env CC)" >/dev/null 2>&1; then \
	  CGO_ENABLED=1 $(GO) test -race -count=1 ./search ./store/... ./indexer/... ./mcpserver; \
	else echo "race: no C compiler for cgo; skipped"; fi

## fuzz: run each fuzz target for FUZZTIME (default 10s) past its seed corpus; CI runs it after test
fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

## lint: gofmt and go vet must be clean, and recall must build for macOS and for a 32-bit platform (linux/386)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/recall
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/recall-hint
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/recall-mcp
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/recall-opencode
	GOOS=linux GOARCH=386 $(GO) build -o /dev/null ./cmd/recall
	GOOS=linux GOARCH=386 $(GO) build -o /dev/null ./cmd/recall-hint
	GOOS=linux GOARCH=386 $(GO) build -o /dev/null ./cmd/recall-mcp
	GOOS=linux GOARCH=386 $(GO) build -o /dev/null ./cmd/recall-opencode

## microbench: Go benchmarks of the hot paths
microbench:
	$(GO) test -run '^$$' -bench . -benchmem ./indexer ./store/... ./transcript ./textrules ./filter ./query ./rank ./search ./redact/...

## bench: side-by-side benchmark on a generated corpus; writes docs/benchmarks.md (needs ripgrep and zstd);
## BENCH_MIXED=1 adds Codex, Gemini CLI, OpenCode and Aider sessions to it and writes docs/benchmarks-mixed.md
bench: build
	./bin/recall-bench run --recall ./$(BIN) --size $(BENCH_SIZE) --also-4x $(if $(BENCH_MIXED),--mixed --out docs/benchmarks-mixed.md,--out docs/benchmarks.md)

## pgo: profile a full index and searches of a generated mixed corpus and write
## the compiler's profiles (cmd/recall/default.pgo, cmd/recall-opencode/default.pgo),
## which every build and go install then uses; see docs/performance.md
PGO_DIR ?= /tmp/recall-pgo
PGO_QUERIES := "connection refused" "retry backoff" "how do we migrate the schema" \
	"panic --require nil" "cache --exclude redis" "--regex time.?out" "render the sidebar" "flaky login test"
pgo: build
	rm -rf $(PGO_DIR) && mkdir -p $(PGO_DIR)/prof
	./bin/recall-bench gen --size 1GB --seed 7 --mixed --out $(PGO_DIR)/corpus
	@set -ef; c=$(PGO_DIR)/corpus; src="--source $$c/projects --source codex:$$c/codex --source gemini:$$c/gemini --source opencode:$$c/opencode --source aider:$$c/aider"; \
	for i in 1 2 3; do rm -rf $(PGO_DIR)/index; RECALL_CPUPROFILE_DIR=$(PGO_DIR)/prof ./$(BIN) index $$src --index-dir $(PGO_DIR)/index; done; \
	for i in $$(seq 20); do RECALL_CPUPROFILE_DIR=$(PGO_DIR)/prof ./bin/recall-opencode --wire 1 --since 0 --now 1764000000000 -- $$c/opencode/opencode.db >/dev/null; done; \
	for i in 1 2 3 4 5 6 7 8 9 10; do for q in $(PGO_QUERIES); do \
	  RECALL_CPUPROFILE_DIR=$(PGO_DIR)/prof ./$(BIN) --no-update --index-dir $(PGO_DIR)/index $$q >/dev/null 2>&1 || [ $$? = 1 ]; done; done
	$(GO) tool pprof -proto $(PGO_DIR)/prof/recall-[0-9]*.pprof > cmd/recall/default.pgo
	$(GO) tool pprof -proto $(PGO_DIR)/prof/recall-opencode-*.pprof > cmd/recall-opencode/default.pgo

## eval: ranking quality on the relevance set (hit@1, hit@5, MRR)
eval:
	$(GO) run ./cmd/recall-eval

## install: go install recall, recall-mcp, recall-opencode and recall-hint into $GOBIN
install:
	$(GO) install -ldflags '$(LDFLAGS)' ./cmd/recall ./cmd/recall-mcp ./cmd/recall-opencode
	$(GO) install -ldflags '-s -w' ./cmd/recall-hint

clean:
	rm -rf bin
