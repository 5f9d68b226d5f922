# PPTD (Li et al., KDD 2018): experiments of Figs. 2-8, then figures and claims.
PPTD = config["pptd"]
#: Figures drawn as MAE/noise vs epsilon (Figs. 2-5 synthetic, 6 indoor).
PPTD_TRADEOFF = ["fig2", "fig3", "fig4", "fig5", "fig6"]
PPTD_FIGURES = [*PPTD_TRADEOFF, "fig7", "fig8"]

register_paper(
    "pptd",
    title="PPTD (Li et al., KDD 2018)",
    category="PPTD",
    claims="results/pptd/claims.csv",
    figures=[
        dict(label=f"Fig. {n}", what=what, files=[f"results/pptd/fig{n}.png"])
        for n, what in [
            (2, "MAE and average noise vs ε, synthetic, CRH"),
            (3, "the same for several λ1"),
            (4, "the same for several numbers of users S"),
            (5, "Fig. 2 with GTM"),
            (6, "MAE and noise vs ε on indoor_surrogate (SURROGATE)"),
            (7, "estimated vs true weights of 7 users (indoor_surrogate, SURROGATE)"),
            (8, "truth-discovery run time and iterations vs noise level"),
        ]
    ],
)


rule pptd_synthetic_tradeoff:
    output:
        csv="results/pptd/{fig}.csv",
    log:
        "results/logs/pptd/{fig}.log",
    benchmark:
        "results/benchmarks/pptd/{fig}.tsv"
    wildcard_constraints:
        fig="fig2|fig3|fig4|fig5",
    conda:
        "../../envs/crowdpriv.yaml"
    params:
        exp=pptd_synthetic_params,
        seed=config["seed"],
    script:
        "../../scripts/pptd_tradeoff.py"


rule pptd_indoor_tradeoff:
    input:
        claims=pptd_indoor_input("claims"),
        truth=pptd_indoor_input("truth"),
    output:
        csv="results/pptd/fig6.csv",
    log:
        "results/logs/pptd/fig6.log",
    benchmark:
        "results/benchmarks/pptd/fig6.tsv"
    conda:
        "../../envs/crowdpriv.yaml"
    params:
        exp=dict(
            dataset=PPTD["indoor"]["dataset"],
            lam1=PPTD["indoor"]["lambda1"],
            epsilons=PPTD["indoor"]["epsilons"],
            n_reps=PPTD["n_reps"],
            method="crh",
            td_kwargs=pptd_td("crh"),
            utility_beta=PPTD["utility_beta"],
            **pptd_privacy(),
        ),
        seed=config["seed"],
    script:
        "../../scripts/pptd_tradeoff.py"


rule pptd_weights:
    input:
        claims=pptd_indoor_input("claims"),
        truth=pptd_indoor_input("truth"),
    output:
        shown="results/pptd/fig7.csv",
        agreement="results/pptd/fig7_agreement.csv",
    log:
        "results/logs/pptd/fig7.log",
    benchmark:
        "results/benchmarks/pptd/fig7.tsv"
    conda:
        "../../envs/crowdpriv.yaml"
    params:
        exp=dict(
            dataset=PPTD["indoor"]["dataset"],
            lam1=PPTD["indoor"]["lambda1"],
            n_reps=PPTD["n_reps"],
            td_kwargs=pptd_td("crh"),
            **PPTD["fig7"],
            **pptd_privacy(),
        ),
        seed=config["seed"],
    script:
        "../../scripts/pptd_weights.py"


rule pptd_runtime:
    output:
        csv="results/pptd/fig8.csv",
    log:
        "results/logs/pptd/fig8.log",
    benchmark:
        "results/benchmarks/pptd/fig8.tsv"
    conda:
        "../../envs/crowdpriv.yaml"
    params:
        exp=dict(
            n_users=PPTD["synthetic"]["n_users"],
            n_objects=PPTD["synthetic"]["n_objects"],
            lam1=PPTD["synthetic"]["lambda1"],
            truth_low=PPTD["synthetic"]["truth_range"][0],
            truth_high=PPTD["synthetic"]["truth_range"][1],
            epsilons=PPTD["epsilons"],
            n_reps=PPTD["n_reps"],
            n_timing=PPTD["fig8"]["n_timing"],
            method=PPTD["fig8"]["method"],
            td_kwargs=pptd_td(PPTD["fig8"]["method"]),
            **pptd_privacy(),
        ),
        seed=config["seed"],
    script:
        "../../scripts/pptd_runtime.py"


rule pptd_plot_tradeoff:
    input:
        csv="results/pptd/{fig}.csv",
    output:
        png=report(
            "results/pptd/{fig}.png",
            caption="../report/pptd/tradeoff.rst",
            category="PPTD",
            subcategory=lambda w: f"Figure {w.fig[3:]}",
        ),
        svg="results/pptd/{fig}.svg",
    log:
        "results/logs/pptd/plot_{fig}.log",
    wildcard_constraints:
        fig="fig2|fig3|fig4|fig5|fig6",
    localrule: True
    conda:
        "../../envs/crowdpriv.yaml"
    script:
        "../../scripts/pptd_plot_tradeoff.py"


rule pptd_plot_weights:
    input:
        csv="results/pptd/fig7.csv",
    output:
        png=report(
            "results/pptd/fig7.png",
            caption="../report/pptd/fig7.rst",
            category="PPTD",
            subcategory="Figure 7",
        ),
        svg="results/pptd/fig7.svg",
    log:
        "results/logs/pptd/plot_fig7.log",
    localrule: True
    conda:
        "../../envs/crowdpriv.yaml"
    script:
        "../../scripts/pptd_plot_weights.py"


rule pptd_plot_runtime:
    input:
        csv="results/pptd/fig8.csv",
    output:
        png=report(
            "results/pptd/fig8.png",
            caption="../report/pptd/fig8.rst",
            category="PPTD",
            subcategory="Figure 8",
        ),
        svg="results/pptd/fig8.svg",
    log:
        "results/logs/pptd/plot_fig8.log",
    localrule: True
    conda:
        "../../envs/crowdpriv.yaml"
    script:
        "../../scripts/pptd_plot_runtime.py"


rule pptd_claims:
    input:
        **{fig: f"results/pptd/{fig}.csv" for fig in PPTD_FIGURES},
        fig7_agreement="results/pptd/fig7_agreement.csv",
    output:
        csv=report(
            "results/pptd/claims.csv",
            caption="../report/pptd/claims.rst",
            category="PPTD",
            subcategory="Claims",
        ),
        md="results/pptd/claims.md",
    log:
        "results/logs/pptd/claims.log",
    localrule: True
    conda:
        "../../envs/crowdpriv.yaml"
    params:
        thresholds={**PPTD["claims"], "utility_beta": PPTD["utility_beta"]},
    script:
        "../../scripts/pptd_claims.py"


rule pptd:
    input:
        expand("results/pptd/{fig}.{ext}", fig=PPTD_FIGURES, ext=["csv", "png", "svg"]),
        "results/pptd/fig7_agreement.csv",
        "results/pptd/claims.csv",
        "results/pptd/claims.md",
    localrule: True
