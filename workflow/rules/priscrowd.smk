# PrisCrowd (Huai et al., IJCAI 2019): experiment jobs (one per dataset / p, all repetitions
# inside), then Tables 1-2, Figs. 3-5, release counts, privacy budget and claims.
# Each job's params hold only the config values it reads (crowdpriv.priscrowd.job_params).
import crowdpriv.priscrowd as pris_core

PRIS = config["priscrowd"]
PRIS_RUN_TABLES = [
    "table",
    "fig4",
    "work",
    "release",
    "budget",
    "fig3_curves",
    "fig3_claims",
    "info",
]

register_paper(
    "priscrowd",
    readings=readings_outputs("priscrowd", "results/priscrowd"),
    title="PrisCrowd (Huai et al., IJCAI 2019)",
    category="PrisCrowd",
    stats_paper="PrisCrowd",
    claims="results/priscrowd/claims.csv",
    figures=[
        dict(
            label="Table 1",
            what="ISE/SISE on population, stock_surrogate, indoor_surrogate (surrogates)",
            files=["results/priscrowd/table1.md"],
        ),
        dict(
            label="Table 2",
            what="ISE/SISE on simulated data, p = 0.1 … 0.5",
            files=["results/priscrowd/table2.md"],
        ),
        dict(
            label="Fig. 3",
            what="case-study densities, two objects per dataset",
            files=["results/priscrowd/fig3.png"],
        ),
        dict(
            label="Fig. 4",
            what="ISE and SISE vs number of released claims m",
            files=["results/priscrowd/fig4.png"],
        ),
        dict(
            label="Fig. 5",
            what=(
                "phase-2 cost vs m, with and without privacy test: candidates tested "
                "(judged) and wall clock (plotted, never judged)"
            ),
            files=["results/priscrowd/fig5.png"],
        ),
        dict(
            label="Release",
            what="objects fully/partly/never released, privacy-test pass rate",
            files=["results/priscrowd/release.md"],
        ),
        dict(
            label="Theorem 2",
            what="distribution of the per-object (ε, δ)",
            files=["results/priscrowd/privacy_budget.md"],
        ),
    ],
    summary_tables=[
        dict(
            caption="Table 1 per object (ours beside the paper)",
            note=(
                "Both columns are per-object values, as results/priscrowd/table1.png draws "
                "them: ours are ISE and SISE summed over the objects with ground truth, divided "
                "by their number (the sums: results/priscrowd/table1.md); the paper's are its "
                "printed values, read as per-object averages (see the errata checks)."
            ),
            csv="results/priscrowd/table1.csv",
            keys=["dataset", "method"],
            ours="per_object",
            ratio="per_object_ratio_to_paper",
        ),
        dict(
            caption="Table 2 (ours beside the paper)",
            note=(
                "Both columns are sums over the "
                f"{PRIS['table2']['tasks']} simulated objects, as "
                "results/priscrowd/table2.png draws them."
            ),
            csv="results/priscrowd/table2.csv",
            keys=["p", "method"],
        ),
    ],
)


rule priscrowd_run:
    input:
        claims="data/processed/{dataset}/claims.csv",
        truth="data/processed/{dataset}/truth.csv",
    output:
        **{t: f"results/priscrowd/runs/{{dataset}}/{t}.csv" for t in PRIS_RUN_TABLES},
    log:
        "results/logs/priscrowd/run/{dataset}.log",
    benchmark:
        "results/benchmarks/priscrowd/run/{dataset}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        config=pris_core.job_params(PRIS, "run"),
        seed=config["seed"],
    script:
        "../../scripts/priscrowd_run.py"


rule priscrowd_simulated:
    output:
        table="results/priscrowd/runs/simulated/p{p}/table.csv",
        release="results/priscrowd/runs/simulated/p{p}/release.csv",
    log:
        "results/logs/priscrowd/simulated/p{p}.log",
    benchmark:
        "results/benchmarks/priscrowd/simulated/p{p}.tsv"
    wildcard_constraints:
        p=r"[0-9.]+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        # the data settings, not the list of p: adding a point runs only the new job
        config=pris_core.job_params(PRIS, "simulated"),
        seed=config["seed"],
    script:
        "../../scripts/priscrowd_simulated.py"


rule priscrowd_timing:
    input:
        claims="data/processed/{dataset}/claims.csv",
        truth="data/processed/{dataset}/truth.csv",
    output:
        csv="results/priscrowd/runs/{dataset}/fig5_timings.csv",
    log:
        "results/logs/priscrowd/timing/{dataset}.log",
    benchmark:
        "results/benchmarks/priscrowd/timing/{dataset}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=pris_core.job_params(PRIS, "timing"),
        seed=config["seed"],
    script:
        "../../scripts/priscrowd_timing.py"


