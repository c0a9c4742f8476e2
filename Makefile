# Set-up and everyday commands. `make run` and `make test` create the environment when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
CORES ?= all
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run update refit bench-placement test test-backends test-config test-fast lint format browser slurm lock clean reset-topic-ids docs quality bench bench-quality bench-scale bench-changes bench-trajectories bench-venue-families bench-people bench-reception bench-small-corpora bench-report js-test js-lint bench-big-dumps bench-bridges bench-identifier-agreement bench-robustness bench-robustness-cost

$(INSTALLED): requirements.txt requirements-test.txt constraints.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first and alone: the CPU build, not a multi-GB CUDA build pulled in as a dependency.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-test.txt -c constraints.txt
	# UMAP's numba kernels compiled once, into numba's cache, by a tiny fit through papertopics' own
	# reduce code: the first run's reduce and consensus_run jobs would each compile them, side by side.
	PYTHONPATH=workflow $(BIN)/python -m papertopics.runtime.warm
	touch $@

# `make run CONFIGFILE=other.yaml` takes that file's values over config.yaml's. It is checked first:
# Snakemake reads a --configfile before the workflow starts, and its message names neither the file nor the line.
CONFIGFILE ?=
run: $(INSTALLED)
	$(if $(CONFIGFILE),PYTHONPATH=workflow $(BIN)/python -m papertopics.runtime.startup $(CONFIGFILE))
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete $(if $(CONFIGFILE),--configfile $(CONFIGFILE))
	@echo "Report: $(CURDIR)/results/report/index.html"

# A new dump placed on the last good run's fitted map (update: place, docs/placement.md), or
# everything fitted afresh (update: refit, config.yaml's default), whatever config.yaml says.
update: $(INSTALLED)
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete --config update=place
	@echo "Report: $(CURDIR)/results/report/index.html"

refit: $(INSTALLED)
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete --config update=refit
	@echo "Report: $(CURDIR)/results/report/index.html"

# Debian's chromium for the browser tests (Playwright drives it; it never downloads a browser),
# a small CJK font so that Chinese or Japanese dump titles render in screenshots, and poppler's
# pdftotext, which reads back the printed brief.
browser:
	@{ command -v chromium >/dev/null && command -v pdftotext >/dev/null && fc-list | grep -q "Droid Sans Fallback"; } || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends chromium chromium-driver fonts-droid-fallback poppler-utils; }

# Debian's SLURM and munge for tests/test_slurm.py, which starts its own single-node cluster
# (munged, slurmctld, slurmd) and stops the daemons it started; nothing here starts a service.
slurm:
	@{ command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; } || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends slurm-wlm munge; }

# Three pytest-xdist workers on the two cores (the SLURM sequence mostly waits; tests/conftest.py),
# a test module at a time each (its fixtures built once; the runs every module shares are built
# once for all, tests/conftest.py's built_once). The 25 slowest test
# phases (set-up included: the shared runs are fixtures) close CI's log.
PYTEST_ALL := $(BIN)/python -m pytest --numprocesses 3 --dist loadfile --no-loadscope-reorder --durations=25
test: $(INSTALLED) browser slurm js-lint js-test
	$(PYTEST_ALL)

# The whole suite twice, the embedding backend forced to torch (fp32) and then to torch-bf16 in every
# workflow run the tests make (tests/workflow_support.py): a small corpus's topics move with the
# vectors, and the suite must pass whichever backend `auto` picks on a user's CPU.
test-backends: $(INSTALLED) browser slurm js-lint js-test
	PAPERTOPICS_TEST_BACKEND=torch $(PYTEST_ALL)
	PAPERTOPICS_TEST_BACKEND=torch-bf16 $(PYTEST_ALL)

# The catalog's test configuration (.test/config.yaml): shards, a guide file; results in .test/results.
test-config: $(INSTALLED)
	$(BIN)/snakemake --directory .test --cores $(CORES) --rerun-incomplete

test-fast: $(INSTALLED) js-test
	$(BIN)/python -m pytest -m "not slow and not browser"

# The report's JavaScript (workflow/papertopics/report/assets, ES modules the report stage bundles
# into the page): ESLint and the unit tests under Node's own runner (Node 20.19 or newer). npm
# installs the pinned linter from package-lock.json; nothing here is needed to build or open a report.
NODE_MODULES := node_modules/.package-lock.json
$(NODE_MODULES): package.json package-lock.json
	npm ci
	touch $@

js-test:
	node --test tests/js/

js-lint: $(NODE_MODULES)
	node_modules/.bin/eslint

# Topic quality on the labelled corpora (../shared/corpora): ours vs BERTopic's defaults vs TF-IDF + k-means,
# against a supervised classifier and k-means on the embeddings, with seed stability (five UMAP seeds).
# Writes bench/quality.md/json (both corpora), bench/quality-ablations.md/json (IJCAI, each default
# taken back in turn) and bench/quality-labels.md/json (how well the labels name their topics, and
# the labels kept across a rerun); embeddings are cached in the system's temporary folder.
IJCAI := ../shared/corpora/ijcai_2020_2024_areas.jsonl.gz
CORPORA ?= $(IJCAI) ../shared/corpora/arxiv_cs_daily_2025_2026.jsonl.gz
# The labels are also scored against the keywords the authors of COLM and CoRL papers typed.
LABEL_CORPORA ?= $(IJCAI) ../shared/corpora/openreview_free_keywords.jsonl.gz
quality: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.quality --no-ablations $(CORPORA)
	PYTHONPATH=workflow $(BIN)/python -m bench.quality --no-stability --guided --output bench/quality-ablations $(CORPORA)
	PYTHONPATH=workflow $(BIN)/python -m bench.quality --labels --output bench/quality-labels $(LABEL_CORPORA)

