"""Adapter for rule readings_matrix: one paper's claims under every named reading, and the
claims x readings matrix (results/<paper>/readings.csv and readings.md, crowdpriv.readings).

For each reading, the tables its re-run job wrote replace the default's (only the re-run
methods' rows when the reading names methods) and the settings the default run computed for
every value are selected from its columns (crowdpriv.readings.tables_under); the paper's claims
are evaluated with the same engine and statistics as results/<paper>/claims.csv (all readings'
claims in results/<paper>/readings/claims.csv). Tables a reading reaches but did not re-run are
left out, and the claims reading them are "not testable" with that reason.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import importlib  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from crowdpriv.readings import (  # noqa: E402
    DEFAULT,
    derived_notes,
    has_rerun,
    parse_readings,
    tables_under,
    verdict_matrix,
    write_matrix,
)
from crowdpriv.runtime import write_csv  # noqa: E402
from crowdpriv.significance import Significance  # noqa: E402

p = snakemake.params  # noqa: F821
paper = importlib.import_module(f"crowdpriv.{p.paper}")
readings = parse_readings(p.readings, where=f"{p.paper}.readings")


def read(paths):
    paths = [paths] if isinstance(paths, str) else list(paths)
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)


default_tables = {name: read(snakemake.input[name]) for name in p.tables}  # noqa: F821
kwargs = dict(p.claims_kwargs)
kwargs["significance"] = Significance.from_mapping(kwargs["significance"])
claims = {DEFAULT: pd.read_csv(snakemake.input.default)}  # noqa: F821
notes = []
# results/<paper>/readings/<reading>/rerun, for the readings that have a re-run job
folders = {Path(folder).parent.name: folder for folder in snakemake.input.reruns}  # noqa: F821
for reading in readings[1:]:
    folder = folders.get(reading.name)
    if (folder is None) == has_rerun(paper, reading):
        raise ValueError(f"reading {reading.name}: re-run folder {folder!r} does not match "
                         "crowdpriv.readings.has_rerun (the rules and this job disagree)")
    tables, absent = tables_under(paper, reading, default_tables, folder)
    claims[reading.name] = paper.evaluate_claims(
        tables, absent=absent, **{**kwargs, "thresholds": dict(p.thresholds[reading.name])})
    logger.info("reading %s: left out %s\n%s", reading.name, sorted(absent),
                claims[reading.name][["claim_id", "status"]].to_string())
    lines = (pd.read_csv(f"{folder}/notes.csv")["note"].tolist() if folder is not None
             else derived_notes(reading, paper.TABLE_KEYS))
    notes.append(f"- **{reading.name}**: " + ("; ".join(lines) or "nothing re-run"))
write_csv(pd.concat([c.assign(under_reading=name) for name, c in claims.items() if name != DEFAULT],
                    ignore_index=True).pipe(lambda d: d[["under_reading", *d.columns[:-1]]]),
          snakemake.output.claims)  # noqa: F821
matrix = verdict_matrix(claims, readings)
write_matrix(
    matrix, readings, snakemake.output.csv, snakemake.output.md,  # noqa: F821
    title=f"{p.title}: every claim under every reading",
    notes=(
        f"The default column is results/{p.paper}/claims.csv (reading "
        f"'{p.readings['default']['name']}'). Each other column re-runs only the tables its "
        "override reaches, with the same seeds, or, for a setting whose every value the default "
        "run computes (e.g. LDP-sparse's q_i in Theorem 5, PrisCrowd's SISE), selects that "
        "value's columns; 'robust' = the same decided status under every reading that can test "
        "the claim. Readings are documented in config/README.md.\n\n"
        "What each reading re-ran (and what the re-run measured):\n\n" + "\n".join(notes)
    ),
)
logger.info("%d claims x %d readings", matrix["claim"].nunique(), len(readings))
finish_job()
