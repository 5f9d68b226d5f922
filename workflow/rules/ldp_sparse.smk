# LDP-sparse (Sun et al., IEEE BigData 2018): experiments (one job per figure x sparsity point
# or real dataset, all repetitions inside), then figures, tables, bounds and claims.
# Uses processed(), paper_values(), mechanism_labels() and CONDA_ENV from common.smk. Each
# job's params hold only the config values it reads (crowdpriv.ldp_sparse.job_params).
import crowdpriv.ldp_sparse as ldp_core

LDP = config["ldp_sparse"]
LDP_OUT = "results/ldp_sparse"
LDP_SYNTHETIC = ["fig2", "fig3", "fig4"]
#: "2,000 workers × 200 tasks" per synthetic figure, for the summary lines.
LDP_SIZE = {
    fig: f"{LDP[fig]['workers']:,} workers × {LDP[fig]['tasks']:,} tasks"
    for fig in LDP_SYNTHETIC
}


register_paper(
    "ldp_sparse",
    title="LDP-sparse (Sun et al., IEEE BigData 2018)",
    category="LDP-sparse",
    stats_paper="LDP-sparse",
    claims=f"{LDP_OUT}/claims.csv",
    readings=readings_outputs("ldp_sparse", LDP_OUT),
    figures=[
        dict(
            label="Table II",
            what="dataset statistics of web and adultcontent",
            files=[f"{LDP_OUT}/table2_datasets.md"],
        ),
        dict(
            label="Fig. 1",
            what="answer distributions of web and adultcontent",
            files=[f"{LDP_OUT}/fig1_answer_distribution.png"],
        ),
        dict(
            label="Fig. 2",
            what=f"MAE change vs ε, LP/RR/MF ({LDP_SIZE['fig2']})",
            files=[f"{LDP_OUT}/fig2_mae_vs_epsilon.png"],
        ),
        dict(
            label="Fig. 3",
            what=f"MAE change vs sparsity ({LDP_SIZE['fig3']})",
            files=[f"{LDP_OUT}/fig3_mae_vs_sparsity.png"],
        ),
        dict(
            label="Fig. 4",
            what=f"MAE change vs sparsity ({LDP_SIZE['fig4']})",
            files=[f"{LDP_OUT}/fig4_mae_vs_sparsity_large.png"],
        ),
        dict(
            label="Fig. 5",
            what="MAE change vs ε on web and adultcontent, incl. 2-Layer",
            files=[f"{LDP_OUT}/fig5_mae_vs_epsilon_real.png"],
        ),
        dict(
            label="Theorems",
            what="error bounds of the LP, RR and MF theorems beside the simulated MAE change",
            files=[f"{LDP_OUT}/bounds.md"],
        ),
    ],
    summary_tables=[
        dict(
            caption=(
                "Theorem bounds in the paper's worked examples (per-experiment bounds "
                "beside the simulated MAE: results/ldp_sparse/bounds.md)"
            ),
            csv=f"{LDP_OUT}/bounds.csv",
            where={"experiment": "paper_example"},
        ),
    ],
)


rule ldp_sparse_synthetic:
    output:
        f"{LDP_OUT}/raw/{{experiment}}/sparsity_{{sparsity}}.csv",
    log:
        "results/logs/ldp_sparse/raw/{experiment}/sparsity_{sparsity}.log",
    benchmark:
        "results/benchmarks/ldp_sparse/raw/{experiment}/sparsity_{sparsity}.tsv"
    wildcard_constraints:
        experiment="|".join(LDP_SYNTHETIC),
        sparsity=r"[0-9.]+",
    # then the large synthetic points, so short jobs fill the gaps
    priority: 50
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=lambda w: 200
        + LDP[w.experiment]["workers"] * LDP[w.experiment]["tasks"] // 20000,
        runtime=60,
    params:
        # the point's own settings, not the list of points: adding one runs only the new job
        config=lambda w: ldp_core.job_params(LDP, w.experiment),
        seed=config["seed"],
    script:
        "../../scripts/ldp_sparse_synthetic.py"


rule ldp_sparse_real:
    input:
        claims=processed("{dataset}"),
        truth=processed("{dataset}", "truth"),
    output:
        f"{LDP_OUT}/raw/fig5/{{dataset}}.csv",
    log:
        "results/logs/ldp_sparse/raw/fig5/{dataset}.log",
    benchmark:
        "results/benchmarks/ldp_sparse/raw/fig5/{dataset}.tsv"
    # the longest chain (AdultContent's Fig. 5 job) starts first
    priority: 100
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        config=ldp_core.job_params(LDP, "fig5"),
        seed=config["seed"],
    script:
        "../../scripts/ldp_sparse_real.py"


