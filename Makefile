# Two entry points (see README):  make reproduce  |  make test
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
MIRROR ?= ../shared/datasets
# Optional HTTP(S) mirror with the same layout (<url>/<group>/<file>), tried before upstream URLs.
MIRROR_URL ?=
BIN    := $(VENV)/bin
# Data sources: the local mirror folder when it exists (else "no mirror folder": `mirror_dir=`
# reaches the config as null, which the schema accepts), then MIRROR_URL, then the upstream
# URLs; every file is sha256-verified whichever way it comes.
DATA_CONFIG := mirror_dir=$(if $(wildcard $(MIRROR)),$(abspath $(MIRROR)),) \
               $(if $(MIRROR_URL),mirror_url=$(MIRROR_URL),)
MIRROR_ARG := --config $(strip $(DATA_CONFIG))
# Another config on top of config/config.yaml: make reproduce CONFIG=config/quick.yaml
CONFIG ?=
CONFIG_ARG := $(if $(CONFIG),--configfile $(CONFIG),)

.PHONY: setup reproduce report test lint mutation benchmarks clean

$(BIN)/.installed: envs/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r envs/requirements.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

setup: $(BIN)/.installed

# After an interrupted run: a stale lock is removed (or the live run holding the folder is
# named, and nothing runs), and the jobs the interrupted run left incomplete run again.
reproduce: setup  ## set up, then run the whole pipeline (rule all); resumes an interrupted run
	$(BIN)/python -m crowdpriv.resume -- $(CONFIG_ARG) $(MIRROR_ARG)
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete $(CONFIG_ARG) $(MIRROR_ARG)

# The report renders its captions from the config of the run that wrote results/
# (results/run_config.yaml, written by the pipeline), whatever config that run used.
report: setup  ## Snakemake's HTML report of every table and figure (after reproduce)
	@test -f results/run_config.yaml || { echo "no results/run_config.yaml: run make reproduce first"; exit 2; }
	$(BIN)/snakemake --report results/report.html --report-stylesheet workflow/report/report.css \
		--configfile results/run_config.yaml $(MIRROR_ARG)

lint: setup
	$(BIN)/snakefmt --check Snakefile workflow/
	$(BIN)/snakemake --lint
	$(BIN)/snakemake -n --quiet rules

# The fast unit tests, and beside them the end-to-end runs in two more processes (tests/run_suites.py:
# their logs follow once the fast tests pass, each test named; a failing fast test stops all).
test: setup  ## set up, then run the checks and the test suite (unit and end-to-end side by side)
	$(MAKE) --no-print-directory lint
	$(BIN)/python tests/run_suites.py

mutation: setup  ## mutation score of the claims code and the mechanisms (not part of make test)
	$(BIN)/python tests/mutation/mutate.py --jobs $(CORES)

# KDEm checkout for the PrisCrowd phase-1 comparison (github.com/MengtingWan/KDEm); optional
KDEM ?=

benchmarks: setup  ## CPU per job of the last run, then speed and memory side by side (not tests)
	-$(BIN)/python benchmarks/reproduction_cpu.py results
	$(BIN)/python benchmarks/inference.py
	$(BIN)/python benchmarks/ldp_scale.py
	$(if $(KDEM),$(BIN)/python benchmarks/priscrowd_phase1.py --kdem-repo $(KDEM),@echo "KDEM=<KDEm checkout> to compare PrisCrowd phase 1 with KDEm (needs data/processed/population)")

clean:
	rm -rf results data/raw data/processed .snakemake
