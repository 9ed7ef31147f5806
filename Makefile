# The two commands of the README:
#   make demo   build and run the demo (embedded broker, generated pages)
#   make test   gofmt check, go vet, and the race-enabled test suite
GO ?= go

.PHONY: demo test build bench fuzz

demo:
	$(GO) run ./cmd/dedupstream demo

test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

build:
	$(GO) build -o dedupstream ./cmd/dedupstream

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test ./stream -run '^$$' -fuzz FuzzDecode -fuzztime 30s
