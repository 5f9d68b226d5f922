"""The job server asked from Snakemake's own process (crowdpriv.jobserver.script_without_launcher,
wrapped around Snakemake's ``script`` in ``workflow/rules/common.smk``), in real Snakemake runs
of a small workflow: a job forked without a launcher sees what its launcher would have given
it (the same environment, working directory, umask, ``sys.path``, ``__file__`` and ``snakemake``
object as the same job run by Snakemake's own ``script``), its exit status fails the job as a
script's would, a job the server refuses runs as Snakemake runs it, a ``benchmark:`` file
measures the job itself, and a Ctrl-C to Snakemake reaches the running job at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import gone, wait_until
from crowdpriv import jobserver

pytestmark = pytest.mark.e2e

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")

#: ``{wrap}`` is True (the Snakefile's wrapping, as common.smk's) or False (Snakemake's own
#: ``script``, with no server: every job through its launcher).
SNAKEFILE = '''
import sys
sys.path.insert(0, {scripts!r})
from crowdpriv.jobserver import script_without_launcher, start_server, stop_server

if {wrap}:
    script = script_without_launcher(script)

onstart:
    if {wrap}:
        start_server()

onsuccess:
    stop_server()

onerror:
    stop_server()


rule all:
    input:
        "out/record.json",
        "out/two_threads.json",


rule record:
    output:
        "out/record.json",
    params:
        value=42,
    benchmark:
        "out/record.tsv"
    script:
        "job.py"


rule two_threads:
    output:
        "out/two_threads.json",
    threads: 2
    script:
        "job.py"


rule fail:
    output:
        "out/fail.json",
    script:
        "job.py"


rule sleep:
    output:
        "out/sleep.json",
    script:
        "job.py"
'''

JOB = '''
import os, sys, json, time, signal
from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)

from crowdpriv import jobserver

rule = snakemake.rule
if rule == "fail":
    print("the job says: failing on purpose", file=sys.stderr, flush=True)
    sys.exit(3)
if rule == "sleep":
    with open("runs", "a") as handle:
        handle.write("ran\\n")
    with open("server.pid", "w") as handle:
        handle.write(str(os.getppid()))
    with open("sleeping.pid", "w") as handle:
        handle.write(str(os.getpid()))
    try:
        time.sleep(120)
    except KeyboardInterrupt:
        with open("interrupted", "w") as handle:
            handle.write("KeyboardInterrupt")
        raise
if rule == "record":
    burn = time.process_time() + 1.2  # CPU for the benchmark file to see
    while time.process_time() < burn:
        pass
mask = os.umask(0)
os.umask(mask)
record = {
    "how": jobserver.how_this_job_runs(),
    "cwd": os.getcwd(),
    "env": {k: v for k, v in os.environ.items() if k != "CROWDPRIV_JOB_SERVER"},
    "umask": mask,
    "sys_path": sys.path,
    "file": __file__,
    "name": __name__,
    "argv_rest": sys.argv[1:],
    "snakemake": {
        "input": list(snakemake.input), "output": list(snakemake.output),
        "params": dict(snakemake.params.items()), "wildcards": dict(snakemake.wildcards.items()),
        "threads": snakemake.threads, "resources": dict(snakemake.resources.items()),
        "log": list(snakemake.log), "rule": snakemake.rule, "scriptdir": snakemake.scriptdir,
        "bench_iteration": snakemake.bench_iteration, "config": snakemake.config,
        "type": type(snakemake).__module__ + "." + type(snakemake).__name__,
    },
}
with open(snakemake.output[0], "w") as handle:
    json.dump(record, handle, indent=1, sort_keys=True)
'''


def workflow(folder: Path, *, wrap: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Snakefile").write_text(SNAKEFILE.format(scripts=str(SCRIPTS), wrap=wrap))
    (folder / "job.py").write_text(JOB)
    return folder


def snakemake_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != jobserver.ENV}
    env["PYTHONPATH"] = str(SCRIPTS)
    return env


def run(folder: Path, *targets: str, check: bool = True) -> subprocess.CompletedProcess:
    """Snakemake in ``folder``, with a umask other than the usual 022."""
    done = subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", "--scheduler", "greedy", *targets],
        cwd=folder, env=snakemake_env(), capture_output=True, text=True, timeout=300,
        umask=0o027)
    if check:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The small workflow run with the wrapping (jobs forked without launchers) and without it
    (Snakemake's own ``script``, each job in a launcher's process), in folders of the same
    depth."""
    base = tmp_path_factory.mktemp("jobserver_snakemake")
    wrapped, plain = workflow(base / "wrapped", wrap=True), workflow(base / "plain____", wrap=False)
    run(wrapped)
    run(plain)
    return wrapped, plain


def load(folder: Path, name: str) -> dict:
    return json.loads((folder / "out" / name).read_text())


def test_a_job_without_a_launcher_sees_what_its_launcher_would_have_given_it(two_runs):
    wrapped, plain = two_runs
    forked, own = load(wrapped, "record.json"), load(plain, "record.json")
    assert "at the request of Snakemake" in forked["how"] and "without a launcher" in forked["how"]
    assert own["how"].startswith("in its own process: no job server")
    assert forked["umask"] == own["umask"] == 0o027

    def relative(record, folder):
        text = json.dumps(record, sort_keys=True).replace(str(folder), "<workdir>")
        return json.loads(text)

    forked, own = relative(forked, wrapped), relative(own, plain)
    for key in ("how",):
        forked.pop(key), own.pop(key)
    # The launcher's first search path entry is the folder of Snakemake's temporary copy of
    # the script: the same folder for both
    assert forked["sys_path"][0] == own["sys_path"][0] == "<workdir>/.snakemake/scripts"
    # the runtime source cache is a fresh temporary folder in every Snakemake run
    for record in (forked, own):
        record["sys_path"] = [p for p in record["sys_path"] if "snakemake-runtime-cache" not in p]
    assert forked == own


