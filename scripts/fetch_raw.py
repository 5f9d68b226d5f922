"""Adapter for rule fetch_raw: local mirror, HTTP mirror or upstream copy of one raw file.

The sources (config ``mirror_dir``, ``mirror_url``) and the timeout are read here from the config rather than
passed as rule params, so that changing mirrors never re-fetches an already verified file.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import os
from pathlib import Path

from crowdpriv.data import fetch_verified, mirror_file_url
from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)
entry = snakemake.params.entry
repo = Path(snakemake.scriptdir).parent  # relative mirror_dir: from the repository root
mirror_dir = snakemake.config.get("mirror_dir") or ""
mirror_url = snakemake.config.get("mirror_url") or ""
origin = fetch_verified(
    snakemake.output[0],
    sha256=entry["sha256"],
    size=entry["size"],
    url=entry["url"] or None,
    mirror_path=os.path.join(repo, mirror_dir, entry["relative"]) if mirror_dir else None,
    mirror_url=mirror_file_url(mirror_url, entry["relative"]) if mirror_url else None,
    timeout=float(snakemake.config["download_timeout_s"]),
)
logger.info("%s: verified copy from %s", snakemake.output[0], origin)
finish_job()
