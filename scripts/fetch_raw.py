"""Adapter for rule fetch_raw: mirror copy or download of one raw file, sha256-verified."""

from crowdpriv.data import fetch_verified
from crowdpriv.runtime import log_to

logger = log_to(snakemake.log[0])
entry = snakemake.params.entry
origin = fetch_verified(
    snakemake.output[0],
    sha256=entry["sha256"],
    url=entry["url"] or None,
    mirror_path=entry["mirror_path"] or None,
    timeout=float(snakemake.params.timeout),
)
logger.info("%s: verified copy from %s", snakemake.output[0], origin)
