# Tally: `make run` serves on the local PostgreSQL; `make test` runs every check.
SHELL := /bin/bash
CARGO ?= cargo

# `make run` keeps a random development JWT secret and admin password in this
# git-ignored file, made once on first use; no secret is written in the project.
DEV_ENV := .dev.env
DEV_ADMIN_EMAIL := admin@tally.local

DOMAIN_CRATES := shared-kernel identity-domain crm-domain order-domain warehouse-domain reference-data bulk-data
IO_CRATES := diesel diesel-async tokio-postgres actix-web redis deadpool tokio
# One domain crate per bounded context: none may depend on another context's (shared-kernel,
# reference-data and event-contracts, where the events crossing a boundary live, are shared and allowed).
CONTEXT_DOMAIN_CRATES := identity-domain crm-domain order-domain warehouse-domain
# The bounded contexts; each has `<context>-domain` and its PostgreSQL adapter crate `<context>-postgres`. An
# adapter crate may depend on its own domain crate, the toolkit and the shared crates, never on another
# context's domain or adapter crate (docs/architecture.md). Analytics (docs/adr/0005) and webhooks are
# read models and integrations, not contexts.
CONTEXTS := identity crm order warehouse
ADAPTER_CRATES := $(addsuffix -postgres,$(CONTEXTS)) postgres-toolkit analytics-postgres webhooks

.PHONY: run test lint fmt check-boundaries domain-docs examples unit integration contract fuzz crash-check abuse bench bench-http bench-analytics bench-import services

$(DEV_ENV):
	@umask 077; random() { head -c 64 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c "$$1"; }; \
	{ echo "DEV_JWT_SECRET=$$(random 48)"; echo "DEV_ADMIN_PASSWORD=$$(random 20)"; } > $@
	@echo "make run: generated a development JWT secret and admin password in $(DEV_ENV)"

run: services $(DEV_ENV)
	@dev() { sed -n "s/^$$1=//p" $(DEV_ENV); }; \
	echo "make run: development admin $(DEV_ADMIN_EMAIL) / $$(dev DEV_ADMIN_PASSWORD) (from $(DEV_ENV); development only)"; \
	JWT_SECRET="$${JWT_SECRET:-$$(dev DEV_JWT_SECRET)}" \
	ADMIN_EMAIL="$${ADMIN_EMAIL:-$(DEV_ADMIN_EMAIL)}" \
	ADMIN_PASSWORD="$${ADMIN_PASSWORD:-$$(dev DEV_ADMIN_PASSWORD)}" \
	$(CARGO) run --release -p api --bin tally -- serve

test: lint check-boundaries services domain-docs
	$(CARGO) test --workspace --all-targets
	$(MAKE) examples
	$(MAKE) contract

# The domain crates as another Rust service reads them: their docs built with every warning denied,
# and their doctests run, with the in-memory adapters and contract suites in (features memory, contract).
domain-docs:
	RUSTDOCFLAGS=-Dwarnings $(CARGO) doc --no-deps --all-features $(addprefix -p ,$(DOMAIN_CRATES) event-contracts)
	$(CARGO) test --doc --all-features $(addprefix -p ,$(DOMAIN_CRATES) event-contracts)

