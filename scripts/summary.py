"""Adapter for rule summary: results/summary.md from the result CSVs (crowdpriv.summary)."""

from pathlib import Path

import pandas as pd

from crowdpriv.runtime import log_to
from crowdpriv.summary import FigureEntry, PaperSection, render_summary, side_by_side

logger = log_to(snakemake.log[0])
stats = pd.read_csv(snakemake.input.stats)
tables = {
    "ldp_sparse": [
        (
            "Theorem bounds in the paper's worked examples (per-experiment bounds beside the "
            "simulated MAE: results/ldp_sparse/bounds.md)",
            pd.read_csv(snakemake.input.ldp_bounds).query("experiment == 'paper_example'"),
        ),
    ],
    "pptd": [],
    "pris": [
        ("Table 1 (ours beside the paper)", side_by_side(pd.read_csv(snakemake.input.pris_table1), ["dataset", "method"])),
        ("Table 2 (ours beside the paper)", side_by_side(pd.read_csv(snakemake.input.pris_table2), ["p", "method"])),
    ],
}
paper_of_stats = {"ldp_sparse": "LDP-sparse", "pris": "PrisCrowd", "pptd": "PPTD"}
missing = [f for paper in snakemake.params.figures for entry in paper["figures"] for f in entry[2]
           if not Path(f).is_file()]
if missing:
    raise ValueError(f"summary lists files the pipeline did not produce: {missing}")
sections = []
for paper in snakemake.params.figures:
    key = paper["key"]
    own_stats = stats.loc[stats["paper"] == paper_of_stats[key]]
    dataset_table = own_stats[
        ["dataset", "sources", "paper_sources", "objects", "paper_objects", "claims", "paper_claims"]
    ]
    sections.append(
        PaperSection(
            title=paper["title"],
            claims=pd.read_csv(snakemake.input[f"{key}_claims"]),
            figures=[FigureEntry(*entry) for entry in paper["figures"]],
            tables=([("Datasets (ours beside the paper)", dataset_table)] if len(own_stats) else [])
            + tables[key],
        )
    )
text = render_summary(
    sections,
    preamble=(
        "Built by the pipeline from the result CSVs (rule `summary`); nothing here is typed in. "
        "`stock_surrogate` and `indoor_surrogate` are SURROGATE datasets (simulated sources); "
        "`web` is a different version of the paper's Web data. See the README's Results section "
        "for why results differ from the papers."
    ),
)
open(snakemake.output[0], "w").write(text)
logger.info("summary: %d papers", len(sections))
