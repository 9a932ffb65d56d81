# arbor: see README.md. `make check` is what CI runs.
GO        ?= go
PKGS      ?= ./...
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME  ?= 30s

.PHONY: check fmt-check vet lint imports refs test race bench fuzz fuzz-long build btai-table dsprites-table interrupt-soak peb-recovery

check: fmt-check vet lint imports refs race

build:
	$(GO) build $(PKGS)

fmt-check:
	@out=$$(gofmt -s -l . ); if [ -n "$$out" ]; then echo "gofmt -s needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

lint:
	$(STATICCHECK) $(PKGS)

# The import-DAG check of docs/architecture.md, after its self-test (known
# good and forbidden edges fed to the checker).
imports:
	@bash .ci/importcheck.sh --selftest
	@bash .ci/importcheck.sh

# The repository stands alone: no source or document refers to files
# outside it or to how the project's work is organised.
refs:
	@out=$$(grep -rnE 'DESIGN\.md|shared/|the issue|[Ii]ssues? [0-9]|issue.s ' --include='*.go' --include='*.md' --include='*.sh' --include='run' . ); \
	if [ -n "$$out" ]; then echo "references outside the repository:"; echo "$$out"; exit 1; fi

test:
	$(GO) test -short $(PKGS)

race:
	$(GO) test -race -short $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Every fuzz target for 10 minutes (an hour and a half in all); inputs
# that fail go to each package's testdata/fuzz.
fuzz-long:
	$(MAKE) fuzz FUZZTIME=10m

# Runs every fuzz target for FUZZTIME each (go test allows one target per run).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# Regenerates the BTAI results tables of docs/btai.md: every shipped maze
# (20 seeds, for the presets and novelty) and the short epistemic tasks
# (1,000 fresh trials and 100 learning agents of 10 trials per task and
# planner); all cores, about 19 minutes of CPU (7 for the mazes), so about
# 10 minutes on two otherwise idle cores.
btai-table:
	BTAI_TABLE=write $(GO) test ./btai -run '^(TestResultsTable|TestShortTaskTable)$$' -count=1 -timeout 120m -v

# Regenerates the dSprites table of docs/btai.md (bench/dsprites_table.sh:
# 1,000 trials per setting for arbor's BTAI at the BTAI_3MF author's
# settings, 200 for the NumPy peer of the author's agent, arbor's default
# preset and aci), then checks the published rates at the author's
# settings (TestDSpritesPublished). About 15 minutes on a loaded 2-core
# machine, most of it the default preset and the peer.
dsprites-table:
	$(GO) build -o .dsprites-arbor ./cmd/arbor
	bash bench/dsprites_table.sh ./.dsprites-arbor > .dsprites-table.md
	awk 'FNR == NR { t = t $$0 "\n"; next } /<!-- dsprites-table end -->/ { printf "%s", t; skip = 0 } !skip { print } /<!-- dsprites-table begin -->/ { skip = 1 }' \
	  .dsprites-table.md docs/btai.md > .dsprites-btai.md && mv .dsprites-btai.md docs/btai.md
	rm -f .dsprites-arbor .dsprites-table.md
	$(GO) test -count=1 -v -run 'TestDSpritesPublished' ./cmd/arbor/

# 50 SIGINT and 50 SIGTERM at random moments of every long command (about
# 15 minutes; CI sends 5 of each).
interrupt-soak:
	ARBOR_INTERRUPT_SOAK=1 $(GO) test -count=1 -timeout 60m -v -run TestInterruptOutputs ./cmd/arbor/

# The group level's recovery (docs/fitting.md, "Groups"): 20 simulated
# studies of 60 subjects at 30 trials (10 with a group effect on ln α, 10
# without) and 10 at 8 trials for the shrinkage; about 3.5 minutes on 2
# cores, beyond what CI's long tests take.
peb-recovery:
	$(GO) test -count=1 -v -run 'TestPEBRecovery' ./fit/
