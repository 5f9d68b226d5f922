"""Adapter for rule privacy_audit: every mechanism of the three papers audited against its
paper's guarantee (crowdpriv.audits, crowdpriv.audit). Writes audit.csv / audit.md, one figure
per paper, each paper's privacy claims (category ``privacy``) and the caveats for release
ledgers."""

from crowdpriv.runtime import start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv import audits  # noqa: E402
from crowdpriv.runtime import write_csv, write_markdown  # noqa: E402

p = snakemake.params  # noqa: F821
out = snakemake.output  # noqa: F821
cfg = p.audit
cases = []
for eps in cfg["ldp_sparse_epsilons"]:
    cases += audits.ldp_sparse_cases(p.ldp_sparse, float(eps))
    cases += audits.release_cases(p.ldp_sparse["real_domain_size"], float(eps))
for eps in cfg["pptd_epsilons"]:
    cases += audits.pptd_cases(p.pptd, float(eps), float(cfg["pptd_lambda1"]))
cases += audits.priscrowd_cases(p.priscrowd)
table = audits.run_audit(cases, seed=p.seed, samples=cfg["samples"],
                         search_samples=cfg["search_samples"], confidence=cfg["confidence"])
table = pd.concat([table, *(audits.floating_point_rows(p.ldp_sparse, float(eps), seed=p.seed)
                            for eps in cfg["ldp_sparse_epsilons"])], ignore_index=True)
write_csv(table, out.csv)
write_markdown(
    table[["paper", "mechanism", "neighbours", "claimed_epsilon", "claimed_delta",
           "epsilon_lower_bound", "exact_epsilon", "verdict", "evidence"]],
    out.md, title="Privacy audit: every mechanism against its paper's guarantee",
    notes=("epsilon_lower_bound: ln((p_lo - delta) / p'_hi) with Clopper-Pearson bounds at "
           f"confidence {cfg['confidence']:g} on {cfg['samples']} fresh samples per side, for "
           "the output event a separate search sample chose (scripts/crowdpriv/audit.py). "
           "Verdicts: violated (refuted: exact value or lower bound above the claim), exact "
           "(the closed-form epsilon is within the claim), not refuted (all a lower bound can "
           "show), not auditable (the claim exceeds what the sample size resolves), not "
           "claimed (neighbours the paper makes no claim for)."))
write_csv(audits.caveats(table), out.caveats)
for paper, title, claims_path, png, svg in zip(p.papers, p.titles, out.claims, out.png,
                                                out.svg):
    write_csv(audits.privacy_claims(table, paper, confidence=cfg["confidence"]), claims_path)
    audits.plot_audit(table, paper, [png, svg], confidence=cfg["confidence"], title=title)
logger.info("%s", table[["paper", "mechanism", "neighbours", "verdict"]].to_string())
