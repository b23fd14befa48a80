# The two set-up commands of the README:
#   make demo   builds amem, fetches the sentence model and runs a short demo
#   make test   fetches the sentence model and runs vet and the race-enabled tests
GO ?= go

.PHONY: build demo test model bench

build:
	$(GO) build -o bin/amem ./cmd/amem

model: build
	./bin/amem model pull

demo: model
	./scripts/demo.sh

test: model
	$(GO) vet ./...
	AMEM_TEST_REAL_PULL=1 $(GO) test -race ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...
