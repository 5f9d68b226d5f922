# One page over all three papers: results/summary.md, read from the result CSVs only.


rule summary:
    input:
        stats=rules.datasets.output.csv,
        ldp_sparse_claims=rules.ldp_sparse_claims.output[0],
        ldp_bounds=rules.ldp_sparse_bounds.output.csv,
        ldp_figures=rules.ldp_sparse.input,
        pptd_claims="results/pptd/claims.csv",
        pptd_figures=rules.pptd.input,
        pris_claims="results/priscrowd/claims.csv",
        pris_table1="results/priscrowd/table1.csv",
        pris_table2="results/priscrowd/table2.csv",
        pris_figures=rules.priscrowd.input,
    output:
        report(
            "results/summary.md",
            caption="../report/summary.rst",
            category="Summary",
        ),
    log:
        "results/logs/summary.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        figures=SUMMARY_FIGURES,
    script:
        "../../scripts/summary.py"