rule priscrowd_figures:
    # one job draws every PrisCrowd table and figure (Tables 1-2, Figs. 3-5, the release
    # counts, Theorem 2's budget): a job each paid the interpreter, pandas and matplotlib
    # start-up for one figure. Names are <part>_<file>; scripts/priscrowd_figures.py
    input:
        table1_runs=pris_run("table"),
        table1_info=pris_run("info"),
        table1_paper=paper_values("priscrowd_table1.csv"),
        table2_runs=pris_simulated("table"),
        table2_paper=paper_values("priscrowd_table2.csv"),
        fig3_curves=pris_run("fig3_curves"),
        fig3_claims=pris_run("fig3_claims"),
        fig4_runs=pris_run("fig4"),
        fig5_work=pris_run("work"),
        fig5_timings=pris_run("fig5_timings"),
        fig5_release=pris_run("release"),
        release_release=pris_run("release"),
        release_info=pris_run("info"),
        release_simulated=pris_simulated("release"),
        budget_budget=pris_run("budget"),
    output:
        **{
            f"{part}_{kind}": path
            for part, name, subcategory in [
                ("table1", "table1", "Table 1"),
                ("table2", "table2", "Table 2"),
                ("fig3", "fig3", "Figure 3"),
                ("fig4", "fig4", "Figure 4"),
                ("fig5", "fig5", "Figure 5"),
                ("release", "release", "Release"),
                ("budget", "privacy_budget", "Theorem 2"),
            ]
            for kind, path in pris_figure(name, subcategory).items()
        },
        table1_csv="results/priscrowd/table1.csv",
        table1_md="results/priscrowd/table1.md",
        table2_csv="results/priscrowd/table2.csv",
        table2_md="results/priscrowd/table2.md",
        fig3_csv="results/priscrowd/fig3.csv",
        fig3_claims="results/priscrowd/fig3_claims.csv",
        fig3_ise="results/priscrowd/fig3_ise.csv",
        fig4_csv="results/priscrowd/fig4.csv",
        fig5_csv="results/priscrowd/fig5.csv",
        fig5_reps="results/priscrowd/fig5_reps.csv",
        fig5_timings="results/priscrowd/fig5_timings.csv",
        release_csv="results/priscrowd/release.csv",
        release_md="results/priscrowd/release.md",
        budget_csv="results/priscrowd/privacy_budget.csv",
        budget_md="results/priscrowd/privacy_budget.md",
    log:
        "results/logs/priscrowd/figures.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        fig3_quantiles=PRIS["fig3"]["quantiles"],
        fig5_m=PRIS["fig5"]["m"],
        fig5_max_candidates=PRIS["max_candidates"],
    script:
        "../../scripts/priscrowd_figures.py"


rule priscrowd_claims:
    input:
        table1=pris_run("table"),
        table2=pris_simulated("table"),
        fig4=pris_run("fig4"),
        fig5=rules.priscrowd_figures.output.fig5_reps,
        fig3_ise=rules.priscrowd_figures.output.fig3_ise,
        fig3_claims=rules.priscrowd_figures.output.fig3_claims,
        budget=pris_run("budget"),
        paper_table1=paper_values("priscrowd_table1.csv"),
        paper_table2=paper_values("priscrowd_table2.csv"),
        paper_stats=paper_values("dataset_stats.csv"),
    output:
        csv="results/priscrowd/claims.csv",
        md="results/priscrowd/claims.md",
    log:
        "results/logs/priscrowd/claims.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        datasets=PRIS["datasets"],
        thresholds=pris_core.claims_thresholds(PRIS),
        significance=config["claims"],
        figures=lambda w: [f["label"] for f in PAPERS["priscrowd"]["figures"]],
    script:
        "../../scripts/priscrowd_claims.py"


register_readings(
    "priscrowd",
    tables={
        "table1": pris_run("table"),
        "table2": pris_simulated("table"),
        "fig4": pris_run("fig4"),
        "fig5": rules.priscrowd_figures.output.fig5_reps,
        "fig3_ise": rules.priscrowd_figures.output.fig3_ise,
        "fig3_claims": rules.priscrowd_figures.output.fig3_claims,
        "budget": pris_run("budget"),
        "paper_table1": paper_values("priscrowd_table1.csv"),
        "paper_table2": paper_values("priscrowd_table2.csv"),
        "paper_stats": paper_values("dataset_stats.csv"),
    },
    datasets=PRIS["datasets"],
    claims_kwargs=dict(
        datasets=PRIS["datasets"],
        thresholds=pris_core.claims_thresholds(PRIS),
        significance=config["claims"],
        figures=[f["label"] for f in PAPERS["priscrowd"]["figures"]],
    ),
)


rule priscrowd:
    input:
        expand(
            "results/priscrowd/{name}.{ext}",
            name=["table1", "table2", "release", "privacy_budget"],
            ext=["csv", "md", "png", "svg"],
        ),
        expand(
            "results/priscrowd/{name}.{ext}",
            name=["fig3", "fig4", "fig5"],
            ext=["csv", "png", "svg"],
        ),
        "results/priscrowd/fig5_timings.csv",
        "results/priscrowd/claims.csv",
        "results/priscrowd/claims.md",
        PAPERS["priscrowd"]["readings"],
    localrule: True
