# Two entry points (see README):  make reproduce  |  make test
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
MIRROR ?= ../shared/datasets
BIN    := $(VENV)/bin
# Use the local data mirror when it exists; otherwise every raw file is downloaded (sha256-checked).
MIRROR_ARG := $(if $(wildcard $(MIRROR)),--config mirror_dir=$(abspath $(MIRROR)),--config mirror_dir=)

.PHONY: setup reproduce report test lint mutation clean

$(BIN)/.installed: envs/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r envs/requirements.txt
	touch $@

setup: $(BIN)/.installed

reproduce: setup  ## set up, then run the whole pipeline (rule all)
	$(BIN)/snakemake --cores $(CORES) $(MIRROR_ARG)

report: setup  ## Snakemake's HTML report of every table and figure (after reproduce)
	$(BIN)/snakemake --report results/report.html $(MIRROR_ARG)

lint: setup
	$(BIN)/snakefmt --check Snakefile workflow/
	$(BIN)/snakemake --lint
	$(BIN)/snakemake -n --quiet rules

test: setup  ## set up, then run the checks and the test suite (unit + end-to-end)
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest -q

mutation: setup  ## mutation score of the claims code (not part of make test; ~10 min)
	$(BIN)/python tests/mutation/mutate.py --jobs $(CORES)

clean:
	rm -rf results data/raw data/processed .snakemake
