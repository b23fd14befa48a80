# The two set-up commands of the README:
#   make demo   builds amem, fetches the sentence model and runs a short demo
#   make test   fetches the sentence model and runs vet and the race-enabled tests
# and the evaluation lab, a binary of its own (it links package eval and its plots):
#   make lab    builds bin/amem-eval
GO ?= go

.PHONY: build lab demo test model bench

# The product is built without the debug tables (-s -w; stack traces keep
# their function names and lines) and without the build machine's paths.
# grpcnotrace: gRPC, linked by the OTLP trace exporter, then leaves out
# golang.org/x/net/trace, whose html/template would make the linker keep
# every exported method of every linked type (about 9 MB).
RELEASE ?= -trimpath -tags grpcnotrace -ldflags='-s -w'

build:
	$(GO) build $(RELEASE) -o bin/amem ./cmd/amem

lab:
	$(GO) build $(RELEASE) -o bin/amem-eval ./cmd/amem-eval

model: build
	./bin/amem model pull

demo: model
	./scripts/demo.sh

test: model
	$(GO) vet ./...
	# cmd/amem starts real servers and CLI processes: 7 min under -race on the
	# busy 2-core VM (2026-12-06), past go test's default 10 min when the
	# machine is loaded, so each package gets 25 min.
	AMEM_TEST_REAL_PULL=1 $(GO) test -race -timeout 25m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...