def test_a_benchmark_file_measures_the_job_itself(two_runs):
    wrapped, _ = two_runs
    header, values = (wrapped / "out/record.tsv").read_text().splitlines()[:2]
    row = dict(zip(header.split("\t"), values.split("\t")))
    assert float(row["cpu_time"]) >= 0.8  # the job burnt 1.2 CPU-s; a launcher would show ~0.1
    assert float(row["max_rss"]) > 30  # numpy and pandas are in the fork's memory


def test_a_job_the_server_refuses_runs_as_snakemake_runs_it(two_runs):
    """Two threads: the job's BLAS variables differ from the server's, which refuses; the job
    then runs through Snakemake's own ``script`` (its launcher asks again, is refused again)."""
    wrapped, plain = two_runs
    record = load(wrapped, "two_threads.json")
    assert record["how"].startswith("in its own process: the job server refused: environment "
                                    "variable ") and "_NUM_THREADS" in record["how"]
    assert record["env"]["OMP_NUM_THREADS"] == "2"
    assert record["snakemake"]["threads"] == 2


def test_a_failing_job_fails_the_run_with_its_status_and_message(tmp_path):
    folder = workflow(tmp_path / "wf", wrap=True)
    done = run(folder, "fail", check=False)
    assert done.returncode != 0
    assert "the job says: failing on purpose" in done.stderr
    assert "returned non-zero exit status 3" in done.stderr
    assert "(forked by the job server, pid" in done.stderr  # not through a launcher
    assert not (folder / "out/fail.json").exists()


def test_ctrl_c_to_snakemake_reaches_the_running_job(tmp_path):
    """SIGINT to Snakemake's process only (a launcher would have had it from the terminal's
    process group): the job gets it at once (KeyboardInterrupt), Snakemake stops, and the
    server and the job are gone."""
    folder = workflow(tmp_path / "wf", wrap=True)
    process = subprocess.Popen(  # SIGINT not ignored, whatever the test run's (nohup, &)
        [str(SNAKEMAKE), "--cores", "1", "--scheduler", "greedy", "sleep"], cwd=folder,
        env=snakemake_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for_file(folder / "sleeping.pid", process)
        job = int((folder / "sleeping.pid").read_text())
        time.sleep(0.3)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        assert time.monotonic() - started < 20  # not the job's 120 s
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (folder / "interrupted").read_text() == "KeyboardInterrupt"
    assert gone(job), "the job outlived Snakemake"
    assert not (folder / "out/sleep.json").exists()


def wait_for_file(path: Path, process: subprocess.Popen, within: float = 60) -> None:
    """Until ``path`` exists, while ``process`` runs (its stderr in the failure)."""
    wait_until(lambda: path.exists() or process.poll() is not None, within=within)
    assert path.exists() and process.poll() is None, process.stderr.read()


def test_a_server_that_dies_fails_its_running_job_which_does_not_run_again(tmp_path):
    """The server killed outright: the kernel kills its job, Snakemake's job thread fails the
    job with a message, and the job is not run a second time."""
    folder = workflow(tmp_path / "wf", wrap=True)
    process = subprocess.Popen(
        [str(SNAKEMAKE), "--cores", "1", "--scheduler", "greedy", "sleep"], cwd=folder,
        env=snakemake_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_file(folder / "sleeping.pid", process)
        os.kill(int((folder / "server.pid").read_text()), signal.SIGKILL)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode != 0
    assert "the job server ended before job" in stderr
    assert (folder / "runs").read_text() == "ran\n"
    assert not (folder / "out/sleep.json").exists()


def test_a_run_ends_without_waiting_for_the_schedulers_wake_ups(tmp_path):
    """With the default profile's 10 s job-rate window (profiles/default): three jobs, each
    waiting for the one before, start as soon as it ends (a job's end wakes the scheduler, not
    the window), and the scheduler's last wake-up timers, which would hold Snakemake's exit up
    to 10 s, are cancelled by the Snakefile's onsuccess (crowdpriv.runtime.cancel_pending_timers)."""
    folder = tmp_path / "wf"
    folder.mkdir()
    (folder / "Snakefile").write_text(f"""
import sys
sys.path.insert(0, {str(SCRIPTS)!r})

onsuccess:
    from crowdpriv.runtime import cancel_pending_timers

    cancel_pending_timers()


rule all:
    input:
        "c.txt",


rule one:
    output:
        "a.txt",
    shell:
        "sleep 0.1; touch {{output}}"


rule two:
    input:
        "a.txt",
    output:
        "b.txt",
    shell:
        "sleep 0.1; touch {{output}}"


rule three:
    input:
        "b.txt",
    output:
        "c.txt",
    shell:
        "sleep 0.1; touch {{output}}"
""")
    started = time.monotonic()
    done = subprocess.run(
        [str(SNAKEMAKE), "--cores", "1", "--scheduler", "greedy",
         "--max-jobs-per-timespan", "1000/10s"], cwd=folder, env=snakemake_env(),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - started < 8  # not the 10 s window
    profile = (Path(__file__).resolve().parents[1] / "profiles/default/config.yaml").read_text()
    assert 'max-jobs-per-timespan: "1000/10s"' in profile
