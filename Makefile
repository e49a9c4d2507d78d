# Two commands do all the set-up: `make test` and `make bench`.
# Both bootstrap .venv themselves and are no-ops for the install when
# pyproject.toml has not changed (stamp file keyed on its hash).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
PILLOW_SIMD := pillow-simd==12.1.1.post0
STAMP := $(VENV)/.stamp-$(shell (cat pyproject.toml; echo $(PILLOW_SIMD)) | sha256sum | cut -c1-16)
SIZE ?= quick
TARGETS ?=
export PYTHONHASHSEED := 0

.PHONY: venv test bench clean-venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@flock /tmp/rabench-venv.lock bash scripts/bootstrap.sh "$(PYTHON)" "$(VENV)" "$(PILLOW_SIMD)"
	@rm -f $(VENV)/.stamp-*
	@touch $@

test: venv
	@bash scripts/ensure-chromium.sh
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

bench: venv
	$(PY) -m rabench bench --size $(SIZE) $(if $(TARGETS),--targets "$(TARGETS)")

clean-venv:
	rm -rf $(VENV)
