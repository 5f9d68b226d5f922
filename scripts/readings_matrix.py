"""Adapter for rules <paper>_readings: the claims x readings matrix of one paper
(results/<paper>/readings.csv and readings.md, crowdpriv.readings)."""

from crowdpriv.runtime import start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.readings import DEFAULT, parse_readings, verdict_matrix, write_matrix  # noqa: E402

p = snakemake.params  # noqa: F821
readings = parse_readings(p.readings, where=f"{p.paper}.readings")
claims = {DEFAULT: pd.read_csv(snakemake.input.default)}  # noqa: F821
for reading, path in zip(readings[1:], snakemake.input.readings):  # noqa: F821
    claims[reading.name] = pd.read_csv(path)
matrix = verdict_matrix(claims, readings)
notes = []
for reading, folder in zip(readings[1:], snakemake.input.reruns):  # noqa: F821
    lines = pd.read_csv(f"{folder}/notes.csv")["note"].tolist()
    notes.append(f"- **{reading.name}**: " + ("; ".join(lines) or "nothing re-run"))
write_matrix(
    matrix, readings, snakemake.output.csv, snakemake.output.md,  # noqa: F821
    title=f"{p.title}: every claim under every reading",
    notes=(
        f"The default column is results/{p.paper}/claims.csv (reading "
        f"'{p.readings['default']['name']}'). Each other column re-runs only the tables its "
        "override reaches, with the same seeds; 'robust' = the same decided status under every "
        "reading that can test the claim. Readings are documented in config/README.md.\n\n"
        "What each reading re-ran (and what the re-run measured):\n\n" + "\n".join(notes)
    ),
)
logger.info("%d claims x %d readings", matrix["claim"].nunique(), len(readings))