# Every domain crate's example, run on its in-memory adapters: no database, no network.
DOMAIN_EXAMPLES := identity-domain:onboarding crm-domain:sales_pipeline order-domain:order_lifecycle warehouse-domain:stock_flow warehouse-domain:purchasing
examples:
	@for example in $(DOMAIN_EXAMPLES); do \
	  crate=$${example%%:*}; name=$${example##*:}; \
	  echo "example $$name ($$crate)"; \
	  $(CARGO) run --quiet -p $$crate --features memory --example $$name >/dev/null || exit 1; \
	done

# The published OpenAPI document proved from outside: a validator, a generated Python client and a
# short flow with it against a real server (tools pinned in tests/contract/requirements.txt).
contract: services
	bash tests/contract/check.sh

# Property-based fuzzing of every operation with schemathesis against a real server, every check,
# bounded by FUZZ_SECONDS (default 600). Not part of `make test`: it is slow and randomized.
FUZZ_SECONDS ?= 600
fuzz: services
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/contract/fuzz.sh

# The order flow's guarantees across a SIGKILL, from outside: two release instances on a throw-away
# database, one killed mid-storm and restarted; exits 1 if an order is lost, reserved twice or stock is
# oversold (tests/crash/check.sh), or if confirmations, purchase order receipts and transfers storming
# the same stock oversell, receive past what was ordered, make or lose a unit or miss a stock alert
# (tests/crash/mixed.sh), or if an import job killed half-way, on one instance and on three, on both
# buses, does not resume within 60 s or does a row twice or not at all (tests/crash/imports.sh).
# Not part of `make test`: it builds the release binary.
crash-check: services
	bash tests/crash/check.sh
	bash tests/crash/mixed.sh
	bash tests/crash/imports.sh

# Hostile load from outside, all at once, against the release binary on a throw-away database (stalled
# and trickled bodies, error-list bombs, health and made-up-key floods) while a good client keeps working;
# exits 1 if it saw an error or the server passed 256 MiB (tests/abuse/check.sh, docs/abuse.md). Not part
# of `make test`: it builds the release binary. DURATION (seconds, 30); BIN runs a given binary instead.
abuse: services
	bash tests/abuse/check.sh

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

# Domain crates must not reach I/O, no context's domain crate may reach another context's, no context's
# adapter crate may reach another context's domain or adapter crate, and no domain crate may reach an
# adapter crate or the toolkit: prove all four from the dependency graph.
check-boundaries:
	@for crate in $(DOMAIN_CRATES); do \
	  deps=$$($(CARGO) tree -e normal -p $$crate --prefix none | awk '{print $$1}' | sort -u) || exit 1; \
	  for dep in $(IO_CRATES); do \
	    if grep -qx "$$dep" <<<"$$deps"; then echo "boundary violation: $$crate depends on $$dep"; exit 1; fi; \
	  done; \
	done; echo "domain crates are free of I/O dependencies"
	@for crate in $(CONTEXT_DOMAIN_CRATES); do \
	  deps=$$($(CARGO) tree -e normal -p $$crate --prefix none | awk '{print $$1}' | sort -u) || exit 1; \
	  for other in $(CONTEXT_DOMAIN_CRATES); do \
	    if [ "$$other" != "$$crate" ] && grep -qx "$$other" <<<"$$deps"; then \
	      echo "boundary violation: $$crate depends on $$other (contexts meet through contracts)"; exit 1; \
	    fi; \
	  done; \
	done; echo "no context's domain crate depends on another context's"
	@for ctx in $(CONTEXTS); do \
	  deps=$$($(CARGO) tree -e normal -p $$ctx-postgres --prefix none | awk '{print $$1}' | sort -u) || exit 1; \
	  for other in $(CONTEXTS); do \
	    [ "$$other" = "$$ctx" ] && continue; \
	    for dep in $$other-domain $$other-postgres; do \
	      if grep -qx "$$dep" <<<"$$deps"; then \
	        echo "boundary violation: $$ctx-postgres depends on $$dep (contexts meet through ports wired in api, or events)"; exit 1; \
	      fi; \
	    done; \
	  done; \
	done; echo "no context's adapter crate depends on another context's domain or adapter crate"
	@for crate in $(DOMAIN_CRATES) event-contracts; do \
	  deps=$$($(CARGO) tree -e normal -p $$crate --prefix none | awk '{print $$1}' | sort -u) || exit 1; \
	  for dep in $(ADAPTER_CRATES); do \
	    if grep -qx "$$dep" <<<"$$deps"; then echo "boundary violation: $$crate depends on $$dep (adapters depend on domains, not back)"; exit 1; fi; \
	  done; \
	done; echo "no domain crate depends on an adapter crate or the toolkit"

# The benchmarks a maintainer runs before a release: figures only, nothing asserted (docs/performance.md).
bench: bench-http bench-analytics

# From outside with wrk against the release binary on a throw-away database: start-up, the hot paths with
# the outbox lag, lists over 10^6 customers, the order flow end to end, peak memory (tests/bench/run.sh).
bench-http: services
	bash tests/bench/run.sh

# Analytics latency (median, p99) over 100k customers, 200k deals and 500k interactions in a throw-away
# database; prints figures, asserts nothing (docs/analytics.md).
bench-analytics: services
	$(CARGO) run --release -p tally-tests --bin bench_analytics

# Bulk data side by side with PostgreSQL's COPY in the same run: 100 000 customers imported from CSV,
# 10^6 exported, tally's peak memory through both; prints figures, asserts nothing
# (tests/bench/import.sh, docs/imports-and-exports.md).
bench-import: services
	bash tests/bench/import.sh

# Starts PostgreSQL and Redis if they are not running (the machine's own commands).
services:
	@pg_isready -h 127.0.0.1 -p 5432 -q || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
