# Two commands do all the set-up: `make test` and `make bench`.
# Both bootstrap .venv themselves and are no-ops for the install when
# pyproject.toml has not changed (stamp file keyed on its hash).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
PILLOW_SIMD := pillow-simd==12.1.1.post0
STAMP := $(VENV)/.stamp-$(shell (cat pyproject.toml constraints.txt scripts/bootstrap.sh; echo $(PILLOW_SIMD)) | sha256sum | cut -c1-16)
SIZE ?= quick
TARGETS ?=
REAL ?=
RUN_ID ?=
export PYTHONHASHSEED := 0

.PHONY: venv test test-fast lint bench clean-venv lock

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt scripts/bootstrap.sh
	@flock /tmp/rabench-venv.lock bash scripts/bootstrap.sh "$(PYTHON)" "$(VENV)" "$(PILLOW_SIMD)"
	@rm -f $(VENV)/.stamp-*
	@touch $@

test: venv
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-redis.sh
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

# The edit loop: everything but the `slow` tests and the lint (ruff, vulture, mypy); `make test` runs all.
test-fast: venv
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-redis.sh
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow and not lint" $(PYTEST_ARGS)

lint: venv
	$(PY) -m pytest -q -p no:cacheprovider -m lint tests/test_lint.py tests/test_types.py

bench: venv
	$(PY) -m rabench bench --size $(SIZE) $(if $(SUITE),--kind $(SUITE)) $(foreach t,$(TARGETS),--target $(t)) $(if $(REAL),--real "$(REAL)") $(if $(RUN_ID),--run-id "$(RUN_ID)")

clean-venv:
	rm -rf $(VENV)

# Re-resolve dependencies to their newest allowed versions and record them in constraints.txt.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock && .venv-lock/bin/python -m pip install -q --upgrade pip
	.venv-lock/bin/python -m pip install -q -e '.[test]'
	{ head -2 constraints.txt; .venv-lock/bin/python -m pip freeze --exclude-editable | grep -v -iE '^(pillow|pillow-simd|rabench)[=@ ]'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt && rm -rf .venv-lock
