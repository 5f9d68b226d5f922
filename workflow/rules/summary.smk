# One page over every registered paper: results/summary.md, read from the result CSVs only,
# and results/index.csv, the list of every registered artefact (read by the e2e test).


rule summary:
    input:
        unpack(summary_inputs),
    output:
        md="results/summary.md",
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


REPORT_PAGES = report_page_sources()


rule report_pages:
    input:
        sources=sorted({src for src, _, _ in REPORT_PAGES.values()}),
        everything=lambda wildcards: [
            f for p in PAPERS.values() for f in registry_files(p)
        ],
    output:
        **{
            f"page{i}": report(
                path,
                caption=table_caption(path),
                category=category,
                subcategory="Tables" if category != "Summary" else None,
                labels={"table": title, "file": source},
            )
            for i, (path, (source, category, title)) in enumerate(REPORT_PAGES.items())
        },
        home="results/report/home.html",
        run_config="results/run_config.yaml",
        readme="results/README.md",
    log:
        "results/logs/report_pages.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        pages=REPORT_PAGES,
        papers=lambda wildcards: list(PAPERS.values()),
        run_config=lambda wildcards: config,
    script:
        "../../scripts/report_pages.py"
