"""Adapter for rule priscrowd_claims: check the PrisCrowd paper's claims on our results.

Huai et al., IJCAI 2019, Sec. 5 and App. E: PrisCrowd beats every baseline (Tables 1, 2), its
advantage is largest on stock, all methods degrade with p, ISE/SISE flatten with m (Fig. 4),
run time is about linear in m and the privacy test adds cost (Fig. 5), combined weights give
the best density (Fig. 3).
"""

import pandas as pd

from crowdpriv.priscrowd import evaluate_claims
from crowdpriv.runtime import log_to, write_csv, write_markdown

logger = log_to(snakemake.log[0])
read = {k: pd.read_csv(getattr(snakemake.input, k))
        for k in ("table1", "table2", "fig4", "fig5", "fig3_ise", "paper1")}
claims = evaluate_claims(read["table1"], read["table2"], read["fig4"], read["fig5"],
                         read["fig3_ise"], read["paper1"], **dict(snakemake.params.thresholds))
write_csv(claims, snakemake.output.csv)
write_markdown(claims, snakemake.output.md, title="PrisCrowd: the paper's claims on our results")
