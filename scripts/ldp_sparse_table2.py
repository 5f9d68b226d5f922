"""LDP-sparse Table II: statistics of the Web and AdultContent datasets, beside the paper's.

Adapter: ``crowdpriv.ldp_sparse.dataset_table`` on the foundation's results/datasets/stats.csv;
writes CSV and Markdown.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import dataset_table  # noqa: E402
from crowdpriv.runtime import write_csv, write_markdown  # noqa: E402

table = dataset_table(pd.read_csv(snakemake.input[0]), snakemake.params.datasets)  # noqa: F821
write_csv(table, snakemake.output.csv)  # noqa: F821
write_markdown(table, snakemake.output.md,  # noqa: F821
               title="LDP-sparse Table II: details of the real-world datasets (ours vs paper_*)")
finish_job()
