#!/usr/bin/env python3
"""Job status for snakemake-executor-plugin-cluster-generic on SLURM: prints running, success
or failed for the job id given as the only argument (via sacct, falling back to squeue)."""

import subprocess
import sys

RUNNING = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING",
           "SUSPENDED", "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING", "STAGE_OUT"}


def state(job_id: str) -> str:
    out = subprocess.run(["sacct", "-j", job_id, "-X", "-n", "-P", "-o", "State"],
                         capture_output=True, text=True).stdout.strip()
    if not out:  # not yet in the accounting database
        queued = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%T"],
                                capture_output=True, text=True).stdout.strip()
        return "running" if queued else "failed"
    current = out.splitlines()[0].split()[0]
    if current == "COMPLETED":
        return "success"
    return "running" if current in RUNNING else "failed"


if __name__ == "__main__":
    print(state(sys.argv[1]))
