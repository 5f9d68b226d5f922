# PPTD (Li et al., KDD 2018): experiments of Figs. 2-8 (one job per figure, all repetitions
# inside, per-repetition tables under results/pptd/raw/), then figures and claims. Each job's
# params hold only the config values it reads (crowdpriv.pptd.job_params).
import crowdpriv.pptd as pptd_core

PPTD = config["pptd"]
#: Figures drawn as MAE/noise vs epsilon (Figs. 2-5 synthetic, 6 indoor).
PPTD_TRADEOFF = ["fig2", "fig3", "fig4", "fig5", "fig6"]
PPTD_FIGURES = [*PPTD_TRADEOFF, "fig7", "fig8"]

register_paper(
    "pptd",
    title="PPTD (Li et al., KDD 2018)",
    category="PPTD",
    claims="results/pptd/claims.csv",
    readings=readings_outputs("pptd", "results/pptd"),
    figures=[
        dict(label=f"Fig. {n}", what=what, files=[f"results/pptd/fig{n}.png"])
        for n, what in [
            (2, "MAE and average noise vs ε, synthetic, CRH"),
            (3, "the same for several λ1"),
            (4, "the same for several numbers of workers S"),
            (5, "Fig. 2 with GTM"),
            (6, "MAE and noise vs ε on indoor_surrogate (SURROGATE)"),
            (7, "estimated vs true weights of 7 users (indoor_surrogate, SURROGATE)"),
            (
                8,
                "iterations to convergence (judged) and run time (plotted, never judged) "
                "vs noise level",
            ),
        ]
    ],
)


rule pptd_synthetic_tradeoff:
    output:
        csv="results/pptd/raw/{fig}.csv",
    log:
        "results/logs/pptd/{fig}.log",
    benchmark:
        "results/benchmarks/pptd/{fig}.tsv"
    wildcard_constraints:
        fig="fig2|fig3|fig4|fig5",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=lambda w: pptd_core.job_params(PPTD, w.fig),
        seed=config["seed"],
    script:
        "../../scripts/pptd_tradeoff.py"


rule pptd_indoor_tradeoff:
    input:
        claims=pptd_indoor_input("fig6", "claims"),
        truth=pptd_indoor_input("fig6", "truth"),
    output:
        csv="results/pptd/raw/fig6.csv",
    log:
        "results/logs/pptd/fig6.log",
    benchmark:
        "results/benchmarks/pptd/fig6.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=pptd_core.job_params(PPTD, "fig6"),
        seed=config["seed"],
    script:
        "../../scripts/pptd_tradeoff.py"


rule pptd_weights:
    input:
        claims=pptd_indoor_input("fig7", "claims"),
        truth=pptd_indoor_input("fig7", "truth"),
    output:
        shown="results/pptd/fig7_shown.csv",
        reps="results/pptd/raw/fig7.csv",
        original="results/pptd/raw/fig7_original.csv",
    log:
        "results/logs/pptd/fig7.log",
    benchmark:
        "results/benchmarks/pptd/fig7.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=pptd_core.job_params(PPTD, "fig7"),
        seed=config["seed"],
    script:
        "../../scripts/pptd_weights.py"


rule pptd_runtime:
    output:
        work="results/pptd/raw/fig8.csv",
        timings="results/pptd/raw/fig8_timings.csv",
    log:
        "results/logs/pptd/fig8.log",
    benchmark:
        "results/benchmarks/pptd/fig8.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=pptd_core.job_params(PPTD, "fig8"),
        seed=config["seed"],
    script:
        "../../scripts/pptd_runtime.py"


rule pptd_figures:
    # one job draws Figs. 2-8 (a job per figure paid the interpreter, pandas and matplotlib
    # start-up for each)
    input:
        raw=expand("results/pptd/raw/{fig}.csv", fig=PPTD_TRADEOFF),
        shown=rules.pptd_weights.output.shown,
        reps=rules.pptd_weights.output.reps,
        work=rules.pptd_runtime.output.work,
        timings=rules.pptd_runtime.output.timings,
    output:
        csv=expand("results/pptd/{fig}.csv", fig=PPTD_TRADEOFF),
        png=[
            paper_report(
                "pptd",
                f"results/pptd/{fig}.png",
                caption="../report/pptd/tradeoff.rst",
                subcategory=f"Figure {fig[3:]}",
            )
            for fig in PPTD_TRADEOFF
        ],
        svg=expand("results/pptd/{fig}.svg", fig=PPTD_TRADEOFF),
        fig7_csv="results/pptd/fig7.csv",
        fig7_png=paper_report(
            "pptd",
            "results/pptd/fig7.png",
            caption="../report/pptd/fig7.rst",
            subcategory="Figure 7",
        ),
        fig7_svg="results/pptd/fig7.svg",
        fig8_csv="results/pptd/fig8.csv",
        fig8_timings="results/pptd/fig8_timings.csv",
        fig8_png=paper_report(
            "pptd",
            "results/pptd/fig8.png",
            caption="../report/pptd/fig8.rst",
            subcategory="Figure 8",
        ),
        fig8_svg="results/pptd/fig8.svg",
    log:
        "results/logs/pptd/figures.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        figures=PPTD_TRADEOFF,
        units={
            "fig6": PPTD["fig6"].get("unit", ""),
            "fig7": PPTD["fig7"].get("unit", ""),
        },
    script:
        "../../scripts/pptd_figures.py"


rule pptd_claims:
    input:
        **{fig: f"results/pptd/raw/{fig}.csv" for fig in PPTD_FIGURES},
        fig7_original=rules.pptd_weights.output.original,
    output:
        csv="results/pptd/claims.csv",
        md="results/pptd/claims.md",
    log:
        "results/logs/pptd/claims.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        thresholds=pptd_core.claims_thresholds(PPTD),
        significance=config["claims"],
        figures=lambda w: [f["label"] for f in PAPERS["pptd"]["figures"]],
    script:
        "../../scripts/pptd_claims.py"


register_readings(
    "pptd",
    tables={
        **{fig: f"results/pptd/raw/{fig}.csv" for fig in PPTD_FIGURES},
        "fig7_original": "results/pptd/raw/fig7_original.csv",
    },
    datasets=[PPTD["fig6"]["dataset"], PPTD["fig7"]["dataset"]],
    surrogates=["indoor_surrogate"],
    claims_kwargs=dict(
        thresholds=pptd_core.claims_thresholds(PPTD),
        significance=config["claims"],
        figures=[f["label"] for f in PAPERS["pptd"]["figures"]],
    ),
)


rule pptd:
    input:
        expand("results/pptd/{fig}.{ext}", fig=PPTD_FIGURES, ext=["csv", "png", "svg"]),
        "results/pptd/fig7_shown.csv",
        "results/pptd/fig8_timings.csv",
        "results/pptd/claims.csv",
        "results/pptd/claims.md",
        PAPERS["pptd"]["readings"],
    localrule: True
