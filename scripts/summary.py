"""Adapter for rule summary: results/summary.md and results/index.csv from the paper registry.

Loops over the registered papers (snakemake.params.papers, from register_paper in each
workflow/rules/<paper>.smk); reads only result CSVs (crowdpriv.summary).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from pathlib import Path

import pandas as pd

from crowdpriv.files import write_text
from crowdpriv.runtime import finish_job, start_job, write_csv
from crowdpriv.summary import build_index, build_sections, render_summary

logger = start_job(snakemake)
papers = list(snakemake.params.papers)
index = build_index(papers)
missing = [p for p in index["path"] if not Path(p).is_file()]
if missing:
    raise ValueError(f"the registry lists files the pipeline did not produce: {missing}")
stats = pd.read_csv(snakemake.input.stats) if "stats" in snakemake.input.keys() else None
text = render_summary(
    build_sections(papers, stats=stats),
    preamble=(
        "Built by the pipeline from the result CSVs (rule `summary`); nothing here is typed in. "
        "`stock_surrogate` and `indoor_surrogate` are SURROGATE datasets (simulated sources); "
        "`web` is a different version of the paper's Web data. Statuses: holds, fails, "
        "inconclusive (the repetitions cannot decide), not testable (no data in this run); a "
        "status followed by (surrogate only: …) rests on surrogate data. Each claim's statistical "
        "basis and evidence are in its paper's claims file, linked above its table; every term "
        "is explained in docs/claims.md (Glossary). See docs/results.md for why results differ "
        "from the papers."
    ),
)
write_text(snakemake.output.md, text)
write_csv(index, snakemake.output.index)
logger.info("summary: %d papers, %d registered files", len(papers), len(index))
finish_job()
