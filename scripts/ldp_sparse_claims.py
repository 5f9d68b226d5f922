"""LDP-sparse Sec. VI claims, decided from the figure and bounds CSVs.

Adapter: ``crowdpriv.ldp_sparse.evaluate_claims``; writes results/ldp_sparse/claims.csv.
"""

from crowdpriv.runtime import log_to

logger = log_to(snakemake.log[0])  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.ldp_sparse import evaluate_claims  # noqa: E402

i = snakemake.input  # noqa: F821
claims = evaluate_claims(
    pd.read_csv(i.fig2),
    pd.read_csv(i.fig3),
    pd.read_csv(i.fig4),
    pd.read_csv(i.fig5),
    tolerance=snakemake.params.tolerance,  # noqa: F821
    bounds=pd.read_csv(i.bounds),
    fig1=pd.read_csv(i.fig1),
)
claims.to_csv(snakemake.output[0], index=False)  # noqa: F821
