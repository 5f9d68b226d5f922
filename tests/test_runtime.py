"""Job plumbing: config key paths in errors, progress logging, and every compute rule's resources."""

from __future__ import annotations

import logging
import re

import pytest

from crowdpriv._checks import ParameterError, check_positive
from crowdpriv.runtime import Progress, config_key_message


def _error(raise_it):
    with pytest.raises(ParameterError) as err:
        raise_it()
    return err.value


def test_parameter_error_is_a_value_error_with_name_and_value():
    err = _error(lambda: check_positive("epsilon", -1))
    assert isinstance(err, ValueError) and err.parameter == "epsilon" and err.value == -1


def test_config_key_message_names_the_list_position():
    err = _error(lambda: check_positive("epsilon", 0.0))
    keys = {"epsilon": "ldp_sparse.fig2.epsilons", "epsilons": "ldp_sparse.fig2.epsilons"}
    params = {"experiment": {"epsilons": [0.5, 1.0, 2.0, 0.0], "workers": 3}}
    message = config_key_message(err, keys, params)
    assert message.startswith("config key ldp_sparse.fig2.epsilons[3] = 0.0: epsilon must be")


def test_config_key_message_prefers_the_longest_key_tail():
    """priscrowd.fig4.m is fig4's list, not another block's list also called m."""
    err = ParameterError("fig4.m", 40, "too big")
    params = {"other": {"m": [40, 1]}, "fig4": {"m": [1, 10, 40]}}
    assert config_key_message(err, {"fig4.m": "priscrowd.fig4.m"}, params) == (
        "config key priscrowd.fig4.m[2] = 40: too big")


def test_config_key_message_without_the_list_or_the_key():
    err = ParameterError("min_claims", 50, "too many")
    assert config_key_message(err, {"min_claims": "pptd.fig7.min_claims"}, {}) == (
        "config key pptd.fig7.min_claims = 50: too many")
    assert config_key_message(err, {}, {}) is None
    assert config_key_message(ValueError("plain"), {"x": "y"}, {}) is None


def test_progress_logs_steps_and_total(caplog):
    logger = logging.getLogger("crowdpriv.test")
    with caplog.at_level(logging.INFO, logger="crowdpriv.test"):
        progress = Progress(logger, "fig2", total=3, every=0.0)
        for label in ("ε=1", "ε=2", "ε=3"):
            progress(label)
        progress.finish()
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "fig2: started, 3 step(s)"
    assert re.fullmatch(r"fig2: step 2/3 done \(ε=2\), \d+\.\d s elapsed", lines[2])
    assert re.fullmatch(r"fig2: 3 step\(s\) done in \d+\.\d s", lines[-1])


def test_progress_is_quiet_between_intervals(caplog):
    logger = logging.getLogger("crowdpriv.test")
    with caplog.at_level(logging.INFO, logger="crowdpriv.test"):
        progress = Progress(logger, "x", total=100, every=3600)
        for _ in range(99):
            progress("step")
    assert len(caplog.records) == 1  # only "started": no step reached an hour


