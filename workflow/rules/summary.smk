# One page over every registered paper: results/summary.md, read from the result CSVs only,
# and results/index.csv, the list of every registered artefact (read by the e2e test).


rule summary:
    input:
        unpack(summary_inputs),
    output:
        md=report(
            "results/summary.md",
            caption="../report/summary.rst",
            category="Summary",
        ),
        index="results/index.csv",
    log:
        "results/logs/summary.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        papers=lambda wildcards: list(PAPERS.values()),
    script:
        "../../scripts/summary.py"
