"""Adapter for rule priscrowd_fig3: PrisCrowd Fig. 3 "Case study on real-world datasets".

Objects per dataset chosen by the documented rule (config ``priscrowd.fig3.quantiles`` of the
uniform density's ISE, ``crowdpriv.priscrowd.choose_case_studies``): densities from combined weights (red), global weights
only (black), uniform weights (green), the reference density K_h(. - truth) (blue), and the
claims (magenta) marked by their user's combined weight.
"""

import pandas as pd

from crowdpriv.priscrowd import fig3_case_ise, plot_fig3
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
curves = pd.concat([pd.read_csv(p) for p in snakemake.input.curves], ignore_index=True)
claims = pd.concat([pd.read_csv(p) for p in snakemake.input.claims], ignore_index=True)
write_csv(curves, snakemake.output.csv)
write_csv(claims, snakemake.output.claims)
write_csv(fig3_case_ise(curves), snakemake.output.ise)
plot_fig3(curves, claims, [snakemake.output.png, snakemake.output.svg],
          quantiles=list(snakemake.params.quantiles))