# Snakemake's own lint, then format and lint of the Python code (ruff) and of the rules (snakefmt);
# settings in pyproject.toml. `make format` rewrites the files the format checks would fail on.
LINTED := Snakefile workflow/rules
lint: $(INSTALLED) js-lint
	$(BIN)/snakemake --lint
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/snakefmt --check $(LINTED)

format: $(INSTALLED)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(BIN)/snakefmt $(LINTED)

# Re-pin every package of the current environment (after changing requirements*.txt).
lock: $(INSTALLED)
	{ echo "# Every package of a working environment, pinned; used as pip constraints. Regenerate: make lock"; \
	  $(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt

clean:
	rm -rf results/* .snakemake

# Topic ids follow history (results/history/); this numbers topics by size again, keeping every other result.
reset-topic-ids: $(INSTALLED)
	rm -rf results/history
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete --forcerun topics

# The configuration reference is generated from the schema; run after changing the schema
# (tests/test_config_reference.py fails while the committed page differs).
docs: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m papertopics.runtime.config_reference --output docs/configuration.md

# Benchmarks (need ../shared/corpora), the bench package's modules; results in bench/results.md and
# bench/results.json. tests/test_bench.py runs each on a tiny input.
# `make bench SIZE=1000` times the pipeline on that many arXiv abstracts (1000, 3000 or 10000);
# `make bench-quality` compares the embedding backends on IJCAI (NMI; speed, interleaved);
# `make bench-scale` runs the whole workflow on 100k abstracts in 100 dumps (the corpora's real ones, then
# copies with words dropped; embeddings resampled with noise into the cache first), per rule (docs/scale.md).
SIZE ?= 10000
bench: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.pipeline --size $(SIZE)

bench-quality: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.backend_quality
	PYTHONPATH=workflow $(BIN)/python -m bench.backend_speed

bench-scale: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.scale --size 100000

# Big plain-text dumps (0.1, 0.5, 1 GB; repetitive and distinct): parse seconds and peak memory,
# summary size, embed jobs planned; bench/big-dumps.md and bench/big-dumps.json.
bench-big-dumps: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.big_dumps

# update: place against a refit on IJCAI 2020-2023 fitted, 2024 added: seconds, and how far the
# placed topics agree with the refit's (bench/placement.md). PER_YEAR=0 takes every paper.
PER_YEAR ?= 300
bench-placement: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.placement_bench --per-year $(PER_YEAR)

# What following topics across runs and comparing dumps add to a 10,000-paper rerun (synthetic, no model).
bench-changes: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.changes_bench

# How often the trajectory test names a planted shape (peaked, returned, rising, falling; the null)
# over AISTATS's 23 real period sizes: bench/trajectories.md and bench/trajectories.json.
bench-trajectories: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.trajectories_bench

# The venue cells corrected by BH (the stage's), Holm or a per-topic family, simulated on IJCAI's
# areas in three random venues: bench/venue-families.md and bench/venue-families.json.
bench-venue-families: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.venue_families

# When two records sharing an identifier are one paper: the same paper's texts against distinct
# papers' on the shared corpora and the merge test's exports (bench/identifier-agreement.md and .json).
bench-identifier-agreement: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.identifier_agreement

# Rising countries, shuffled within years and planted, on the shared metadata corpora: bench/people.md and .json.
bench-people: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.people_bench
	PYTHONPATH=workflow $(BIN)/python -m bench.people_cost

# The reception tests' error rate and power on the shared metadata corpora, and the stage's cost
# at 10,000 papers (bench/reception.md, docs/reception.md).
bench-reception: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.reception_bench

# Topic stability and the trends' grades on a finished run with replicates (RUN=<its folder>):
# planted and shuffled years on its real papers and topics, bench/robustness.json (docs/robustness.md).
bench-robustness: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.robustness_bench --run $(RUN) --name "$(notdir $(abspath $(RUN)))"

# What the robustness stage costs at 10,000 real abstracts, side by side in one working folder: the
# cold run without replicates, the default replicates added, a decision edited (re-tests only):
# bench/robustness-cost.md and .json (docs/robustness.md). Long: the cold run embeds 10,000 abstracts.
bench-robustness-cost: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.robustness_cost

bench-small-corpora: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.small_corpora
# Are a paper's further topics about it, by its authors' keywords? A workflow run on IJCAI and one on
# COLM and CoRL (in bench/scratch/, made once), each threshold scored: bench/bridges.md and .json.
bench-bridges: $(INSTALLED)
	PYTHONPATH=workflow $(BIN)/python -m bench.bridges

# The report opened in headless Chromium: the shipped dumps' report (from `make run`) beside reports of
# 10,000 and 100,000 synthetic papers (no models), each built with this checkout and with the package
# of REPORT_BEFORE (main before the explorer features; the bench needs papertopics.figures, so nothing
# older than 01d0d5b); bench/report.md and bench/report.json.
REPORT_BEFORE ?= ae83716
REPORT_BENCH := $${TMPDIR:-/tmp}/papertopics-report-bench
bench-report: run browser
	rm -rf $(REPORT_BENCH) && mkdir -p $(REPORT_BENCH)/before
	git archive $(REPORT_BEFORE) workflow/papertopics | tar -x -C $(REPORT_BENCH)/before
	PYTHONPATH=workflow $(BIN)/python -m bench.report_bench run --before $(REPORT_BENCH)/before/workflow \
		--before-commit $(REPORT_BEFORE) --scratch $(REPORT_BENCH)
