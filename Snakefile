# crowdpriv: reproduce PrisCrowd (IJCAI'19), PPTD (KDD'18) and LDP-sparse (BigData'18).
# Run: snakemake --cores 2        Report: make report (results/report.html)
import os

from snakemake.utils import min_version

min_version("9.0")


# Resolved from the repository, so `--directory` runs (tests/e2e) still find it.
configfile: os.path.join(workflow.basedir, "config", "config.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/ldp_sparse.smk"
include: "workflow/rules/pptd.smk"
include: "workflow/rules/priscrowd.smk"
include: "workflow/rules/readings.smk"
include: "workflow/rules/privacy_audit.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/release.smk"
include: "workflow/rules/summary.smk"


rule all:
    default_target: True
    input:
        rules.datasets.output,
        rules.ldp_sparse.input,
        rules.pptd.input,
        rules.priscrowd.input,
        rules.benchmark.input if BENCH_ENABLED else [],
        [f for p in PAPERS.values() for f in p["privacy_claims"]],
        [f for p in PAPERS.values() for f in p["releases"]],
        rules.summary.output,
        rules.report_pages.output,
    localrule: True


# The job server (config job_server, crowdpriv.jobserver): local jobs are forked from one process
# that imported numpy, pandas and crowdpriv once; a job that finds no server runs on its own.
onstart:
    if JOB_SERVER and workflow.local_exec and not workflow.touch:
        from crowdpriv.jobserver import start_server

        start_server()


# The run's whole CPU (the scheduler's own and its jobs', by getrusage) beside the jobs' records,
# for benchmarks/reproduction_cpu.py; only after a run in which jobs ran and all succeeded. The
# job server is stopped and waited for first, so its CPU is in the record.
# The scheduler's last wake-up timers are cancelled first (crowdpriv.runtime.cancel_pending_timers:
# the default profile's max-jobs-per-timespan would otherwise hold the exit up to 10 s).
onsuccess:
    from crowdpriv.jobserver import stop_server
    from crowdpriv.runtime import cancel_pending_timers, record_run_cpu

    cancel_pending_timers()
    stop_server()
    record_run_cpu()


onerror:
    from crowdpriv.jobserver import stop_server
    from crowdpriv.runtime import cancel_pending_timers

    cancel_pending_timers()
    stop_server()
