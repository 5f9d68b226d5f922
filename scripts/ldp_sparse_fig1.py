"""LDP-sparse Fig. 1: answer distributions of the Web and AdultContent datasets.

Adapter: per dataset, ``crowdpriv.ldp_sparse.fig1_table`` on the processed tables (the function
the readings job calls too); writes the tidy CSV and the figure (PNG, SVG).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import (  # noqa: E402
    fig1_table,
    load_real,
    plot_answer_distribution,
    save_figure,
)
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
block = p.config["ldp_sparse"]
data = {
    ds: load_real(claims, truth, domain_size=block["real_domain_size"])
    for ds, claims, truth in zip(
        p.datasets, snakemake.input.claims, snakemake.input.truth  # noqa: F821
    )
}
dist = fig1_table(block, data)
write_csv(dist, snakemake.output.csv)  # noqa: F821
fig = plot_answer_distribution(
    dist,
    title="LDP-sparse Fig. 1: answer distribution of the real datasets",
    paper_gold_zero_share=p.paper_gold_zero_share,
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)  # noqa: F821
finish_job()
