"""Adapter for rule preprocess_population (PrisCrowd's population preprocessing)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import (
    filter_population_claims,
    parse_pop_tuples,
    pop_tuples_to_claims,
    read_pop_data_csv,
    read_population_truth,
)
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
cfg = snakemake.params.cfg
if cfg["claims_from"] == "raw_tuples":
    raw = pop_tuples_to_claims(parse_pop_tuples(snakemake.input.claims))
else:
    raw = read_pop_data_csv(snakemake.input.claims)
claims = filter_population_claims(raw, max_value=cfg["max_value"])
truth = read_population_truth(snakemake.input.truth)
truth = truth.loc[truth["task"].isin(set(claims["task"]))]
logger.info("population: %d raw claims -> %d claims, %d objects with truth", len(raw),
            len(claims), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
finish_job()
