"""Adapter for rule preprocess_answer_table (Zheng et al.'s benchmark: product, dog, emotion)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import AnswerType, read_answer_table
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
spec = AnswerType(**snakemake.params.answer_type)
claims, truth = read_answer_table(snakemake.input.answers, snakemake.input.truth, spec)
logger.info("%s (%s%s): %d answers, %d tasks, %d workers, %d truths", snakemake.wildcards.dataset,
            spec.kind, f", K = {spec.domain_size}" if spec.domain_size else "", len(claims),
            claims["task"].nunique(), claims["worker"].nunique(), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
finish_job()
