"""The job server (crowdpriv.jobserver): a launcher's job runs in a fork of the server with the
launcher's working directory, environment, arguments and standard streams; its exit status and
signals pass through; a killed launcher takes its job with it; a request the server cannot fork
exactly as a fresh process would run is refused, and the job runs in its own process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crowdpriv import jobserver

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

#: A stand-in for an adapter: Snakemake's preamble would define ``snakemake``; this one builds
#: a picklable dict from its arguments, then does what its mode says.
JOB = '''"""A test job."""
import sys
sys.path.insert(0, {scripts!r})
snakemake = {{"mode": sys.argv[1]}}
from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)

import json, os, tempfile, time
from crowdpriv import jobserver
from crowdpriv.runtime import record_job_cpu

record_job_cpu("record.cpu.json", rule="test", calibrate=False)
info = {{"pid": os.getpid(), "how": jobserver.how_this_job_runs(), "cwd": os.getcwd(),
        "argv": sys.argv, "value": os.environ.get("CROWDPRIV_TEST_VALUE"),
        "tmp": tempfile.gettempdir(), "name": __name__, "file": __file__,
        "launcher": (jobserver._CHILD or {{}}).get("launcher_pid")}}
with open("info.json.tmp", "w") as handle:  # whole or not at all: a test polls for it
    json.dump(info, handle)
os.replace("info.json.tmp", "info.json")
mode = snakemake["mode"]
print("hello on stdout", flush=True)
print("hello on stderr", file=sys.stderr, flush=True)
if mode == "exit3":
    sys.exit(3)
if mode == "raise":
    raise RuntimeError("boom")
if mode == "sleep":
    time.sleep(60)
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A job server started as the Snakefile starts it, in a fresh folder (its working
    directory, where the launchers run); stopped at the end."""
    folder = tmp_path_factory.mktemp("jobserver")
    (folder / "job.py").write_text(JOB.format(scripts=str(SCRIPTS)))
    before = os.getcwd()
    os.chdir(folder)
    try:
        assert jobserver.start_server()
        yield folder
    finally:
        jobserver.stop_server()
        os.chdir(before)


def job_env(**extra) -> dict:
    """The environment Snakemake gives a one-thread job (with the server's socket)."""
    env = dict(os.environ)
    env.update(dict.fromkeys(jobserver.JOB_THREAD_VARIABLES, "1"))
    env.update(extra)
    return env


def launch(folder: Path, mode: str, **env) -> subprocess.CompletedProcess:
    for name in ("info.json", "record.cpu.json"):
        (folder / name).unlink(missing_ok=True)
    return subprocess.run([sys.executable, str(folder / "job.py"), mode], cwd=folder,
                          env=job_env(**env), capture_output=True, text=True, timeout=60)


