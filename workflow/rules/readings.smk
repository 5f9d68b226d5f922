# Readings (crowdpriv.readings): every claim of a paper under each of its named readings.
# One re-run job per (paper, reading) re-runs only the tables the reading's override reaches
# (it needs the processed data only, so it runs beside the default experiments); a reading
# whose tables follow from the default run's own columns has none (rerun_reading_names). One
# job per paper merges them into the default tables, evaluates the claims under every reading
# and writes the matrix.
# Papers take part by register_readings() in their rule file.


wildcard_constraints:
    reading_paper="|".join(READINGS) or "no-readings",


rule reading_rerun:
    input:
        claims=lambda w: [processed(ds) for ds in READINGS[w.reading_paper]["datasets"]],
        truth=lambda w: [
            processed(ds, "truth") for ds in READINGS[w.reading_paper]["datasets"]
        ],
    output:
        folder=directory("results/{reading_paper}/readings/{reading}/rerun"),
    log:
        "results/logs/{reading_paper}/readings/{reading}_rerun.log",
    benchmark:
        "results/benchmarks/{reading_paper}/readings/{reading}.tsv"
    wildcard_constraints:
        reading=reading_wildcards(),
    # the re-runs are long: start them as soon as their data exist
    priority: 40
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        paper=lambda w: w.reading_paper,
        reading=lambda w: reading_spec(w.reading_paper, w.reading),
        block=lambda w: reading_block(w.reading_paper, w.reading),
        not_rerun=lambda w: config[w.reading_paper]["readings"].get("not_rerun", []),
        # the surrogates' settings, for a reading that regenerates one (its data override)
        datasets=lambda w: {
            ds: config["datasets"][ds]
            for ds in READINGS[w.reading_paper]["surrogates"]
            if reading_spec(w.reading_paper, w.reading)["data"]
        },
        data_paths=lambda w: {
            ds: {"claims": processed(ds), "truth": processed(ds, "truth")}
            for ds in READINGS[w.reading_paper]["datasets"]
        },
        seed=config["seed"],
    script:
        "../../scripts/reading_rerun.py"


rule readings_matrix:
    input:
        unpack(lambda w: READINGS[w.reading_paper]["tables"]),
        default=lambda w: PAPERS[w.reading_paper]["claims"],
        reruns=lambda w: expand(
            "results/{paper}/readings/{reading}/rerun",
            paper=w.reading_paper,
            reading=rerun_reading_names(w.reading_paper),
        ),
    output:
        csv="results/{reading_paper}/readings.csv",
        md="results/{reading_paper}/readings.md",
        claims="results/{reading_paper}/readings/claims.csv",
    log:
        "results/logs/{reading_paper}/readings.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        paper=lambda w: w.reading_paper,
        title=lambda w: PAPERS[w.reading_paper]["title"],
        readings=lambda w: config[w.reading_paper]["readings"],
        tables=lambda w: list(READINGS[w.reading_paper]["tables"]),
        claims_kwargs=lambda w: READINGS[w.reading_paper]["claims_kwargs"],
        # each reading's claims read its own settings (e.g. PrisCrowd's SISE definition)
        thresholds=lambda w: reading_thresholds(w.reading_paper),
    script:
        "../../scripts/readings_matrix.py"
