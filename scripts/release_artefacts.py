"""Adapter for rules ldp_sparse_release / priscrowd_synthetic_release: the pipeline's own
private artefacts, built by the same API a user calls (crowdpriv.api), each with its ledger.

LDP-sparse: one perturbed copy of each real dataset per mechanism at the config's ε.
PrisCrowd: the synthetic claims of each dataset per seed weighting. Seeds derive from the
config (a reproduction), so each ledger says the output is reproducible and not private.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import functools  # noqa: E402
import warnings  # noqa: E402

from crowdpriv import api  # noqa: E402
from crowdpriv.seeds import derive_rng  # noqa: E402
from crowdpriv.userfiles import read_answer_table  # noqa: E402

p = snakemake.params  # noqa: F821
outputs = list(snakemake.output)  # noqa: F821
jobs = list(p.jobs)
# PrisCrowd: the input last read, released once per seed weighting (read once)
read_input = functools.lru_cache(maxsize=1)(read_answer_table)
for job, output in zip(jobs, outputs):
    seed = int(derive_rng(p.seed, "release", *job["labels"]).integers(2**31))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # a demonstration of every mechanism, the unsafe ones included: their ledgers say so
        if job["kind"] == "perturb":
            release = api.perturb(job["input"], job["mechanism"], epsilon=job["epsilon"],
                                  domain=job["domain"], seed=seed, allow_unsafe=True)
        else:
            release = api.synthesize(read_input(job["input"]), seed=seed, allow_unsafe=True,
                                     **job["options"])
    for w in caught:
        logger.info("%s: %s", output, w.message)
    release.ledger["pipeline"] = ("built by the reproduction with a seed derived from the "
                                  "config: reproducible, a demonstration, NOT a private release")
    api.write_release(release, output, progress=False)
    logger.info("%s: %d rows", output, len(release.data))
finish_job()