rule ldp_sparse_table2:
    input:
        "results/datasets/stats.csv",
    output:
        csv=f"{LDP_OUT}/table2_datasets.csv",
        md=f"{LDP_OUT}/table2_datasets.md",
    log:
        "results/logs/ldp_sparse/table2_datasets.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        datasets=LDP["table2"]["datasets"],
    script:
        "../../scripts/ldp_sparse_table2.py"


rule ldp_sparse_fig1:
    input:
        claims=[processed(ds) for ds in LDP["fig1"]["datasets"]],
        truth=[processed(ds, "truth") for ds in LDP["fig1"]["datasets"]],
    output:
        csv=f"{LDP_OUT}/fig1_answer_distribution.csv",
        png=paper_report(
            "ldp_sparse",
            f"{LDP_OUT}/fig1_answer_distribution.png",
            caption="../report/ldp_sparse/fig1_answer_distribution.rst",
            subcategory="Figure 1",
        ),
        svg=f"{LDP_OUT}/fig1_answer_distribution.svg",
    log:
        "results/logs/ldp_sparse/fig1_answer_distribution.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        datasets=LDP["fig1"]["datasets"],
        config=ldp_core.job_params(LDP, "fig1"),
        paper_gold_zero_share=LDP["claims"]["gold_zero_share_min"],
    script:
        "../../scripts/ldp_sparse_fig1.py"


#: The per-point repetition CSVs of each synthetic figure (one per sparsity).
LDP_POINTS = {
    fig: expand(
        f"{LDP_OUT}/raw/{fig}/sparsity_{{s}}.csv",
        s=[float(s) for s in LDP[fig]["sparsities"]],
    )
    for fig in ("fig2", "fig3", "fig4")
}
#: The titles of the synthetic figures (what the MAE change is plotted against).
LDP_TITLES = {
    fig: (
        f"LDP-sparse Fig. {fig[3:]}: MAE change vs {what}, synthetic "
        f"{LDP[fig]['workers']} workers × {LDP[fig]['tasks']} tasks"
    )
    for fig, what in [("fig2", "ε"), ("fig3", "sparsity"), ("fig4", "sparsity")]
}

#: Figs. 2-5 of LDP-sparse and the MF sensitivity (not in the paper): {figure: its file stem,
#: its inputs, how it is drawn, and its report subcategory when not "Figure <n>"}.
LDP_PLOTS = {
    "fig2": dict(
        stem="fig2_mae_vs_epsilon",
        inputs=LDP_POINTS["fig2"],
        draw=dict(
            methods=mechanism_labels(LDP["fig2"]["methods"]),
            panel="sparsity",
            panel_order=LDP["fig2"]["sparsities"],
            x="epsilon",
            panel_label="sparsity = {:g}",
            xlabel="privacy budget ε",
            yscale="symlog",
            title=LDP_TITLES["fig2"],
        ),
    ),
    **{
        fig: dict(
            stem=stem,
            inputs=LDP_POINTS[fig],
            draw=dict(
                methods=mechanism_labels(LDP[fig]["methods"]),
                panel="epsilon",
                panel_order=LDP[fig]["epsilons"],
                x="sparsity",
                panel_label="ε = {:g}",
                xlabel="sparsity",
                yscale="symlog",
                title=LDP_TITLES[fig],
            ),
        )
        for fig, stem in [
            ("fig3", "fig3_mae_vs_sparsity"),
            ("fig4", "fig4_mae_vs_sparsity_large"),
        ]
    },
    "fig5": dict(
        stem="fig5_mae_vs_epsilon_real",
        inputs=[f"{LDP_OUT}/raw/fig5/{ds}.csv" for ds in LDP["fig5"]["datasets"]],
        draw=dict(
            methods=mechanism_labels(LDP["fig5"]["methods"]),
            panel="dataset",
            panel_order=LDP["fig5"]["datasets"],
            x="epsilon",
            panel_label="{}",
            xlabel="privacy budget ε",
            yscale="symlog",
            title="LDP-sparse Fig. 5: MAE change vs ε on the real datasets",
        ),
    ),
    "mf_sensitivity": dict(
        stem="mf_sensitivity",
        subcategory="MF sensitivity (not in the paper)",
        inputs=[f"{LDP_OUT}/raw/mf_sensitivity.csv"],
        draw=dict(
            methods=[f"MF, λ={float(r):g}" for r in LDP["mf_sensitivity"]["ridge"]],
            extra_keys=["d", "ridge"],
            panel="epsilon",
            panel_order=LDP["mf_sensitivity"]["epsilons"],
            x="d",
            panel_label="ε = {:g}",
            xlabel="factorisation parameter d",
            yscale="symlog",
            logx=True,
            mark_x=[LDP["d"], "d of Figs. 2-5"],
            title=(
                f"MF sensitivity (not in LDP-sparse): synthetic "
                f"{LDP['mf_sensitivity']['workers']} workers × "
                f"{LDP['mf_sensitivity']['tasks']} tasks, sparsity "
                f"{LDP['mf_sensitivity']['sparsity']:g}"
            ),
        ),
    ),
}


