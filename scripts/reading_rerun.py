"""Adapter for rules <paper>_reading_rerun: re-run the tables one named reading reaches.

Merges the reading's override into the paper's config block (crowdpriv.readings) and lets the
paper's ``rerun_tables`` re-run only the result tables the override reaches, with the functions
the default jobs call and the same seeds. Writes one CSV per re-run table and ``absent.csv``
(tables the reading reaches but the config leaves out for cost, with the reason) and
``notes.csv`` (what was re-run, and what the re-run measured) into the output folder; needs only the processed data, so it runs beside the default experiments.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import importlib  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from crowdpriv.readings import Reading, apply_override  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
paper = importlib.import_module(f"crowdpriv.{p.paper}")
spec = dict(p.reading)
reading = Reading(**{**spec, "methods": None if spec["methods"] is None else tuple(spec["methods"])})
where = f"{p.paper}.readings.alternatives.{reading.name}"
block = apply_override(p.block, reading.override, where=f"{where}.set")
datasets_block = apply_override(p.datasets, reading.data, where=f"{where}.data")
new, absent, notes = paper.rerun_tables(
    reading, block, seed=p.seed, data_paths=p.data_paths,
    not_rerun=list(p.not_rerun), datasets_block=datasets_block,
)
out = Path(snakemake.output.folder)  # noqa: F821
out.mkdir(parents=True, exist_ok=True)
for name, table in new.items():
    write_csv(table, out / f"{name}.csv")
write_csv(pd.DataFrame({"table": list(absent), "reason": list(absent.values())},
                       columns=["table", "reason"]), out / "absent.csv")
write_csv(pd.DataFrame({"note": notes}, columns=["note"]), out / "notes.csv")
for note in notes:
    logger.info("reading %s: %s", reading.name, note)
finish_job()
