# Private artefacts built by the same API a user calls (crowdpriv.api), each with its ledger
# <file>.privacy.json: LDP-sparse's real datasets perturbed per mechanism, PrisCrowd's
# synthetic claims per dataset and seed weighting. Registered as each paper's "releases".

LDP_RELEASE = [
    dict(
        kind="perturb",
        labels=["ldp_sparse", ds, mech],
        input=processed(ds),
        mechanism=mech,
        epsilon=LDP["release"]["epsilon"],
        domain=LDP["real_domain_size"],
        output=f"{LDP_OUT}/release/{ds}_{mech}.csv",
    )
    for ds in LDP["release"]["datasets"]
    for mech in LDP["release"]["mechanisms"]
]
PRIS_RELEASE = [
    dict(
        kind="synthesize",
        labels=["priscrowd", ds, weights],
        input=processed(ds),
        options=dict(
            m=PRIS["m"],
            weights=weights,
            k=PRIS["k"],
            gamma=PRIS["gamma"],
            eps0=PRIS["eps0"],
            t=PRIS["t"],
            max_candidates=PRIS["max_candidates"],
            bandwidth=PRIS["bandwidth"],
            units=PRIS["units"],
        ),
        output=f"results/priscrowd/release/{ds}_{weights}.csv",
    )
    for ds in PRIS["datasets"]
    for weights in PRIS["synthetic_release"]["weights"]
]
PAPERS["ldp_sparse"]["releases"] += [j["output"] for j in LDP_RELEASE]
PAPERS["priscrowd"]["releases"] += [j["output"] for j in PRIS_RELEASE]


rule ldp_sparse_release:
    input:
        [j["input"] for j in LDP_RELEASE],
    output:
        [j["output"] for j in LDP_RELEASE],
    log:
        "results/logs/ldp_sparse/release.log",
    benchmark:
        "results/benchmarks/ldp_sparse/release.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        jobs=LDP_RELEASE,
        seed=config["seed"],
    script:
        "../../scripts/release_artefacts.py"


rule priscrowd_synthetic_release:
    input:
        [j["input"] for j in PRIS_RELEASE],
    output:
        [j["output"] for j in PRIS_RELEASE],
    log:
        "results/logs/priscrowd/synthetic_release.log",
    benchmark:
        "results/benchmarks/priscrowd/synthetic_release.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        jobs=PRIS_RELEASE,
        seed=config["seed"],
    script:
        "../../scripts/release_artefacts.py"
