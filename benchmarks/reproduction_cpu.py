"""CPU time of a reproduction, job by job, in seconds and in calibration units (issue 28).

Not a test: ``.venv/bin/python benchmarks/reproduction_cpu.py [results]`` after a run. Every
pipeline job writes its own CPU record at exit (``crowdpriv.runtime.record_job_cpu``, hooked
into ``start_job``): ``results/benchmarks/<log path>.cpu.json`` with the process's user + system
CPU seconds and its waited-for children's (``resource.getrusage``: the kernel's accounting, from
the interpreter's start-up to the exit, imports included), and the calibration unit measured
in that job right after (one ``np.bincount`` pass over 1M answers with weights, CPU seconds,
``crowdpriv.runtime.calibration_unit``). Snakemake's own benchmark ``cpu_time`` is not used: it
samples every 30 s and reports almost nothing for a short job.

Prints the table sorted by CPU (seconds, units = seconds / the run's median unit, share of the
total), the totals, the rules that dominate, and the start-up of a job measured now step by
step in fresh interpreters (Snakemake's preamble, numpy + pandas, crowdpriv: paid by every job
whatever it computes in its own process) beside what the job server saved of it (a job forked
by the server pays its launcher's interpreter and preamble, in its record, and the server's
imports once, its own row, ``job_server``); writes it as
``<results>/benchmarks/reproduction_cpu.csv``. CPU outside the jobs (the Snakemake scheduler
itself) is not in these records; the Snakefile's ``onsuccess`` writes the whole run's
(``snakemake_run.json``: the scheduler's process and all its children), printed after the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = ".cpu.json"
sys.path.insert(0, str(ROOT / "scripts"))
from crowdpriv.files import atomic_path  # noqa: E402
from crowdpriv.runtime import RUN_RECORD  # noqa: E402  (the whole run's record)


def read_records(results: Path) -> pd.DataFrame:
    """One row per ``*.cpu.json`` under ``results/benchmarks`` (job = path without suffix)."""
    base = results / "benchmarks"
    rows = []
    for path in sorted(base.rglob(f"*{SUFFIX}")):
        record = json.loads(path.read_text())
        job = path.relative_to(base).as_posix()[: -len(SUFFIX)]
        rows.append({"job": job, "rule": record.get("rule", ""),
                     "cpu_s": float(record["cpu_s"]),
                     "children_cpu_s": float(record.get("children_user_s", 0.0)
                                             + record.get("children_system_s", 0.0)),
                     "system_s": float(record.get("system_s", 0.0)),
                     "wall_s": float(record.get("wall_s", np.nan)),
                     "max_rss_mib": float(record.get("max_rss_mib", np.nan)),
                     "unit_cpu_s": float(record.get("unit_cpu_s", np.nan)),
                     "finished_at": float(record.get("finished_at", np.nan)),
                     "launcher_cpu_s": float(record.get("launcher_cpu_s", np.nan)),
                     "without_launcher": bool(record.get("without_launcher", False)),
                     "failed": bool(record.get("failed", False))})
    return pd.DataFrame(rows)


def cpu_table(records: pd.DataFrame, unit: float | None = None) -> tuple[pd.DataFrame, float]:
    """The per-job table sorted by CPU, with units and shares; returns it and the unit used
    (``unit``, else the median of the jobs' own calibration units)."""
    if unit is None:
        unit = float(np.nanmedian(records["unit_cpu_s"]))
    table = records.sort_values("cpu_s", ascending=False, kind="stable").reset_index(drop=True)
    table.insert(3, "units", table["cpu_s"] / unit)
    table.insert(4, "share_pct", 100.0 * table["cpu_s"] / table["cpu_s"].sum())
    return table, unit


def summary_lines(table: pd.DataFrame, unit: float, units: pd.Series) -> list[str]:
    """Totals and the rules that make 80 % of the CPU."""
    total = table["cpu_s"].sum()
    server = " (and the job server's own row)" if (table["rule"] == "job_server").any() else ""
    lines = [f"{int((table['rule'] != 'job_server').sum())} jobs{server}, {total:.1f} CPU-s = "
             f"{total / unit:,.0f} units "
             f"(unit: one np.bincount pass over 1M answers with weights = {unit * 1e3:.3f} ms "
             f"CPU, median over the jobs; jobs' units range {units.min() * 1e3:.3f}-"
             f"{units.max() * 1e3:.3f} ms); wall {table['wall_s'].sum():.1f} s summed over jobs"]
    by_rule = (table.groupby("rule")["cpu_s"].agg(["sum", "count"])
               .sort_values("sum", ascending=False))
    lines.append("rules by CPU (covering 80 % of the total):")
    running = 0.0
    for rule, row in by_rule.iterrows():
        lines.append(f"  {rule:<32} {row['sum']:8.1f} CPU-s  {100 * row['sum'] / total:5.1f} %  "
                     f"({int(row['count'])} job(s))")
        running += row["sum"]
        if running >= 0.8 * total:
            break
    failed = table.loc[table["failed"], "job"].tolist()
    if failed:
        lines.append(f"jobs that ended on an exception: {', '.join(failed)}")
    return lines


#: What a job's interpreter runs before the job's own work, step by step (each step's CPU
#: from ``getrusage`` in a fresh interpreter): Snakemake's ``script:`` preamble (it imports
#: ``snakemake.script`` to unpickle the job), numpy and pandas, and one paper's modules.
_STARTUP = """
import json, resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
steps = [cpu()]
from snakemake import script
steps.append(cpu())
import numpy, pandas
steps.append(cpu())
sys.path.insert(0, {scripts!r})
import crowdpriv.priscrowd
steps.append(cpu())
print(json.dumps(steps))
"""
STARTUP_STEPS = ("interpreter", "Snakemake's script preamble", "numpy + pandas",
                 "crowdpriv (one paper)")


def startup_cpu(repeat: int = 3) -> dict[str, float]:
    """CPU seconds a job pays before its own work, measured now in ``repeat`` fresh
    interpreters (median per step, :data:`STARTUP_STEPS`)."""
    import subprocess

    code = _STARTUP.format(scripts=str(ROOT / "scripts"))
    runs = []
    for _ in range(max(1, int(repeat))):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        cumulative = json.loads(out)
        runs.append(np.diff(cumulative, prepend=0.0))
    return dict(zip(STARTUP_STEPS, np.median(runs, axis=0).tolist()))


def startup_lines(steps: dict[str, float], n_jobs: int, total: float) -> list[str]:
    """The start-up of a job beside the jobs' total: what every job pays whatever it computes."""
    each = sum(steps.values())
    parts = " + ".join(f"{name} {cpu:.2f}" for name, cpu in steps.items())
    return [f"start-up of a job in its own process, measured now (median of fresh "
            f"interpreters): {parts} = "
            f"{each:.2f} CPU-s; x {n_jobs} jobs = {each * n_jobs:.1f} CPU-s "
            f"({100 * each * n_jobs / total:.1f} % of the jobs' total; a job exits without the "
            "interpreter's finalization, crowdpriv.runtime.finish_job)"]


def job_server_lines(table: pd.DataFrame) -> list[str]:
    """What the job server (config ``job_server``, ``crowdpriv.jobserver``) did in the run
    whose records these are: how many jobs it forked, how many of those Snakemake asked for
    from its own process (``crowdpriv.jobserver.script_without_launcher``), the other's
    launchers' CPU (the interpreter and Snakemake's preamble, in each forked job's record) and
    the server's own (its imports, once: the ``job_server`` row)."""
    forked = table[table["launcher_cpu_s"].notna()]
    server = table.loc[table["rule"] == "job_server", "cpu_s"]
    jobs = table[table["rule"] != "job_server"]
    if forked.empty:
        return [f"job server: none of the {len(jobs)} jobs was forked by one (each imported on "
                "its own)"]
    direct = int(forked["without_launcher"].sum())
    launchers = forked.loc[~forked["without_launcher"], "launcher_cpu_s"]
    paid = (f"the other {len(launchers)} jobs' launchers {launchers.sum():.1f} CPU-s in all "
            f"({launchers.median():.3f} each, median: the interpreter and Snakemake's preamble)"
            if len(launchers) else "no launcher")
    return [f"job server: {len(forked)} of {len(jobs)} jobs forked from it, {direct} of them at "
            f"the request of Snakemake's own process (no launcher); {paid}; the server's own "
            f"{server.sum():.2f} CPU-s (its imports, once), in the table's total"]


def run_lines(results: Path, records: pd.DataFrame, unit: float) -> list[str]:
    """The whole last Snakemake run from its record (``crowdpriv.runtime.record_run_cpu``,
    written by the Snakefile's ``onsuccess``): its CPU in all, the scheduler's own share, and
    its children's beside the job records that ended during the run."""
    path = results / Path(RUN_RECORD).relative_to("results")
    if not path.is_file():
        return [f"no record of a whole run ({path}: written when a run in which jobs ran "
                "succeeds)"]
    run = json.loads(path.read_text())
    total, own, kids = run["cpu_s"], run["scheduler_cpu_s"], run["children_cpu_s"]
    start = run.get("started_at")
    ended = records["finished_at"]
    mine = records[(ended >= start) & (ended <= run["finished_at"])] if start else records.iloc[:0]
    jobs = mine["cpu_s"].sum()
    lines = [f"the last Snakemake run: {total:.1f} CPU-s in all = {total / unit:,.0f} units: "
             f"the scheduler's own process {own:.1f} CPU-s ({100 * own / total:.1f} %), its "
             f"children {kids:.1f} CPU-s, of which {len(mine)} job records of this run "
             f"{jobs:.1f} and {kids - jobs:.1f} outside any job record (shells, what a job "
             "does after its record)"]
    if len(mine) != len(records):
        lines.append(f"  ({len(records) - len(mine)} job record(s) of the table come from "
                     "other runs)")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="?", default=str(ROOT / "results"),
                        help="a results/ folder of a run (default: this clone's)")
    parser.add_argument("--unit", type=float, default=None,
                        help="calibration unit in CPU seconds (default: the run's median)")
    parser.add_argument("--top", type=int, default=0, help="print only the N costliest jobs")
    parser.add_argument("--csv", default=None,
                        help="where to write the table (default <results>/benchmarks/"
                             "reproduction_cpu.csv; '-' for none)")
    args = parser.parse_args(argv)
    results = Path(args.results)
    records = read_records(results)
    if records.empty:
        print(f"no per-job CPU records (*{SUFFIX}) under {results / 'benchmarks'}: run the "
              "pipeline first (make reproduce)")
        return 1
    table, unit = cpu_table(records, args.unit)
    shown = table.head(args.top) if args.top else table
    columns = ["job", "rule", "cpu_s", "units", "share_pct", "children_cpu_s", "wall_s",
               "max_rss_mib"]
    print(shown[columns].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("\n".join(summary_lines(table, unit, records["unit_cpu_s"].dropna())))
    jobs = int((table["rule"] != "job_server").sum())
    print("\n".join(startup_lines(startup_cpu(), jobs, table["cpu_s"].sum())))
    print("\n".join(job_server_lines(table)))
    print("\n".join(run_lines(results, records, unit)))
    if args.csv != "-":
        out = Path(args.csv) if args.csv else results / "benchmarks" / "reproduction_cpu.csv"
        with atomic_path(out) as tmp:  # written whole or not at all
            table.to_csv(tmp, index=False, float_format="%.6g")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
