# Voicebox. `make run` opens the app, `make test` runs every test layer; both install what is missing.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin
TAGS    := desktop,production,webkit2_41
BIN     := build/bin/voicebox
WINDOW  := build/bin/voicebox-desktop
GO      ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# make fuzz runs each target for FUZZTIME of wall clock; make test runs each for a fixed number of executions
# (FUZZTIME=20000x), so the gate never depends on the clock (Go 1.26's time-bounded fuzzing can fail at
# random under load: golang/go#75804).
FUZZTIME ?= 10s
GATE_FUZZ ?= 20000x
# Every go command here builds with -trimpath, the release build's flag, so vet, the tests and the fuzz runs
# reuse the packages `make build` compiled (a flag of its own would compile Wails and WebKitGTK's cgo again:
# about 165 s of CPU on an empty Go cache, measured with /usr/bin/time on this 2-core machine).
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

.PHONY: run build serve package test test-suites-lane test-unit test-native test-race test-alloc \
	test-fuzz test-vet test-package test-suites test-js fuzz bench deps deps-test clean wails-dev

run: build
	./$(BIN)

# Two programs side by side (docs/architecture.md, "Two programs"): voicebox-desktop, the window's (the
# module's root, GTK and WebKitGTK), and voicebox, the one people and MCP clients start, built without cgo
# so that it links neither; it becomes voicebox-desktop for the window.
build: deps
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(WINDOW) .
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/voicebox

serve: build
	./$(BIN) serve

# build/voicebox_<version>_<arch>.deb and the .rpm beside it, from the programs `make build` leaves, written by
# nfpm in scripts/package: a module of its own, so nfpm never enters the app's build. tests/packaging checks them.
package: build
	rm -f build/voicebox_*.deb build/voicebox-*.rpm
	$(GO) -C scripts/package run . -bin $(CURDIR)/$(BIN) -version $(VERSION) -out $(CURDIR)/build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

# Every layer: the Go packages under -race, a fuzz run of each target bounded by executions (never by time),
# vet, the suites that drive the real binary or WebKit (browsers, the desktop under Xvfb, the guard's lab,
# the packages), and the JavaScript twins.
#
# Two lanes. The suites' lane, at full priority: apt, the release build, then the suites one at a time (they
# wait on browsers and desktops most of the time: about a third of a core over some 7 minutes). Beside it,
# under nice 19, so the suites get a core whenever they ask and this work takes only what they leave idle:
# - from the start, the race tests, the fuzz runs and the packager's checks. None needs apt (none builds
#   against GTK or WebKitGTK; NATIVE do), so on a fresh machine they run while apt waits on the network;
# - once the build is done, vet and the allocation test, which reuse its packages.
# On an empty Go cache that compiling (some 700 s of CPU) so leaves the critical path: a clean clone's .ci/run
# took 12 m 14 s with it before the suites and 9 m 13 s with it beside them (the suites ~45 s slower).
# Where cc or node is missing, apt goes first.
BESIDE := nice -n 19 $(MAKE) --no-print-directory

test:
	@mkdir -p build
	@command -v cc >/dev/null && command -v node >/dev/null || scripts/deps.sh test packages
	@scripts/deps.sh test modules
	@$(BESIDE) test-race test-fuzz test-package > build/test-beside.log 2>&1 & beside=$$!; \
	  $(MAKE) --no-print-directory test-suites-lane; suites=$$?; \
	  wait $$beside; beside=$$?; cat build/test-beside.log; [ $$suites = 0 ] && [ $$beside = 0 ]
	$(MAKE) --no-print-directory test-js

test-suites-lane:
	@scripts/deps.sh test packages
	$(MAKE) --no-print-directory build
	@$(BESIDE) test-vet test-alloc > build/test-vet.log 2>&1 & vet=$$!; \
	  $(MAKE) --no-print-directory test-suites; suites=$$?; \
	  wait $$vet; vet=$$?; cat build/test-vet.log; [ $$suites = 0 ] && [ $$vet = 0 ]