rule ldp_sparse_figures:
    # one job draws Figs. 2-5 and the MF sensitivity (a job per figure paid the interpreter,
    # pandas and matplotlib start-up for each)
    input:
        **{fig: plot["inputs"] for fig, plot in LDP_PLOTS.items()},
    output:
        csv=[f"{LDP_OUT}/{plot['stem']}.csv" for plot in LDP_PLOTS.values()],
        png=[
            paper_report(
                "ldp_sparse",
                f"{LDP_OUT}/{plot['stem']}.png",
                caption=f"../report/ldp_sparse/{plot['stem']}.rst",
                subcategory=plot.get("subcategory", f"Figure {fig[3:]}"),
            )
            for fig, plot in LDP_PLOTS.items()
        ],
        svg=[f"{LDP_OUT}/{plot['stem']}.svg" for plot in LDP_PLOTS.values()],
    log:
        "results/logs/ldp_sparse/figures.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        figures={fig: plot["draw"] for fig, plot in LDP_PLOTS.items()},
    script:
        "../../scripts/ldp_sparse_figures.py"


rule ldp_sparse_mf_sensitivity_raw:
    output:
        f"{LDP_OUT}/raw/mf_sensitivity.csv",
    log:
        "results/logs/ldp_sparse/raw/mf_sensitivity.log",
    benchmark:
        "results/benchmarks/ldp_sparse/raw/mf_sensitivity.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        config=ldp_core.job_params(LDP, "mf_sensitivity"),
        seed=config["seed"],
    script:
        "../../scripts/ldp_sparse_mf_sensitivity.py"


rule ldp_sparse_bounds:
    input:
        [
            f"{LDP_OUT}/{LDP_PLOTS[fig]['stem']}.csv"
            for fig in ("fig2", "fig3", "fig4", "fig5")
        ],
    output:
        csv=f"{LDP_OUT}/bounds.csv",
        md=f"{LDP_OUT}/bounds.md",
    log:
        "results/logs/ldp_sparse/bounds.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        paper_bounds=LDP["bounds"]["paper"],
    script:
        "../../scripts/ldp_sparse_bounds.py"


rule ldp_sparse_claims:
    input:
        # the per-repetition results behind each figure
        fig2=LDP_PLOTS["fig2"]["inputs"],
        fig3=LDP_PLOTS["fig3"]["inputs"],
        fig4=LDP_PLOTS["fig4"]["inputs"],
        fig5=LDP_PLOTS["fig5"]["inputs"],
        bounds=rules.ldp_sparse_bounds.output.csv,
        fig1=rules.ldp_sparse_fig1.output.csv,
        table2=rules.ldp_sparse_table2.output.csv,
    output:
        csv=f"{LDP_OUT}/claims.csv",
        md=f"{LDP_OUT}/claims.md",
    log:
        "results/logs/ldp_sparse/claims.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        thresholds=ldp_core.claims_thresholds(LDP),
        significance=config["claims"],
        figures=lambda w: [f["label"] for f in PAPERS["ldp_sparse"]["figures"]],
    script:
        "../../scripts/ldp_sparse_claims.py"


register_readings(
    "ldp_sparse",
    tables={
        "fig1": rules.ldp_sparse_fig1.output.csv,
        "fig2": LDP_PLOTS["fig2"]["inputs"],
        "fig3": LDP_PLOTS["fig3"]["inputs"],
        "fig4": LDP_PLOTS["fig4"]["inputs"],
        "fig5": LDP_PLOTS["fig5"]["inputs"],
        "bounds": rules.ldp_sparse_bounds.output.csv,
        "table2": rules.ldp_sparse_table2.output.csv,
    },
    datasets=[*LDP["fig1"]["datasets"], *LDP["fig5"]["datasets"]],
    claims_kwargs=dict(
        thresholds=ldp_core.claims_thresholds(LDP),
        significance=config["claims"],
        figures=[f["label"] for f in PAPERS["ldp_sparse"]["figures"]],
    ),
)


rule ldp_sparse:
    input:
        rules.ldp_sparse_table2.output,
        rules.ldp_sparse_fig1.output,
        rules.ldp_sparse_figures.output,
        rules.ldp_sparse_bounds.output,
        rules.ldp_sparse_claims.output,
        PAPERS["ldp_sparse"]["readings"],
    localrule: True