def test_every_compute_rule_declares_threads_and_resources(root):
    """Non-local rules (they run as jobs on a cluster) declare threads, mem_mb and runtime."""
    missing = []
    for path in sorted((root / "workflow/rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule \w+:)", path.read_text()):
            name = re.match(r"rule (\w+):", block)
            if not name or "localrule: True" in block:
                continue
            for needed in ("threads: 1", "mem_mb=", "runtime="):
                if needed not in block:
                    missing.append(f"{path.name}:{name.group(1)} lacks {needed}")
    assert not missing, missing


def test_keep_freed_memory_applies_on_glibc_and_changes_no_number():
    import platform

    import numpy as np

    from crowdpriv.runtime import keep_freed_memory

    before = np.random.default_rng(1).standard_normal(10)
    applied = keep_freed_memory()
    assert applied == (platform.libc_ver()[0] == "glibc")
    big = np.ones(20_000_000, dtype=np.float32)  # above the default mmap threshold
    assert float(big.sum(dtype=np.float64)) == 20_000_000.0
    del big
    np.testing.assert_array_equal(np.random.default_rng(1).standard_normal(10), before)


def test_cpu_record_path_mirrors_the_log_under_benchmarks():
    from crowdpriv.runtime import cpu_record_path

    assert cpu_record_path("results/logs/pptd/fig3.log").as_posix() == (
        "results/benchmarks/pptd/fig3.cpu.json")
    # only the last "logs" folder is replaced; a log outside any "logs" folder gets it beside
    assert cpu_record_path("a/logs/b/logs/c.d.log").as_posix() == "a/logs/b/benchmarks/c.d.cpu.json"
    assert cpu_record_path("out/job.log").as_posix() == "out/job.cpu.json"


_JOB = """
import sys, subprocess, time
from types import SimpleNamespace
sys.path.insert(0, {scripts!r})
from crowdpriv.runtime import start_job
job = SimpleNamespace(log=[{log!r}], rule="burn", threads=1, params=SimpleNamespace(),
                      wildcards={{"p": "1"}}, config={{}})
{call}
t0 = time.process_time()
while time.process_time() - t0 < 0.3:  # burn 0.3 CPU-s in this process
    pass
subprocess.run([sys.executable, "-c", "import time; t=time.process_time()\\n"
                "while time.process_time() - t < 0.2: pass"], check=True)
{end}
"""


def _run_job(root, tmp_path, call="start_job(job)", end=""):
    import subprocess
    import sys

    log = tmp_path / "results/logs/x/job.log"
    code = _JOB.format(scripts=str(root / "scripts"), log=str(log), call=call, end=end)
    subprocess.run([sys.executable, "-c", code], check=False, timeout=60)
    return tmp_path / "results/benchmarks/x/job.cpu.json"


def test_every_job_writes_its_cpu_record_at_exit(root, tmp_path):
    """start_job registers the record: own CPU (>= the 0.3 s burnt) + the waited-for child's
    (>= 0.2 s), a calibration unit of a plausible size; without start_job no record."""
    import json

    path = _run_job(root, tmp_path)
    record = json.loads(path.read_text())
    assert record["rule"] == "burn" and record["wildcards"] == {"p": "1"}
    assert record["user_s"] + record["system_s"] >= 0.3
    assert record["children_user_s"] + record["children_system_s"] >= 0.2
    assert record["cpu_s"] >= 0.5 and record["failed"] is False
    assert 1e-5 < record["unit_cpu_s"] < 0.5
    assert not _run_job(root, tmp_path / "none", call="").exists()


def test_a_failed_job_still_records_its_cpu_and_says_so(root, tmp_path):
    import json

    path = _run_job(root, tmp_path, end="raise RuntimeError('boom')")
    record = json.loads(path.read_text())
    assert record["failed"] is True and record["cpu_s"] >= 0.5


def test_finish_job_exits_0_after_the_exit_handlers_and_skips_what_follows(root, tmp_path):
    """finish_job: the CPU record and a complete log (atexit handlers ran), buffered stdout
    written, a running non-daemon thread and a thread pool's worker finished, status 0, and
    neither the statements after it nor the interpreter's finalization (an object's __del__
    at teardown) run."""
    import json
    import os
    import subprocess
    import sys

    log = tmp_path / "results/logs/x/job.log"
    marks = {name: str(tmp_path / name) for name in ("thread", "pool", "after", "finalized")}
    end = _FINISH.format(**marks)
    code = _JOB.format(scripts=str(root / "scripts"), log=str(log),
                       call="logger = start_job(job)", end=end)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "buffered stdout"
    assert "last line of the job" in log.read_text()
    assert (tmp_path / "thread").read_text() == "yes" and (tmp_path / "pool").read_text() == "yes"
    assert not (tmp_path / "after").exists() and not (tmp_path / "finalized").exists()
    record = json.loads((tmp_path / "results/benchmarks/x/job.cpu.json").read_text())
    assert record["failed"] is False and record["cpu_s"] >= 0.5


_FINISH = """
import threading
from concurrent.futures import ThreadPoolExecutor
from crowdpriv.runtime import finish_job
class Finalized:  # open bound now: builtins are gone late in the finalization
    def __del__(self, open=open):
        open({finalized!r}, "w").write("ran")
kept = Finalized()
def slow(name):
    time.sleep(0.5)
    open(name, "w").write("yes")
threading.Thread(target=slow, args=({thread!r},)).start()
pool = ThreadPoolExecutor(2)
pool.submit(slow, {pool!r})
logger.info("last line of the job")
print("buffered stdout", end="")
finish_job()
open({after!r}, "w").write("ran")
"""


def test_finish_job_exits_120_when_stdout_cannot_be_flushed(root, tmp_path):
    """As Python's own exit: output that cannot be written (here a full device) fails the job."""
    import os
    import subprocess
    import sys

    code = _JOB.format(scripts=str(root / "scripts"), log=str(tmp_path / "logs/j.log"),
                       call="start_job(job)",
                       end="from crowdpriv.runtime import finish_job\nprint('lost')\nfinish_job()")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-c", code], stdout=full, timeout=60, env=env)
    assert run.returncode == 120


def test_a_job_that_fails_before_finish_job_exits_with_its_error(root, tmp_path):
    """Documentation of the contract: an adapter that raises never reaches finish_job."""
    import subprocess
    import sys

    log = tmp_path / "logs/j.log"
    code = _JOB.format(scripts=str(root / "scripts"), log=str(log),
                       call="start_job(job)", end="raise RuntimeError('boom')\n"
                       "from crowdpriv.runtime import finish_job\nfinish_job()")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and "RuntimeError: boom" in run.stderr + log.read_text()


def test_a_job_refuses_an_output_that_is_one_of_its_inputs(root, tmp_path):
    """Before anything is written: one message naming both paths, the input untouched."""
    import subprocess
    import sys

    data = tmp_path / "claims.csv"
    data.write_text("original\n")
    log = tmp_path / "logs/j.log"
    code = _JOB.format(scripts=str(root / "scripts"), log=str(log),
                       call=f"job.input = [{str(data)!r}]; job.output = [{str(data)!r}]\n"
                            "start_job(job)",
                       end=f"open({str(data)!r}, 'w').write('overwritten')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert "crowdpriv input error in rule burn: output" in log.read_text()
    assert "is the input" in log.read_text()
    assert data.read_text() == "original\n"


def _reproduction_cpu(root):
    """benchmarks/reproduction_cpu.py as a module (it is a script, not part of the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("reproduction_cpu",
                                                  root / "benchmarks/reproduction_cpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reproduction_cpu_sums_the_records_into_a_sorted_table(tmp_path, root):
    import json

    module = _reproduction_cpu(root)
    base = tmp_path / "results/benchmarks"
    for name, cpu, unit in (("a/x", 1.0, 0.002), ("b", 4.0, 0.001), ("c/d/y", 0.5, 0.003)):
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / f"{name}.cpu.json").write_text(json.dumps(
            {"rule": name[0], "cpu_s": cpu, "unit_cpu_s": unit, "wall_s": cpu}))
    (base / "b.tsv").write_text("s\n1\n")  # Snakemake's own record is not read
    table, unit = module.cpu_table(module.read_records(tmp_path / "results"))
    assert unit == 0.002 and table["job"].tolist() == ["b", "a/x", "c/d/y"]
    assert table["units"].tolist() == [2000.0, 500.0, 250.0]
    assert abs(table["share_pct"].sum() - 100.0) < 1e-9
    assert module.main([str(tmp_path / "results"), "--csv", "-"]) == 0
    assert module.main([str(tmp_path / "empty"), "--csv", "-"]) == 1


def test_the_run_record_counts_the_scheduler_and_its_children(tmp_path, monkeypatch):
    """record_run_cpu (the Snakefile's onsuccess): this process's CPU and its waited-for
    children's (a child burning 0.2 CPU-s), the process's start and the run's end, a unit."""
    import json
    import subprocess
    import sys
    import time

    from crowdpriv.runtime import RUN_RECORD, record_run_cpu

    monkeypatch.chdir(tmp_path)
    before = time.time()
    subprocess.run([sys.executable, "-c", "import time; t=time.process_time()\n"
                    "while time.process_time() - t < 0.2: pass"], check=True)
    record_run_cpu()
    run = json.loads((tmp_path / RUN_RECORD).read_text())
    assert run["children_cpu_s"] >= 0.2 and run["scheduler_cpu_s"] > 0
    assert run["cpu_s"] == run["scheduler_cpu_s"] + run["children_cpu_s"]
    assert run["started_at"] < before <= run["finished_at"] <= time.time()
    assert 1e-5 < run["unit_cpu_s"] < 0.5


def test_reproduction_cpu_reads_the_whole_run_beside_its_jobs(tmp_path, root):
    import json

    module = _reproduction_cpu(root)
    base = tmp_path / "results/benchmarks"
    base.mkdir(parents=True)
    for name, cpu, ended in (("a", 3.0, 150.0), ("b", 2.0, 160.0), ("old", 9.0, 50.0)):
        (base / f"{name}.cpu.json").write_text(json.dumps(
            {"rule": name, "cpu_s": cpu, "unit_cpu_s": 0.01, "finished_at": ended}))
    records = module.read_records(tmp_path / "results")
    assert "no record of a whole run" in module.run_lines(tmp_path / "results", records, 0.01)[0]
    (base / "snakemake_run.json").write_text(json.dumps(
        {"cpu_s": 8.0, "scheduler_cpu_s": 2.0, "children_cpu_s": 6.0, "started_at": 100.0,
         "finished_at": 200.0, "unit_cpu_s": 0.01}))
    lines = module.run_lines(tmp_path / "results", records, 0.01)
    assert lines[0].startswith("the last Snakemake run: 8.0 CPU-s in all = 800 units: the "
                               "scheduler's own process 2.0 CPU-s (25.0 %), its children 6.0 "
                               "CPU-s, of which 2 job records of this run 5.0 and 1.0 outside")
    assert "1 job record(s) of the table come from other runs" in lines[1]


def test_reproduction_cpu_measures_a_job_start_step_by_step(root):
    """The start-up a job pays, measured in a fresh interpreter: each step positive, numpy and
    pandas more than the bare interpreter; the line multiplies it by the jobs."""
    module = _reproduction_cpu(root)
    steps = module.startup_cpu(repeat=1)
    assert list(steps) == list(module.STARTUP_STEPS)
    assert all(cpu > 0 for cpu in steps.values())
    assert steps["numpy + pandas"] > steps["interpreter"]
    line = module.startup_lines({"a": 0.25, "b": 0.5}, 10, 50.0)[0]
    assert "a 0.25 + b 0.50 = 0.75 CPU-s; x 10 jobs = 7.5 CPU-s (15.0 % of the jobs' total" in line


def test_the_schedulers_pending_timers_are_cancelled_and_no_other():
    import threading
    import time

    from crowdpriv import runtime

    fired = []

    def wake_the_scheduler():
        fired.append("scheduler")

    def someone_elses():
        fired.append("other")

    wake_the_scheduler.__module__ = runtime.SCHEDULER_MODULE  # as Snakemake's lambda is
    scheduler = threading.Timer(60, wake_the_scheduler)
    other = threading.Timer(0.5, someone_elses)
    scheduler.start()
    other.start()
    assert runtime.cancel_pending_timers() == 1
    started = time.monotonic()
    scheduler.join(timeout=5)
    assert not scheduler.is_alive() and time.monotonic() - started < 5
    other.join(timeout=5)
    assert fired == ["other"]  # left alone, it fired
    assert runtime.cancel_pending_timers() == 0


def test_snakemakes_scheduler_timer_is_defined_where_the_cancel_looks():
    """The timers cancelled are the ones Snakemake 9.27.1's scheduler starts (a lambda in
    ``JobScheduler._schedule_reevalutation``): the module named, and a Timer started there."""
    import inspect

    from snakemake.scheduling import job_scheduler

    from crowdpriv.runtime import SCHEDULER_MODULE

    assert job_scheduler.__name__ == SCHEDULER_MODULE
    source = inspect.getsource(job_scheduler.JobScheduler._schedule_reevalutation)
    assert "threading.Timer(" in source and "lambda" in source
