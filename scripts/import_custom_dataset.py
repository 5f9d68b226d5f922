"""Adapter for rule import_custom_dataset: a user's own claims/truth CSVs into data/processed."""

from crowdpriv.data import import_claims_table
from crowdpriv.runtime import log_to, write_csv

logger = log_to(snakemake.log[0])
claims, truth = import_claims_table(snakemake.input.claims, snakemake.input.get("truth"))
logger.info("%s: %d claims, %d objects with truth", snakemake.wildcards.dataset, len(claims),
            len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
