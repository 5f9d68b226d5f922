"""The job server (crowdpriv.jobserver): a launcher's job runs in a fork of the server with the
launcher's working directory, environment, arguments and standard streams; its exit status and
signals pass through; a killed launcher takes its job with it; a request the server cannot fork
exactly as a fresh process would run is refused, and the job runs in its own process."""

from __future__ import annotations

import inspect
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

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

#: A stand-in for an adapter: Snakemake's preamble would define ``snakemake``; this one builds
#: a picklable dict from its arguments, then does what its mode says.
JOB = '''"""A test job."""
import sys
sys.path.insert(0, {scripts!r})
snakemake = {{"mode": sys.argv[1]}}
from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)

import json, os, signal, tempfile, time
import numpy as np
from crowdpriv import jobserver
from crowdpriv.runtime import record_job_cpu

record_job_cpu("record.cpu.json", rule="test", calibrate=False)
if snakemake["mode"] == "trap":  # a job that ends cleanly on SIGTERM, if the signal reaches it
    def stop(signum, frame):
        with open("trapped", "w") as handle:
            handle.write(str(signum))
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
info = {{"pid": os.getpid(), "how": jobserver.how_this_job_runs(), "cwd": os.getcwd(),
        "argv": sys.argv, "value": os.environ.get("CROWDPRIV_TEST_VALUE"),
        "tmp": tempfile.gettempdir(), "name": __name__, "file": __file__,
        "launcher": (jobserver._CHILD or {{}}).get("launcher_pid"),
        "umask": os.umask(0), "legacy_random": float(np.random.random()),
        "sigint_default": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
        "sighup_ignored": signal.getsignal(signal.SIGHUP) == signal.SIG_IGN}}
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
if mode == "annotations":  # evaluated at definition, as without ``from __future__`` import
    def f(x: undefined_name):
        pass
if mode in ("sleep", "trap"):
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


def start_forked_job(server, mode: str = "sleep"):
    """A launcher whose job (``mode``: sleeps, or traps SIGTERM then sleeps) the server forked;
    returns (launcher, the job's pid) once the job runs."""
    (server / "info.json").unlink(missing_ok=True)
    launcher = subprocess.Popen([sys.executable, str(server / "job.py"), mode], cwd=server,
                                env=job_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    wait_until(lambda: (server / "info.json").exists(), within=30)
    job = info(server)
    assert job["how"].startswith("forked") and job["launcher"] == launcher.pid
    return launcher, job["pid"]


@pytest.mark.parametrize("how", ["terminate", "kill"])
def test_a_stopped_launcher_takes_its_job_with_it(server, how):
    """SIGTERM to the launcher is forwarded (the launcher then dies of it, as the job did);
    a launcher killed outright (SIGKILL) closes its connection and the server kills the job."""
    launcher, job = start_forked_job(server)
    getattr(launcher, how)()
    code = launcher.wait(timeout=30)
    assert code == (-signal.SIGTERM if how == "terminate" else -signal.SIGKILL)
    assert gone(job), f"job {job} still runs after its launcher was stopped"


def state(pid: int) -> str:
    """The process's state letter (``/proc/<pid>/stat``: R, S, T, ...)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_a_job_killed_outright_kills_its_launcher_and_never_runs_again(server):
    """A forked job that dies of SIGKILL (the OOM killer's signal) takes its launcher with it:
    the launcher dies of the same signal and does not run the job itself."""
    launcher, job = start_forked_job(server)
    os.kill(job, signal.SIGKILL)
    assert launcher.wait(timeout=30) == -signal.SIGKILL
    assert info(server)["how"].startswith("forked")  # not re-written by a second run


def test_ctrl_z_stops_and_continues_the_job(server):
    """SIGTSTP to the launcher (a terminal's Ctrl-Z) stops the job and the launcher; SIGCONT
    continues both."""
    launcher, job = start_forked_job(server)
    try:
        os.kill(launcher.pid, signal.SIGTSTP)
        assert wait_until(lambda: state(job) == state(launcher.pid) == "T", within=10), (
            state(job), state(launcher.pid))
        os.kill(launcher.pid, signal.SIGCONT)
        assert wait_until(lambda: "T" not in (state(job), state(launcher.pid)), within=10), (
            state(job), state(launcher.pid))
    finally:
        os.kill(launcher.pid, signal.SIGCONT)
        launcher.terminate()
        launcher.wait(timeout=30)
    assert gone(job)


def test_the_script_is_compiled_as_the_interpreter_would(server):
    """Without the job server's own ``from __future__ import annotations``: an annotation
    naming nothing fails at definition in the fork as in a process of its own."""
    forked = launch(server, "annotations")
    assert info(server)["how"].startswith("forked")
    env = job_env()
    env.pop(jobserver.ENV)
    own = subprocess.run([sys.executable, str(server / "job.py"), "annotations"], cwd=server,
                         env=env, capture_output=True, text=True, timeout=60)
    assert forked.returncode == own.returncode == 1
    assert "NameError: name 'undefined_name' is not defined" in forked.stderr
    assert "NameError: name 'undefined_name' is not defined" in own.stderr


def test_the_launchers_sigterm_reaches_the_job(server):
    """A job that handles SIGTERM (here: writes a file and exits 0) gets the SIGTERM its
    launcher receives, so the launcher exits 0 as the job did."""
    (server / "trapped").unlink(missing_ok=True)
    launcher, _ = start_forked_job(server, "trap")
    launcher.terminate()
    assert launcher.wait(timeout=30) == 0
    assert (server / "trapped").read_text() == str(int(signal.SIGTERM))


def test_a_fork_starts_as_a_new_interpreter_would(server):
    """Two forks draw different numbers from numpy's legacy generator (reseeded from fresh
    entropy, as in new interpreters), get Python's SIGINT handler, the launcher's umask, and
    keep a signal the launcher ignores ignored (``nohup``: a hang-up must not end the job)."""
    def ignore_hangup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # whatever the test run's (nohup, &)
        os.umask(0o027)

    draws = []
    for _ in range(2):
        (server / "info.json").unlink(missing_ok=True)
        done = subprocess.run([sys.executable, str(server / "job.py"), "plain"], cwd=server,
                              env=job_env(), capture_output=True, preexec_fn=ignore_hangup,
                              timeout=60)
        assert done.returncode == 0
        got = info(server)
        assert got["how"].startswith("forked")
        assert got["sighup_ignored"] and got["sigint_default"] and got["umask"] == 0o027
        draws.append(got["legacy_random"])
    assert draws[0] != draws[1]
    launch(server, "plain")
    assert not info(server)["sighup_ignored"]


def test_a_bad_request_is_refused_and_the_server_goes_on(server):
    """A request the server cannot take (here: a pickle naming a module it cannot import, and
    one cut short after its header and streams) is refused alone: no descriptor stays open in
    the server, and the next job is forked as before."""
    path = os.environ[jobserver.ENV]
    server_pid = jobserver._SERVER["process"].pid

    def open_fds():
        """The server's open descriptors once no earlier job's connection is still closing
        (the same count twice, 0.3 s apart)."""
        last = None
        for _ in range(50):
            count = len(list(Path(f"/proc/{server_pid}/fd").iterdir()))
            if count == last:
                return count
            last = count
            time.sleep(0.3)
        return last

    before = open_fds()
    import socket

    bad = b"cnomodule\nx\n."  # a pickle (protocol 0) of a global from a module that is not there
    for payload in (bad, None):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        size = len(bad) if payload is None else len(payload)
        socket.send_fds(sock, [jobserver._HEADER.pack(size)], [0, 1, 2])
        if payload is not None:
            sock.sendall(payload)
            reply, _ = jobserver._receive(sock)
            assert reply[0] == "refused" and "could not be taken" in reply[1]
        sock.close()
    time.sleep(0.5)
    assert launch(server, "plain").returncode == 0
    assert info(server)["how"].startswith("forked")
    assert open_fds() <= before  # each leaked request would have kept its three streams


def test_the_server_runs_in_a_session_of_its_own(server):
    """So a terminal's Ctrl-C, sent to the foreground process group, reaches Snakemake and the
    launchers but not the forks directly: a job gets it once, through its launcher."""
    server_pid = jobserver._SERVER["process"].pid
    assert os.getsid(server_pid) == server_pid != os.getsid(0)


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


def test_a_server_that_cannot_start_leaves_the_run_without_one(monkeypatch, capsys):
    """No temporary folder (or no interpreter to start): a warning, no server, and jobs run
    in their own processes; the run itself goes on."""
    import tempfile

    def no_folder(**_):
        raise PermissionError("read-only /tmp")

    monkeypatch.setattr(tempfile, "mkdtemp", no_folder)
    monkeypatch.delenv(jobserver.ENV, raising=False)
    monkeypatch.setattr(jobserver, "_SERVER", {})
    assert jobserver.start_server() is False
    assert jobserver.ENV not in os.environ
    assert "did not start (no temporary folder: read-only /tmp)" in capsys.readouterr().err


def plain_request(folder, env):
    """A request the server would fork: this Python, working directory and process state, an
    empty local script in ``folder``, environment ``env``."""
    script = folder / "job.py"
    script.write_text("")
    return dict(executable=sys.executable, cwd=os.getcwd(), env=env, script=str(script),
                state=jobserver._process_state())


def test_a_request_is_refused_when_a_fork_could_differ(tmp_path):
    """Another Python, another working directory, a changed import-time variable or a source
    file changed since the server imported it: each is a reason; the same request is not."""
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    sources = {str(source): jobserver._stamp(str(source))}
    env = dict(os.environ)
    request = plain_request(tmp_path, env)
    assert jobserver._differs(request, sources) is None
    assert "another Python" in jobserver._differs({**request, "executable": "/x/python"}, sources)
    assert "working directory" in jobserver._differs({**request, "cwd": str(tmp_path)}, sources)
    changed = {**env, "MKL_NUM_THREADS": "7"}
    assert "MKL_NUM_THREADS" in jobserver._differs({**request, "env": changed}, sources)
    unrelated = {**env, "CROWDPRIV_SOMETHING_ELSE": "1"}
    assert jobserver._differs({**request, "env": unrelated}, sources) is None
    assert "not a local file" in jobserver._differs({**request, "script": "https://x/y.py"},
                                                    sources)
    limits = {**request["state"]["limits"], "RLIMIT_NOFILE": (16, 16)}
    other = {**request["state"], "limits": limits}
    assert "another limits" in jobserver._differs({**request, "state": other}, sources)
    stamp = source.stat()
    source.write_text("x = 2\n")  # the same size, then the modification time put back
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert "changed since the server imported it" in jobserver._differs(request, sources)


def test_matplotlibs_configuration_files_are_watched(tmp_path, monkeypatch):
    """matplotlib reads its rc file and font list at import: the server watches each place an
    rc file is looked for (a ``matplotlibrc`` that appears in the working directory after the
    server imported matplotlib makes a fork differ), and the variables that place them."""
    import crowdpriv.plotting  # noqa: F401  (the server preloads it, and pyplot with it)

    monkeypatch.chdir(tmp_path)
    files = jobserver._matplotlib_files()
    assert str(tmp_path / "matplotlibrc") in files
    assert any(f.endswith(".json") and "fontlist" in f for f in files)
    sources = {path: jobserver._stamp(path) for path in files}
    request = plain_request(tmp_path, dict(os.environ))
    assert jobserver._differs(request, sources) is None
    (tmp_path / "matplotlibrc").write_text("lines.linewidth: 3\n")
    assert "matplotlibrc changed since" in jobserver._differs(request, sources)
    for name in ("MPLBACKEND", "MATPLOTLIBRC", "XDG_CONFIG_HOME", "HOME"):
        changed = {**request["env"], name: "/elsewhere"}
        assert name in jobserver._differs({**request, "env": changed}, sources)
    assert "matplotlib" in jobserver.PRELOAD and "crowdpriv.plotting" in jobserver.PRELOAD


def test_matplotlib_is_not_preloaded_where_it_would_need_a_temporary_folder(tmp_path,
                                                                            monkeypatch):
    """A configuration or cache folder that cannot be created makes matplotlib fall back to a
    temporary one, set MPLCONFIGDIR and remove the folder at exit: the server then leaves
    matplotlib to the figure jobs (every other module is still preloaded)."""
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert jobserver.preload_modules() == jobserver.PRELOAD
    assert (tmp_path / "cache" / "matplotlib").is_dir()  # created, as matplotlib would
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    for variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        with monkeypatch.context() as m:
            m.setenv(variable, str(blocked))  # a folder cannot be made under a file
            kept = jobserver.preload_modules()
            assert "matplotlib" not in kept and "crowdpriv.plotting" not in kept
            assert set(jobserver.PRELOAD) - set(kept) == {"matplotlib", "crowdpriv.plotting"}
    monkeypatch.setenv("MPLCONFIGDIR", str(blocked / "mpl"))
    assert "matplotlib" not in jobserver.preload_modules()


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


def _state(pid: int) -> str:
    """The kernel's state letter of process ``pid`` (T: stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_snakemakes_process_passes_signals_on_to_the_jobs_it_requested(monkeypatch):
    """Snakemake's handler (jobserver._pass_on): a signal that comes while a request is on its
    way is kept and delivered once the job is forked; Ctrl-Z stops the job (SIGSTOP), SIGCONT
    continues it; each signal then goes to the handler it replaced."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    seen = []
    for signum in (signal.SIGTSTP, signal.SIGCONT):
        monkeypatch.setitem(jobserver._REPLACED_HANDLERS, signum,
                            lambda s, f: seen.append(s))
    entry = {"pid": None, "handle": None, "pending": []}
    monkeypatch.setitem(jobserver._REQUESTED, id(entry), entry)
    try:
        jobserver._pass_on(signal.SIGTSTP, None)  # before the fork's pid is known
        assert entry["pending"] == [signal.SIGSTOP] and seen == [signal.SIGTSTP]
        assert _state(child.pid) != "T"
        jobserver._started(entry, child.pid)
        assert wait_until(lambda: _state(child.pid) == "T", within=10)
        assert entry["pending"] == []
        jobserver._pass_on(signal.SIGCONT, None)
        assert wait_until(lambda: _state(child.pid) != "T", within=10)
        assert seen == [signal.SIGTSTP, signal.SIGCONT]
    finally:
        child.kill()
        child.wait()
        if entry.get("handle"):
            os.close(entry["handle"])


def test_a_signal_inside_the_handler_does_not_deadlock():
    """A second signal handled while the first holds the registry's lock (handlers can nest
    in the main thread): the lock is re-entrant."""
    with jobserver._REQUESTED_LOCK:
        assert jobserver._REQUESTED_LOCK.acquire(timeout=1)
        jobserver._REQUESTED_LOCK.release()


def test_snakemakes_script_is_wrapped_once_and_only_when_its_parameters_are_known(capsys):
    def script(path, basedir, input, output, params, wildcards, threads, resources, log,
               config, rulename, conda_env, conda_base_path, container_img, singularity_args,
               env_modules, bench_record, jobid, bench_iteration, cleanup_scripts, shadow_dir,
               sourcecache_path, runtime_sourcecache_path, runtime_paths):
        return "ran by Snakemake"

    wrapped = jobserver.script_without_launcher(script)
    assert wrapped is not script and jobserver.script_without_launcher(wrapped) is wrapped

    def another_version(path, basedir, input, output, params):
        return "ran by Snakemake"

    assert jobserver.script_without_launcher(another_version) is another_version
    assert "has no parameter" in capsys.readouterr().err
    from snakemake.script import script as snakemakes

    assert jobserver.script_without_launcher(snakemakes) is not snakemakes  # the pinned one


def test_without_a_server_snakemakes_script_runs_the_job(monkeypatch):
    monkeypatch.delenv(jobserver.ENV, raising=False)
    calls = []

    def script(path, basedir, input, output, params, wildcards, threads, resources, log,
               config, rulename, conda_env, conda_base_path, container_img, singularity_args,
               env_modules, bench_record, jobid, bench_iteration, cleanup_scripts, shadow_dir,
               sourcecache_path, runtime_sourcecache_path, runtime_paths):
        calls.append(path)

    wrapped = jobserver.script_without_launcher(script)
    wrapped("job.py", *[None] * 23)
    assert calls == ["job.py"]
    monkeypatch.setenv(jobserver.ENV, "/nonexistent/socket")  # a conda job is never asked
    arguments = dict.fromkeys(inspect.signature(script).parameters)
    arguments.update(path="job.py", conda_env="/envs/x")
    wrapped(**arguments)
    assert calls == ["job.py", "job.py"]
