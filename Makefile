# sf: deterministic simulation testing for Go services.
GO ?= go
BIN := bin
TOOLS := sf-build sf-run sf-check

.PHONY: all build test test-long demo bench vet clean

all: build

build:
	@mkdir -p $(BIN)
	@for t in $(TOOLS); do if ls cmd/$$t/*.go >/dev/null 2>&1; then $(GO) build -o $(BIN)/$$t ./cmd/$$t || exit 1; fi; done

vet:
	$(GO) vet ./... ./sim/... ./examples/...

test: build
	$(GO) test -short -count=1 ./... ./sim/... ./examples/...

clean:
	rm -rf $(BIN) .seedfall
