"""Adapter for rule report_pages: every registered table as an HTML page for the report
(crowdpriv.html), the run's complete config (results/run_config.yaml, which `make report`
renders the captions from) and results/README.md (crowdpriv.results_guide)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from pathlib import Path

import yaml

from crowdpriv.files import write_text
from crowdpriv.html import csv_page, markdown_page, markdown_to_html, page
from crowdpriv.results_guide import results_readme
from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)
for path, (source, _category, title) in snakemake.params.pages.items():
    text = csv_page(source, title=title) if source.endswith(".csv") else markdown_page(
        source, title=title)
    write_text(path, text)
logger.info("%d table pages written", len(snakemake.params.pages))

# the report's home page: the summary's head (totals per paper), short enough to be read whole
summary = Path("results/summary.md").read_text()
head = summary.split("\n## ", 1)[0]
write_text(snakemake.output.home, page("Summary", markdown_to_html(head)))

write_text(
    snakemake.output.run_config,
    "# The complete config of the run that wrote results/ (defaults filled in by the schema).\n"
    "# `make report` passes it with --configfile so the report's captions state this run.\n"
    + yaml.safe_dump(dict(snakemake.params.run_config), sort_keys=False, allow_unicode=True))

outputs = {str(p) for p in snakemake.output}
files = [str(p) for p in Path("results").rglob("*") if p.is_file()] + sorted(outputs)
write_text(snakemake.output.readme, results_readme(
    files, snakemake.params.papers,
    config_note="The parameters of the run are in `run_config.yaml`."))
finish_job()
