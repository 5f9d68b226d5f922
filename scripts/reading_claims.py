"""Adapter for rules <paper>_reading: one paper's claims under one named reading.

The tables the reading re-ran (rule <paper>_reading_rerun) replace the default's (only the
re-run methods' rows when the reading names methods; crowdpriv.readings.merge_tables); the
paper's claims are then evaluated with the same engine and statistics as
results/<paper>/claims.csv. Tables the reading reaches but did not re-run are left out, and
the claims reading them are "not testable" with that reason.
"""

from crowdpriv.runtime import start_job

logger = start_job(snakemake)  # noqa: F821

import importlib  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from crowdpriv.readings import merge_tables  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402
from crowdpriv.significance import Significance  # noqa: E402

p = snakemake.params  # noqa: F821
paper = importlib.import_module(f"crowdpriv.{p.paper}")


def read(paths):
    paths = [paths] if isinstance(paths, str) else list(paths)
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)


default = {name: read(snakemake.input[name]) for name in p.tables}  # noqa: F821
folder = Path(snakemake.input.rerun)  # noqa: F821
absent_table = pd.read_csv(folder / "absent.csv")
absent = dict(zip(absent_table["table"], absent_table["reason"]))
rerun = {name: pd.read_csv(folder / f"{name}.csv") for name in p.tables
         if (folder / f"{name}.csv").is_file()}
methods = p.reading["methods"]
tables = merge_tables(default, rerun, absent, None if methods is None else tuple(methods))
kwargs = dict(p.claims_kwargs)
kwargs["significance"] = Significance.from_mapping(kwargs["significance"])
claims = paper.evaluate_claims(tables, absent=absent, **kwargs)
write_csv(claims, snakemake.output.csv)  # noqa: F821
logger.info("re-run: %s; left out: %s", sorted(rerun), sorted(absent))
logger.info("%s", claims[["claim_id", "status"]].to_string())
