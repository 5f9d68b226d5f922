"""LDP-sparse Table II: statistics of the Web and AdultContent datasets, beside the paper's.

Adapter: ``crowdpriv.ldp_sparse.dataset_table`` on the foundation's results/datasets/stats.csv;
writes CSV and Markdown.
"""

from crowdpriv.runtime import log_to

logger = log_to(snakemake.log[0])  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import dataset_table, markdown_table, round_floats  # noqa: E402

table = dataset_table(pd.read_csv(snakemake.input[0]), snakemake.params.datasets)  # noqa: F821
round_floats(table).to_csv(snakemake.output.csv, index=False)  # noqa: F821
with open(snakemake.output.md, "w") as fh:  # noqa: F821
    fh.write("LDP-sparse Table II: details of the real-world datasets (ours vs paper_*)\n\n")
    fh.write(markdown_table(table, digits=6))
