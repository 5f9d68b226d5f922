"""LDP-sparse Fig. 1: answer distributions of the Web and AdultContent datasets.

Adapter: per dataset, ``crowdpriv.ldp_sparse.answer_distribution`` on the processed tables;
writes the tidy CSV and the figure (PNG, SVG).
"""

from crowdpriv.runtime import start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import (  # noqa: E402
    answer_distribution,
    plot_answer_distribution,
    save_figure,
)
from crowdpriv.runtime import write_csv  # noqa: E402
from crowdpriv.tables import align_truth, claims_to_matrix, read_claims, read_truth  # noqa: E402

p = snakemake.params  # noqa: F821
frames = []
for ds, claims, truth in zip(p.datasets, snakemake.input.claims, snakemake.input.truth):  # noqa: F821
    labels = dict(domain_size=p.domain_size, domain_key="ldp_sparse.real_domain_size")
    cm = claims_to_matrix(read_claims(claims, **labels))
    t = align_truth(read_truth(truth, **labels), cm.tasks, truth)
    d = answer_distribution(cm.values, t, domain_size=p.domain_size)
    d.insert(0, "dataset", ds)
    frames.append(d)
dist = pd.concat(frames, ignore_index=True)
write_csv(dist, snakemake.output.csv)  # noqa: F821
fig = plot_answer_distribution(
    dist, title="LDP-sparse Fig. 1: answer distribution of the real datasets"
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)  # noqa: F821
