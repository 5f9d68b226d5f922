"""LDP-sparse Theorems 2, 3 and 5: error bounds in the paper's examples and in each experiment's
setting, beside the simulated MAE after perturbation.

Adapter: ``crowdpriv.ldp_sparse.bounds_table`` on the figure summaries; writes CSV and Markdown.
"""

from crowdpriv.runtime import log_to

logger = log_to(snakemake.log[0])  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import bounds_table, markdown_table, round_floats  # noqa: E402

frames = []
for path in snakemake.input:  # noqa: F821
    df = pd.read_csv(path)
    if "dataset" in df:
        df["setting"] = df["dataset"] + f" (real)"
    else:
        df["setting"] = df["workers"].astype(str) + "x" + df["tasks"].astype(str) + " synthetic"
    frames.append(df)
table = bounds_table(pd.concat(frames, ignore_index=True), snakemake.params.paper_bounds)  # noqa: F821
round_floats(table).to_csv(snakemake.output.csv, index=False)  # noqa: F821
with open(snakemake.output.md, "w") as fh:  # noqa: F821
    fh.write("LDP-sparse Theorems 2/3/5: bounds on E[MAE] vs simulated mean MAE_P\n\n")
    fh.write(markdown_table(table))
