# The two commands of the README:
#   make demo   build and run the demo (embedded broker, generated pages)
#   make test   a build for macOS and Windows, gofmt check, go vet, the race-enabled
#               test suite, and a short run of every fuzz target (TEST_FUZZTIME
#               executions each; make fuzz runs FUZZTIME each, longer:
#               make fuzz FUZZTIME=10000000x)
GO ?= go
# A count, not a duration: with a duration Go 1.26's fuzz coordinator can fail a
# clean run with "context deadline exceeded" at the deadline (golang/go#75804,
# fixed in Go 1.27).
FUZZTIME ?= 100000x
# make test's fuzz step: each target's seed corpus and this many generated
# inputs, under a minute for the eleven targets on a 2-core machine against
# 3 min for FUZZTIME's 100,000; the long runs are make fuzz's.
TEST_FUZZTIME ?= 10000x

# package:FuzzTarget pairs
FUZZ_TARGETS = ./stream/prepare:FuzzDecode ./stream/prepare:FuzzDecodeFast ./stream/prepare:FuzzDetect ./lsh/clean:FuzzHTML ./lsh/clean:FuzzText \
	./lsh:FuzzShingles ./lsh:FuzzDecodeSignature ./state:FuzzDecodeRecord ./state:FuzzMarker ./offline/lab/corpus:FuzzReadReuters \
	./stream/shard:FuzzDecodeLogRecord

# GOOS/GOARCH pairs that "make cross" (part of make test) builds the module for:
# the laptops people try a Go tool on.
CROSS_TARGETS = darwin/arm64 windows/amd64

.PHONY: demo test cross unit fuzz build bench

demo:
	$(GO) run ./cmd/dedupstream demo

test: FUZZTIME = $(TEST_FUZZTIME)
test: cross fuzz unit

# build only: the tests of the module run on Linux (make unit)
cross:
	@for t in $(CROSS_TARGETS); do \
	  echo "build ./... for $$t"; \
	  GOOS=$${t%%/*} GOARCH=$${t#*/} $(GO) build ./... || exit 1; \
	done

unit:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags crashpoint ./cmd/dedupstream # the crash hook (crashpoint.go, stream/crashpoint) the crash tests build in
	@# -timeout: cmd/dedupstream's real-process tests take ~2.5 min on a quiet 2-core
	@# machine, and can take more than go test's default 10 min per package on a
	@# loaded one
	$(GO) test -race -count=1 -timeout 30m ./...

build:
	$(GO) build -o dedupstream ./cmd/dedupstream

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	@log=$$(mktemp); for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t#*:} in $${t%%:*} for $(FUZZTIME)"; \
	  if ! $(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}" >$$log 2>&1; then \
	    cat $$log; rm -f $$log; exit 1; fi; \
	done; rm -f $$log
