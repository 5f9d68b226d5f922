"""MF sensitivity to d and a ridge term λ (diagnostic for LDP-sparse Fig. 3; not in the paper).

Adapter: reads snakemake params, calls ``crowdpriv.ldp_sparse.run_mf_sensitivity`` with
``mf_sensitivity_kwargs`` of the config block, writes the per-repetition CSV.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import Progress, finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import mf_sensitivity_kwargs, run_mf_sensitivity  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = run_mf_sensitivity(**mf_sensitivity_kwargs(p.config["ldp_sparse"]), seed=p.seed,
                         progress=progress)
write_csv(raw, snakemake.output[0])  # noqa: F821
finish_job()
