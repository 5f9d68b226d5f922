# Privacy audit (crowdpriv.audits): every mechanism against its paper's guarantee, one job.
# Each paper gets a "Privacy audit" figure and privacy claims (category privacy) beside its
# claims.csv; results/privacy_audit/caveats.csv feeds release ledgers.

AUDIT_OUT = "results/privacy_audit"
AUDIT_PAPERS = ["ldp_sparse", "pptd", "priscrowd"]
register_privacy_audit(AUDIT_PAPERS, AUDIT_OUT)


rule privacy_audit:
    output:
        csv=f"{AUDIT_OUT}/audit.csv",
        md=f"{AUDIT_OUT}/audit.md",
        caveats=f"{AUDIT_OUT}/caveats.csv",
        claims=expand(f"{AUDIT_OUT}/{{paper}}_claims.csv", paper=AUDIT_PAPERS),
        png=[
            paper_report(
                paper,
                f"{AUDIT_OUT}/{paper}.png",
                caption="../report/privacy_audit/figure.rst",
                subcategory="Privacy audit",
            )
            for paper in AUDIT_PAPERS
        ],
        svg=expand(f"{AUDIT_OUT}/{{paper}}.svg", paper=AUDIT_PAPERS),
    log:
        "results/logs/privacy_audit.log",
    benchmark:
        "results/benchmarks/privacy_audit.tsv"
    priority: 40
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        audit=config["privacy_audit"],
        papers=AUDIT_PAPERS,
        titles=[PAPERS[paper]["title"] for paper in AUDIT_PAPERS],
        ldp_sparse=select(config["ldp_sparse"], ["real_domain_size", "d", "mechanisms"]),
        pptd=select(config["pptd"], ["privacy", "synthetic", "fig3"]),
        priscrowd=pris_core.job_params(config["priscrowd"], "audit")["priscrowd"],
        seed=config["seed"],
    script:
        "../../scripts/privacy_audit.py"
