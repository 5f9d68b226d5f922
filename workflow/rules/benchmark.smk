# The inference benchmark (crowdpriv.benchmark, docs/inference.md), registered like a paper:
# truth inference after each mechanism on the standard comparison's datasets (product, dog,
# emotion) and LDP-sparse's (web, adultcontent); config `benchmark`, switch `benchmark_enabled`.
import crowdpriv.benchmark as benchmark_core

BENCH = config["benchmark"]
BENCH_OUT = "results/benchmark"
BENCH_TYPES = {
    "datasets": config["datasets"],
    "ldp_sparse": {"real_domain_size": config["ldp_sparse"]["real_domain_size"]},
}
BENCH_LABELS = [
    d
    for d in BENCH["datasets"]
    if benchmark_core.dataset_answer_type(BENCH_TYPES, d)[0] == "categorical"
]
BENCH_VALUES = [d for d in BENCH["datasets"] if d not in BENCH_LABELS]
BENCH_TABLES = ["no_privacy", "summary", "best_mechanism", "defaults", "aware_vs_naive"]
BENCH_ENABLED = BENCHMARK_ENABLED  # common.smk


if BENCH_ENABLED:

    register_paper(
        "benchmark",
        title="Inference benchmark (ours: truth inference after each mechanism)",
        category="Inference benchmark",
        claims=f"{BENCH_OUT}/claims.csv",
        figures=[
            dict(
                label="Table B1",
                what="no mechanism: ours beside crowd-kit on the same files and published",
                files=[f"{BENCH_OUT}/no_privacy.md"],
            ),
            dict(
                label="Fig. B1",
                what="accuracy vs ε per label dataset, one panel per mechanism",
                files=[f"{BENCH_OUT}/accuracy_{d}.png" for d in BENCH_LABELS],
            ),
            dict(
                label="Fig. B2",
                what="MAE vs ε on the numeric dataset under PPTD",
                files=[f"{BENCH_OUT}/accuracy_{d}.png" for d in BENCH_VALUES],
            ),
            dict(
                label="Table B2",
                what="the best mechanism per dataset and ε",
                files=[f"{BENCH_OUT}/best_mechanism.md"],
            ),
            dict(
                label="Table B3",
                what="the table the inference defaults are chosen from",
                files=[f"{BENCH_OUT}/defaults.md"],
            ),
        ],
    )


rule benchmark_dataset:
    input:
        claims=lambda w: processed(w.dataset),
        truth=lambda w: processed(w.dataset, "truth"),
    output:
        csv=f"{BENCH_OUT}/raw/{{dataset}}.csv",
    log:
        "results/logs/benchmark/{dataset}.log",
    benchmark:
        "results/benchmarks/benchmark/{dataset}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        config=lambda w: benchmark_core.job_params(config, "dataset", w.dataset),
        seed=config["seed"],
    script:
        "../../scripts/benchmark_run.py"


rule benchmark_report:
    input:
        runs=expand(f"{BENCH_OUT}/raw/{{dataset}}.csv", dataset=BENCH["datasets"]),
        crowdkit=os.path.join(
            workflow.basedir, "benchmarks", "crowdkit", "accuracy.csv"
        ),
    output:
        **{
            f"{name}_{ext}": f"{BENCH_OUT}/{name}.{ext}"
            for name in BENCH_TABLES
            for ext in ("csv", "md")
        },
        claims_csv=f"{BENCH_OUT}/claims.csv",
        claims_md=f"{BENCH_OUT}/claims.md",
        figures=(
            [
                paper_report(
                    "benchmark",
                    f"{BENCH_OUT}/accuracy_{d}.png",
                    caption="../report/benchmark/figure.rst",
                    subcategory="Figures",
                )
                for d in BENCH["datasets"]
            ]
            if BENCH_ENABLED
            else [f"{BENCH_OUT}/accuracy_{d}.png" for d in BENCH["datasets"]]
        ),
        svg=[f"{BENCH_OUT}/accuracy_{d}.svg" for d in BENCH["datasets"]],
    log:
        "results/logs/benchmark/report.log",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config=lambda w: benchmark_core.job_params(config, "report"),
        thresholds=benchmark_core.claims_thresholds(BENCH),
        significance=config["claims"],
        datasets=BENCH["datasets"],
        types=BENCH_TYPES,
        figures=list(benchmark_core.FIGURES),
    script:
        "../../scripts/benchmark_report.py"


rule benchmark:
    input:
        rules.benchmark_report.output,
    localrule: True
