"""Adapter for rule datasets: statistics of every dataset beside the papers' (results/datasets)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import pandas as pd

from crowdpriv.data import AnswerType, compare_with_paper, dataset_statistics, value_summary
from crowdpriv.runtime import column_formatter, finish_job, start_job, write_csv, write_markdown
from crowdpriv.tables import read_claims, read_truth

logger = start_job(snakemake)
types = {name: AnswerType(**spec) for name, spec in snakemake.params.answer_types.items()}
rows = []
for name, claims_path, truth_path in zip(
    snakemake.params.datasets, snakemake.input.claims, snakemake.input.truth
):
    claims = read_claims(claims_path)
    stats = {"dataset": name, **dataset_statistics(claims, read_truth(truth_path))}
    if name == "adultcontent":  # Sun et al.'s count: (worker, URL) pairs de-duplicated case-blind
        casefold = claims.assign(task=claims["task"].str.lower())
        stats["claims_casefold"] = int(casefold.drop_duplicates(["task", "worker"]).shape[0])
    stats.update(value_summary(claims, types.get(name)))
    rows.append(stats)
table = compare_with_paper(pd.DataFrame(rows), pd.read_csv(snakemake.input.paper),
                           published=snakemake.params.published)
write_csv(table, snakemake.output.csv)
# one column per quantity, "ours (paper's)" in each cell
shown = table[["dataset", "paper"]].copy()
for quantity in ("workers", "tasks", "claims", "tasks_with_truth", "sparsity_min",
                 "sparsity_max", "sparsity_avg"):
    ours = column_formatter(table[quantity], thousands=True)
    paper_column = f"paper_{quantity}"
    if paper_column in table:
        theirs = column_formatter(table[paper_column], thousands=True)
        shown[quantity] = [
            ours(float(a)) + (f" ({theirs(float(b))})" if pd.notna(b) else "")
            for a, b in zip(table[quantity], table[paper_column])]
    else:
        shown[quantity] = [ours(float(a)) for a in table[quantity]]
# values: the label counts of a declared categorical dataset, else the answers' range
labels = table["label_counts"] if "label_counts" in table else pd.Series("", index=table.index)
shown["values"] = [
    counts if isinstance(counts, str) and counts else f"{low:g} .. {high:g}"
    for counts, low, high in zip(labels, table["value_min"], table["value_max"])]
notes = "\n".join(f"- **{r.dataset}**: {r.note}" for r in table.itertuples() if r.note)
write_markdown(
    shown,
    snakemake.output.md,
    title="Dataset statistics: ours (the paper's in brackets)",
    notes="Sparsity = per worker, the fraction of the dataset's tasks it did not answer. "
    "values: label: count of a categorical dataset, else min .. max of the answers.\n"
    "stock_surrogate and indoor_surrogate are SURROGATES (simulated workers).\n\n" + notes,
)
finish_job()