def info(folder: Path) -> dict:
    return json.loads((folder / "info.json").read_text())


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` ends (and is reaped) within ``within`` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_job_runs_in_a_fork_with_the_launchers_directory_environment_and_streams(server):
    result = launch(server, "plain", CROWDPRIV_TEST_VALUE="from the launcher",
                    TMPDIR=str(server))
    assert result.returncode == 0, result.stderr
    got = info(server)
    assert got["how"].startswith("forked by the job server"), got["how"]
    assert got["launcher"] is not None and got["pid"] != got["launcher"]
    assert got["cwd"] == str(server)
    assert got["value"] == "from the launcher"
    assert got["tmp"] == str(server)  # TMPDIR is the launcher's, not the server's
    assert got["argv"][1:] == ["plain"]
    assert got["name"] == "__main__" and got["file"] == str(server / "job.py")
    assert "hello on stdout" in result.stdout and "hello on stderr" in result.stderr
    record = json.loads((server / "record.cpu.json").read_text())
    assert record["launcher_cpu_s"] > 0
    assert record["cpu_s"] >= record["user_s"] + record["system_s"] + record["launcher_cpu_s"]


def test_exit_status_and_exceptions_pass_through(server):
    result = launch(server, "exit3")
    assert result.returncode == 3
    assert info(server)["how"].startswith("forked")
    result = launch(server, "raise")
    assert result.returncode == 1
    assert "RuntimeError: boom" in result.stderr and "Traceback" in result.stderr


@pytest.mark.parametrize("how", ["terminate", "kill"])
def test_a_stopped_launcher_takes_its_job_with_it(server, how):
    """SIGTERM to the launcher is forwarded (the launcher then dies of it, as the job did);
    a launcher killed outright (SIGKILL) closes its connection and the server kills the job."""
    (server / "info.json").unlink(missing_ok=True)
    launcher = subprocess.Popen([sys.executable, str(server / "job.py"), "sleep"], cwd=server,
                                env=job_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while not (server / "info.json").exists() and time.monotonic() < end:
        time.sleep(0.05)
    job = info(server)
    assert job["how"].startswith("forked") and job["launcher"] == launcher.pid
    getattr(launcher, how)()
    code = launcher.wait(timeout=30)
    assert code == (-signal.SIGTERM if how == "terminate" else -signal.SIGKILL)
    assert gone(job["pid"]), f"job {job['pid']} still runs after its launcher was stopped"


def test_a_job_whose_environment_differs_at_import_time_runs_in_its_own_process(server):
    result = launch(server, "plain", OMP_NUM_THREADS="2")
    assert result.returncode == 0, result.stderr
    got = info(server)
    assert got["launcher"] is None
    assert "refused: environment variable OMP_NUM_THREADS is '2'" in got["how"]


def test_without_a_server_the_job_runs_in_its_own_process(server):
    env = job_env()
    env.pop(jobserver.ENV)
    result = subprocess.run([sys.executable, str(server / "job.py"), "exit3"], cwd=server,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 3
    assert info(server)["how"] == f"in its own process: no job server ({jobserver.ENV} unset)"
    result = launch(server, "plain", **{jobserver.ENV: str(server / "no-such-socket")})
    assert result.returncode == 0
    assert "not reachable" in info(server)["how"]


def test_a_request_is_refused_when_a_fork_could_differ(tmp_path):
    """Another Python, another working directory, a changed import-time variable or a source
    file changed since the server imported it: each is a reason; the same request is not."""
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    sources = {str(source): source.stat().st_mtime_ns}
    env = dict(os.environ)
    request = dict(executable=sys.executable, cwd=os.getcwd(), env=env)
    assert jobserver._differs(request, sources) is None
    assert "another Python" in jobserver._differs({**request, "executable": "/x/python"}, sources)
    assert "working directory" in jobserver._differs({**request, "cwd": str(tmp_path)}, sources)
    changed = {**env, "MKL_NUM_THREADS": "7"}
    assert "MKL_NUM_THREADS" in jobserver._differs({**request, "env": changed}, sources)
    unrelated = {**env, "CROWDPRIV_SOMETHING_ELSE": "1"}
    assert jobserver._differs({**request, "env": unrelated}, sources) is None
    os.utime(source, ns=(0, 1))
    assert "changed since the server imported it" in jobserver._differs(request, sources)


def test_stopping_the_server_writes_its_record(server):
    """(Last: it stops the module's server.) The server's own CPU (its imports) lands in
    results/benchmarks/job_server.cpu.json with the number of jobs it forked and refused, when
    it stops; stop_server waits for it and leaves no socket."""
    forked_before = launch(server, "plain")
    assert forked_before.returncode == 0 and info(server)["how"].startswith("forked")
    socket_folder = Path(os.environ[jobserver.ENV]).parent
    jobserver.stop_server()
    assert jobserver.ENV not in os.environ and not socket_folder.exists()
    record = json.loads((server / "results/benchmarks/job_server.cpu.json").read_text())
    assert record["rule"] == "job_server"
    assert record["forked"] >= 1  # this test's job at least (6 when the whole file runs)
    assert record["cpu_s"] > 0.1  # it imported numpy, pandas and crowdpriv
    assert record["forked_jobs_cpu_s"] > 0
