"""LDP-sparse Theorems 2, 3 and 5: error bounds in the paper's examples and in each experiment's
setting, beside the simulated MAE after perturbation.

Adapter: ``crowdpriv.ldp_sparse.bounds_table`` on the figure summaries; writes CSV and Markdown.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import bounds_table  # noqa: E402
from crowdpriv.runtime import write_csv, write_markdown  # noqa: E402

frames = []
for path in snakemake.input:  # noqa: F821
    df = pd.read_csv(path)
    if "dataset" in df:
        df["setting"] = df["dataset"] + " (real)"
    else:
        df["setting"] = df["workers"].astype(str) + "x" + df["tasks"].astype(str) + " synthetic"
    frames.append(df)
table = bounds_table(pd.concat(frames, ignore_index=True), snakemake.params.paper_bounds)  # noqa: F821
write_csv(table, snakemake.output.csv)  # noqa: F821
write_markdown(table, snakemake.output.md,  # noqa: F821
               title="LDP-sparse Theorems 2/3/5: bounds on E[MAE] vs simulated mean MAE_P")
finish_job()
