"""Resume an interrupted run: clear a stale Snakemake lock, or name the process that holds it.

Snakemake locks its working directory (``.snakemake/locks/``) while it runs. A run killed hard
(``kill -9``, a closed terminal, a lost session) leaves the lock behind, and the next run stops
with "Directory cannot be locked" and a pointer to ``--unlock``. ``make reproduce`` calls this
module first (``python -m crowdpriv.resume -- <the run's snakemake arguments>``):

- no lock: nothing to do;
- a lock, and a live Snakemake process (or a job it started) works in the directory: it is
  named (pid and command) and nothing is touched, since unlocking under a live run would let
  two runs write the same files; wait for it or stop it (``kill <pid>``);
- a lock and no such process: ``snakemake --unlock`` with the run's own arguments.

The run then re-runs the jobs the killed run left incomplete (``--rerun-incomplete``, also set
in ``profiles/default``). Processes are found through ``/proc`` (Linux); elsewhere a lock is
reported with the command that clears it, and left alone.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["lock_files", "holders", "main"]


def lock_files(directory: str | os.PathLike) -> list[Path]:
    """Snakemake's lock files in ``directory`` (empty when it is not locked)."""
    locks = Path(directory) / ".snakemake" / "locks"
    return sorted(p for p in locks.glob("*.lock")) if locks.is_dir() else []


def _ancestors(pid: int, proc: Path) -> set[int]:
    """``pid`` and its parents (so that this module, make and the shell are never holders)."""
    out = set()
    while pid > 1 and pid not in out:
        out.add(pid)
        try:
            stat = (proc / str(pid) / "stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def holders(directory: str | os.PathLike, *, proc: str | os.PathLike = "/proc"
            ) -> list[tuple[int, str]] | None:
    """(pid, command) of every live process working in ``directory`` whose command mentions
    Snakemake (a Snakemake run, or one of its jobs: ``.snakemake/scripts/...``); None when
    ``proc`` cannot be read (not Linux)."""
    proc = Path(proc)
    if not proc.is_dir():
        return None
    target = os.path.realpath(directory)
    mine = _ancestors(os.getpid(), proc)
    out = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone, or another user's
            continue
        command = " ".join(a.decode(errors="replace") for a in argv if a)
        if "snakemake" in command and os.path.realpath(cwd) == target:
            out.append((int(entry.name), command))
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m crowdpriv.resume [-d DIR] [-- SNAKEMAKE ARGS]``; returns 0
    when the run may start (no lock, or a stale one cleared), 1 when a process holds the
    directory or the lock cannot be judged."""
    parser = argparse.ArgumentParser(prog="python -m crowdpriv.resume", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--directory", default=".",
                        help="Snakemake's working directory (default: here)")
    parser.add_argument("snakemake_args", nargs="*",
                        help="the run's own arguments (config files), after --")
    args = parser.parse_args(argv)
    directory = os.path.abspath(args.directory)
    if not lock_files(directory):
        return 0
    found = holders(directory)
    if found is None:
        print(f"{directory} is locked by a Snakemake run; this system has no /proc to tell "
              "whether that run is still alive. If it is not: snakemake --unlock",
              file=sys.stderr)
        return 1
    if found:
        listed = "; ".join(f"pid {pid}: {command}" for pid, command in found)
        print(f"{directory} is in use by a running Snakemake ({listed}). Wait for it to end, "
              f"or stop it (kill {found[0][0]}) and run again.", file=sys.stderr)
        return 1
    cmd = [sys.executable, "-m", "snakemake", "--unlock", "--directory", directory,
           *args.snakemake_args]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stdout + result.stderr, file=sys.stderr)
        return result.returncode
    print(f"{directory}: removed the lock of an interrupted run (no Snakemake process is "
          "left); its incomplete jobs run again (--rerun-incomplete)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