# The packages that build against GTK and WebKitGTK, and the suites in tests/ (they drive the release binary
# or a browser). They run one at a time (-p 1), so two browsers or desktops never share the two cores, and
# without -race: the binary they drive is the release build either way, and a race build of Wails' and
# WebKitGTK's cgo would cost minutes on a fresh machine. vet runs once, so the test runs skip it (-vet=off).
NATIVE := . ./backend/guard/... ./backend/instance ./backend/trace/webview
UNIT    = $$($(GO) list -tags $(TAGS) ./... | grep -v -e '/tests/' -e '/backend/guard' -e '/backend/instance' \
            -e '/backend/trace/webview' -e 'voicebox/voicebox$$')

test-unit: test-race test-alloc test-fuzz

test-native: build test-vet test-package test-suites

# VOICEBOX_REQUIRE_MCPAPPS: the published MCP Apps example server (scripts/deps.sh installs it) must run.
test-race:
	VOICEBOX_REQUIRE_MCPAPPS=1 $(GO) test -race -vet=off -tags $(TAGS) -timeout 15m $(UNIT)

# Under -race sync.Pool drops items at random, so the allocation test skips there and runs here, plain.
test-alloc:
	$(GO) test -count=1 -run 'DoesNotAllocate' ./backend/toolcontract

test-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(GATE_FUZZ)

test-vet:
	$(GO) vet -tags $(TAGS) ./...

# scripts/package is a module of its own (nfpm); tests/packaging runs it on the release binary.
test-package:
	$(GO) -C scripts/package vet ./...
	$(GO) -C scripts/package test -vet=off ./...

test-suites: build
	VOICEBOX_BIN=$(CURDIR)/$(BIN) $(GO) test -p 1 -vet=off -tags $(TAGS) -timeout 20m $(NATIVE) ./tests/...

test-js:
	node --test $$(git ls-files '*.test.mjs')

fuzz:
	@for f in $$(git grep -l '^func Fuzz' -- '*_test.go'); do \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "fuzz ./$$(dirname $$f) $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) ./$$(dirname $$f) || exit 1; \
	  done; \
	done

# Go benchmarks (store discovery beside find, argument validation beside jsonschema/v5), then the sandbox's
# round trip in headless Chromium beside a bare relay through the same frames, then an app's echo through
# MCP beside list_mini_apps (the Go ↔ room hop) in serve and in the desktop window under Xvfb, then the
# desktop's cold start by stage, memory, watchdog recovery and second launch beside WebKitGTK's MiniBrowser.
bench: deps-test build
	$(GO) test -run '^$$' -bench . -benchmem -tags $(TAGS) ./backend/...
	VOICEBOX_BIN=$(CURDIR)/$(BIN) VOICEBOX_BENCH=1 $(GO) test -count=1 -tags $(TAGS) -run 'TestBenchmark(RoundTrip|MCP|Authoring)' -v ./tests/e2e
	VOICEBOX_BIN=$(CURDIR)/$(BIN) VOICEBOX_BENCH=1 $(GO) test -count=1 -tags $(TAGS) -timeout 30m -run 'TestBenchmark(MCP|Desktop)' -v ./tests/desktop

# The compatibility table (tests/compat, docs/webmcp.md): every page of the corpus as a plain page and as a
# mini-app, in Chromium and WebKitGTK. `make test` runs a few of its pages in Chromium.
compat: deps-test build
	VOICEBOX_BIN=$(CURDIR)/$(BIN) VOICEBOX_COMPAT=full $(GO) test -count=1 -v -tags $(TAGS) -run TestCompat -timeout 20m ./tests/compat

# Contributors with the Wails CLI can use live reload; see README.
wails-dev:
	wails dev -tags webkit2_41

clean:
	rm -rf build/bin build/voicebox_*.deb build/voicebox-*.rpm
