"""What the privacy audit checks: each mechanism of the three papers, with the neighbours its
paper's guarantee implies (and, labelled ``not claimed``, the ones a skeptic would try), the
exact ε where a closed form exists, and the verdict (:func:`verdict`).

Every case is the mechanism's own (:meth:`crowdpriv.mechanisms.Mechanism.audit_cases`): it runs
the sampler the pipeline runs, on inputs of one cell or one record, vectorised over the
samples; :mod:`crowdpriv.audit` does the statistics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import mechanisms
from .audit import Case, audit, resolvable_epsilon
from .seeds import derive_rng

__all__ = [
    "VERDICTS",
    "AUDIT_COLUMNS",
    "Case",
    "verdict",
    "ldp_sparse_cases",
    "pptd_cases",
    "priscrowd_cases",
    "floating_point_rows",
    "release_cases",
    "RELEASE_SAMPLERS",
    "privacy_claims",
    "family_verdicts",
    "CLAIM_VERDICTS",
    "NEIGHBOUR_RULES",
    "caveats",
    "plot_audit",
    "run_audit",
]

#: Verdicts of an audit row and of a privacy claim, in their own words (never "holds"):
#: ``violated`` (the exact ε of the law, or a lower bound from enough samples, or an output
#: only one input can produce, is above the claim), ``not refuted`` (nothing found above the
#: claim: all a lower bound can show), ``proved`` (the exact ε of a floating-point-safe
#: sampler is within the claim, its derivation cited), ``not auditable`` (the claim exceeds
#: what the sample size resolves), ``not claimed`` (neighbours outside the paper's rule).
VERDICTS = ("violated", "not refuted", "proved", "not auditable", "not claimed")
#: The verdicts a privacy claim can get (a family of neighbours judged by its worst).
CLAIM_VERDICTS = ("violated", "not refuted", "proved", "not auditable")
AUDIT_COLUMNS = ("paper", "mechanism", "family", "neighbours", "statistic", "claimed_epsilon",
                 "claimed_delta", "epsilon_lower_bound", "exact_epsilon", "float_safe",
                 "samples", "resolvable_epsilon", "verdict", "evidence")
#: A "violated" verdict from a lower bound needs at least this many samples per side.
MIN_VIOLATION_SAMPLES = 100_000
#: Relative slack when an exact ε is compared with a claim (floating point only).
EXACT_TOL = 1e-9

#: Each paper's definition of neighbouring inputs: the audit judges a claim only with
#: neighbours inside its paper's rule (the others are reported as ``not claimed``).
NEIGHBOUR_RULES = {
    "ldp_sparse": "LDP-sparse Definition 2.1 (ε-cell LDP) with Sec. III-B: two answer vectors "
                  "of one worker that differ at one cell, any two values of Γ ∪ {NULL} (NULL "
                  "values must be protected too). A change of a worker's whole vector is "
                  "outside it: composition is shown beside, never judged.",
    "pptd": "PPTD Definitions 4.6-4.7 with Lemma 4.8: two records of one user about the same "
            "object at most Δ_s apart, under each reading of Lemma 4.8 (printed γ/λ1, "
            "corrected γ/√λ1), λ2 as the pipeline computes it; the user's other records, "
            "released with the same variance, stay as they are and are seen too. Records "
            "farther apart than Δ_s, and a change of all of a user's records, are outside it.",
    "priscrowd": "PrisCrowd Definition 1 with App. C: two claim sets of one object, "
                 "|X_i|, |X'_i| ≥ k, that differ in one user's claim replaced by any value "
                 "of the data universe (D' = D − {x_n} ∪ {x'_n}), the guarantee stated per "
                 "released synthetic claim (Theorem 2). Adding or removing a claim, and "
                 "objects with fewer than k claims, are outside it.",
}


def verdict(case: Case, epsilon_lb: float, samples: int, confidence: float) -> tuple[str, str]:
    """The verdict of a case and why (see :data:`VERDICTS`)."""
    exact, claimed = case.exact_epsilon, case.claimed_epsilon
    if not case.claimed:
        return "not claimed", ("outside the paper's neighbour rule: the claim says nothing of "
                               "these neighbours")
    where = "of the sampler as it runs" if case.float_safe else "of the law in exact arithmetic"
    if case.claimed_delta > 0 and np.isfinite(case.exact_delta):
        need = case.exact_delta
        if need > case.claimed_delta * (1 + EXACT_TOL) + EXACT_TOL:
            return "violated", (f"at the claimed ε = {claimed:g} the law {where} needs "
                                f"δ = {need:.4g} > the claimed {case.claimed_delta:g} (its pure "
                                f"ε is {exact:.4g})")
        if case.float_safe:
            return "proved", (f"at the claimed ε = {claimed:g} the sampler as it runs needs "
                              f"δ = {need:.4g} ≤ the claimed {case.claimed_delta:g}")
    elif np.isfinite(exact) or np.isposinf(exact):
        if exact > claimed * (1 + EXACT_TOL) + EXACT_TOL:
            return "violated", f"the exact epsilon {exact:.4g} {where} exceeds the claimed " \
                               f"{claimed:g}"
        if case.float_safe:
            return "proved", (f"the exact epsilon {exact:.4g} of the sampler as it runs "
                              f"(floating point included) is within the claimed {claimed:g}")
    if epsilon_lb > claimed:
        if samples < MIN_VIOLATION_SAMPLES:
            return "not auditable", (
                f"the lower bound {epsilon_lb:.4g} exceeds the claimed {claimed:g}, but fewer "
                f"than {MIN_VIOLATION_SAMPLES} samples per side back it (privacy_audit.samples)")
        return "violated", (f"the lower bound {epsilon_lb:.4g} exceeds the claimed {claimed:g} "
                            f"at confidence {confidence:g}")
    resolvable = resolvable_epsilon(samples, confidence)
    if claimed > resolvable:
        return "not auditable", (f"the claimed {claimed:g} exceeds the largest epsilon "
                                 f"{resolvable:.3g} that {samples} samples can resolve")
    ideal = (f" (the law's exact epsilon in exact arithmetic is {exact:.4g}; the sampler's "
             "floating point is not safe, so that is not proved for the code)"
             if np.isfinite(exact) else "")
    return "not refuted", (f"no event found with a lower bound above the claimed {claimed:g} "
                           f"(lower bound {epsilon_lb:.4g}; {samples} samples per side resolve "
                           f"up to {resolvable:.3g}){ideal}")


# --- the cases, from each mechanism of the family ------------------------------------------


def ldp_sparse_cases(block: Mapping, epsilon: float) -> list[Case]:
    """LDP-sparse's mechanisms at ``epsilon`` against ε-cell LDP (Definition 2.1: one cell of a
    worker's answer vector changes, NULL included), each member's own cases
    (:meth:`crowdpriv.mechanisms.Mechanism.audit_cases`) with its settings from the
    ``ldp_sparse`` block (``real_domain_size``, ``d``, ``mechanisms``, its own registered
    mechanisms included); claimed cases first, then the neighbours nothing is claimed for."""
    from .ldp_sparse import METHODS, mechanism_settings, register_extra

    mech_block = dict(block["mechanisms"])
    extra = [m for m in register_extra(mech_block.get("extra")) if "audit" in m.parts]
    cases = []
    for mech in [mechanisms.get(name) for name in METHODS] + extra:
        settings = mechanism_settings(mech, mech_block, int(block["d"]))
        cases += mech.audit_cases(settings, float(epsilon),
                                  domain_size=int(block["real_domain_size"]))
    return [c for c in cases if c.claimed] + [c for c in cases if not c.claimed]


#: The release samplers of ``crowdpriv perturb`` (the members the papers' mechanisms release
#: with: ``release_with``), by paper.
RELEASE_SAMPLERS = {"ldp_sparse": ("lp-snapped", "rr-exact", "two-layer-exact", "mf-snapped"),
                    "pptd": ("pptd-laplace",), "priscrowd": ("basic-snapped",)}


def release_cases(domain: int, epsilon: float, *, d: int = 10) -> list[Case]:
    """The release samplers a user's labels go through (:mod:`crowdpriv.api`): LP with
    Mironov's snapping, RR and 2-Layer with integer thresholds, MF with b − η snapped, each with
    its exact ε (``d``: MF's factorisation parameter, ``ldp_sparse.d``)."""
    cases = []
    for mech_id in RELEASE_SAMPLERS["ldp_sparse"]:
        mech = mechanisms.get(mech_id)
        settings = mech.settings(d=int(d)) if mech_id == "mf-snapped" else mech.settings()
        cases += mech.audit_cases(settings, float(epsilon), domain_size=int(domain))
    return cases


def pptd_lambda1s(block: Mapping) -> list[float]:
    """Every λ1 the PPTD config uses (``synthetic.lambda1``, ``fig3.lambda1``), sorted."""
    values = [block["synthetic"]["lambda1"], *block.get("fig3", {}).get("lambda1", [])]
    return sorted({float(v) for v in values})


def pptd_settings(block: Mapping | None, lam1: float):
    """PPTD's settings at ``lam1`` as the pipeline runs it: b, η, δ and the sensitivity reading
    from ``block["privacy"]`` (the ``pptd`` config keys; the printed Δ_s when it names none),
    the member's defaults without a block."""
    priv = {"sensitivity": "printed", **block["privacy"]} if block is not None else {}
    return mechanisms.get("pptd").settings(lambda1=float(lam1), **{
        key: cast(priv[key]) for key, cast in (("b", float), ("eta", float), ("delta", float),
                                               ("sensitivity", str)) if key in priv})


def pptd_cases(block: Mapping, epsilon: float, lam1: float | None = None) -> list[Case]:
    """PPTD's Alg. 2 against Theorem 4.10's (ε, δ) per record at each configured λ1
    (:func:`pptd_lambda1s`, or ``lam1``), λ2 as the pipeline computes it (``privacy``, its
    sensitivity reading included), records Δ_s apart under both readings of Lemma 4.8
    (:meth:`crowdpriv.mechanisms.PPTD.audit_cases`)."""
    mech = mechanisms.get("pptd")
    cases = []
    for value in ([float(lam1)] if lam1 is not None else pptd_lambda1s(block)):
        settings = pptd_settings(block, value)
        cases += mech.audit_cases(settings, float(epsilon))
        laplace = mechanisms.get("pptd-laplace")
        cases += laplace.audit_cases(laplace.settings(
            lambda1=value, b=settings.b, eta=settings.eta, delta=settings.delta,
            sensitivity=settings.sensitivity), float(epsilon))
    return cases


def priscrowd_cases(block: Mapping) -> list[Case]:
    """PrisCrowd's Alg. 1 against Theorem 2's (ε, δ) and the Basic baselines against their
    nominal ε, for one object whose last claim moves, both in the theorem's own setting (units
    and bandwidth fixed by D) and as the pipeline runs them (each dataset z-scored, its
    bandwidth chosen, from its own claims). ``block``: the ``priscrowd`` config keys."""
    alg1, basic = mechanisms.get("priscrowd"), mechanisms.get("basic")
    names = {f.name for f in dataclasses.fields(alg1.Settings)} - {"weights"}
    settings = alg1.settings({k: v for k, v in block.items() if k in names})
    cases = alg1.audit_cases(settings)
    basic_settings = basic.settings(sensitivity=block.get("basic_sensitivity", "range"),
                                    units=settings.units)
    snapped = mechanisms.get("basic-snapped")
    for name, level in dict(block["basic_epsilons"]).items():
        cases += basic.audit_cases(basic_settings, float(level), name=name)
        cases += snapped.audit_cases(snapped.example_settings(), float(level), name=name)
    return cases


# --- running ----------------------------------------------------------------------------------


def run_audit(cases, *, seed: int, samples: int, search_samples: int, confidence: float
              ) -> pd.DataFrame:
    """Run every case (seeds derived from the case's labels) into the audit table."""
    rows = []
    for case in cases:
        rng = derive_rng(seed, "audit", case.paper, case.mechanism, case.neighbours,
                         case.claimed_epsilon)
        res = audit(case.sample, rng=rng, samples=samples, search_samples=search_samples,
                    confidence=confidence, delta=case.claimed_delta, discrete=case.discrete,
                    statistic=case.statistic)
        status, why = verdict(case, res.epsilon_lower_bound, samples, confidence)
        evidence = f"{why}; {res.evidence}" + (f"; {case.note}" if case.note else "") + (
            f"; composed: {case.composition}" if case.composition else "")
        rows.append(dict(
            paper=case.paper, mechanism=case.mechanism, family=case.claim,
            neighbours=case.neighbours, statistic=case.statistic,
            claimed_epsilon=case.claimed_epsilon, claimed_delta=case.claimed_delta,
            epsilon_lower_bound=res.epsilon_lower_bound, exact_epsilon=case.exact_epsilon,
            float_safe=bool(case.float_safe), samples=samples,
            resolvable_epsilon=res.resolvable, verdict=status, evidence=evidence))
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


def family_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (family of neighbours) of the audit table: the verdict of its worst
    neighbour inside the paper's rule (violated before not auditable before not refuted;
    ``proved`` only when every neighbour is proved), the largest lower bound and the neighbour
    that attains it. Families without a claimed neighbour are left out."""
    rank = {"violated": 0, "not auditable": 1, "not refuted": 2, "proved": 3}
    out = []
    for (paper, family), sub in table.groupby(["paper", "family"], sort=False):
        judged = sub.loc[sub["verdict"] != "not claimed"]
        if judged.empty:
            continue
        # a support test that finds nothing (its share is 0) neither proves nor blocks a
        # proof: the exact ε of the same sampler decides
        silent = (judged["statistic"] == "output support") & (judged["verdict"] == "not refuted")
        verdicts = set(judged.loc[~silent, "verdict"]) or {"not refuted"}
        if verdicts == {"proved"}:
            worst = "proved"
        elif "violated" in verdicts:
            worst = "violated"
        elif verdicts & {"not refuted", "proved"}:
            worst = "not refuted"
        else:
            worst = "not auditable"
        order = judged.assign(_rank=judged["verdict"].map(rank),
                              _lb=-judged["epsilon_lower_bound"].astype(float))
        top = order.sort_values(["_rank", "_lb"], kind="stable").iloc[0]
        best_lb = judged.loc[judged["epsilon_lower_bound"].astype(float).idxmax()]
        out.append(dict(paper=paper, family=family, mechanism=top["mechanism"],
                        claimed_epsilon=float(top["claimed_epsilon"]),
                        claimed_delta=float(top["claimed_delta"]), verdict=worst,
                        neighbours=len(judged), worst_neighbour=top["neighbours"],
                        epsilon_lower_bound=float(best_lb["epsilon_lower_bound"]),
                        lower_bound_neighbour=best_lb["neighbours"],
                        samples=int(top["samples"]),
                        resolvable_epsilon=float(top["resolvable_epsilon"]),
                        evidence=top["evidence"]))
    return pd.DataFrame(out, columns=["paper", "family", "mechanism", "claimed_epsilon",
                                      "claimed_delta", "verdict", "neighbours",
                                      "worst_neighbour", "epsilon_lower_bound",
                                      "lower_bound_neighbour", "samples",
                                      "resolvable_epsilon", "evidence"])


def floating_point_rows(block: Mapping, epsilon: float, *, seed: int, samples: int = 2000,
                        pptd_lambda1: float | None = None, pptd_block: Mapping | None = None,
                        basic_epsilons: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Mironov (CCS 2012) on the samplers that run: for each, the share of its outputs on D
    that D′ can never produce (:mod:`crowdpriv.floating_point`, certain for every output they
    count), at ``epsilon`` (``block``: the ``ldp_sparse`` config keys; PPTD at
    ``pptd_lambda1``, else at every λ1 of ``pptd_block`` (the ``pptd`` config keys: each
    configured λ1, λ2 as the pipeline computes it, as :func:`pptd_cases`), else at its member's
    example λ1 = 2, the synthetic data's).

    The float samplers of the pipeline (LP's float32 sweep sampler as drawn, PPTD's Alg. 2,
    Basic with a fixed range, MF's float64 b − η) and every release sampler the CLI runs
    (LP, RR, 2-Layer, MF, the i.i.d.-Laplace PPTD and Basic with a public range), plus the
    textbook float64 ``numpy.laplace`` as a reference (not claimed). A positive share is an
    event of positive probability under D and probability 0 under D′: ε = ∞ at that neighbour,
    exactly, for a pure-ε claim; for an (ε, δ) claim when the share's Clopper-Pearson lower
    bound exceeds δ. MF's b − η is not released (the solve post-processes it), so its row is
    ``not auditable``: whether the solve hides the leak is not decided. Each row joins the
    claim (family) its sampler is audited under; Basic's at the level of ``basic_epsilons``
    whose ε is ``epsilon``, when one is."""
    from . import floating_point as fp
    from .audit import clopper_pearson, laplace_float64_support
    from .mechanisms.rr_exact import two_layer_budget_cap

    k = int(block["real_domain_size"])
    eps = float(epsilon)
    rows = []

    def rng(label):
        return derive_rng(seed, "audit", "floating point", label, eps)

    def add(paper, mechanism, neighbours, result, evidence, *, delta=0.0, verdict_=None,
            reverse=None, family="", float_safe=False):
        share = result.share
        lower, _ = clopper_pearson(result.unreachable, result.samples, 0.995)
        refuted = share > 0 if delta == 0 else float(lower) > delta
        if verdict_ is None:
            verdict_ = "violated" if refuted else "not refuted"
        elif verdict_ == "not auditable":  # the leak is in a value the output post-processes
            refuted = False
        text = (f"{share:.1%} of {result.samples} outputs for D cannot be produced from D' by "
                "any floating-point draw (each checked exactly by bisection over the draws, "
                "every float of the draw's type allowed)")
        if reverse is not None:
            text += f"; D' against D: {reverse.share:.1%}"
        if delta > 0 and share > 0:
            text += (f"; an (ε, δ) claim needs that share below δ = {delta:g} (lower bound "
                     f"{float(lower):.3g} at 99.5 %)")
        rows.append(dict(
            paper=paper, mechanism=mechanism, family=family or mechanism, neighbours=neighbours,
            statistic="output support", claimed_epsilon=eps, claimed_delta=delta,
            epsilon_lower_bound=float("inf") if refuted else 0.0,
            exact_epsilon=float("inf") if refuted and delta == 0 else float("nan"),
            float_safe=float_safe, samples=result.samples, resolvable_epsilon=float("inf"),
            verdict=verdict_, evidence=f"{text}; {evidence}"))

    zero = "0 vs |Γ|-1"
    textbook = laplace_float64_support(0.0, float(k - 1), k / eps, samples=samples,
                                          rng=rng("textbook float64 numpy.laplace"))
    add("ldp_sparse", "LP (floating point)",
        f"one answered cell, {zero}: support of textbook float64 numpy.laplace", textbook,
        "a reference sampler the pipeline does not run", verdict_="not claimed",
        family=mechanisms.get("lp").CLAIM)
    forward = fp.lp_float32_support(eps, k, answer=0, other=k - 1, samples=samples,
                                    rng=rng("the pipeline's float32 LP output"))
    backward = fp.lp_float32_support(eps, k, answer=k - 1, other=0, samples=samples,
                                     rng=rng("the pipeline's float32 LP output, reversed"))
    add("ldp_sparse", "LP (floating point)",
        f"one answered cell, {zero}: support of the pipeline's float32 LP output", forward,
        "the sweeps' sampler as drawn: fl32(fl32(E1 − E2)·fl32(|Γ|/ε)) + answer; the release "
        "path (crowdpriv perturb lp) snaps its output to a power-of-two grid",
        reverse=backward, family=mechanisms.get("lp").CLAIM)
    mf = mechanisms.get("mf")
    add("ldp_sparse", "MF (floating point)",
        f"one answered cell, {zero}, T_i fixed: support of the float64 b − η the solve "
        "post-processes",
        fp.mf_eta_support(eps, k, mf.settings(d=int(block["d"])), samples=samples,
                          rng=rng("MF's b − η")),
        "b − η is not released: whether the solve (G + λI)⁺ and u_iᵀV hide the leak is not "
        "decided; the release path (crowdpriv perturb mf) snaps b − η",
        verdict_="not auditable", family=mf.CLAIM)
    releases = [
        ("lp-snapped", f"one answered cell, {zero}",
         lambda m: fp.snapped_release_support(m, m.example_settings(), eps, value=0.0,
                                              other=float(k - 1), domain_size=k,
                                              samples=samples, rng=rng(m.id))),
        ("rr-exact", "one answered cell, 0 vs 1",
         lambda m: fp.integer_rr_support(eps, k, value=0, other=1, samples=samples,
                                         rng=rng(m.id))),
        ("two-layer-exact", "one answered cell, 0 vs 1, the worker with the largest ε_i",
         lambda m: fp.integer_rr_support(two_layer_budget_cap(m.example_settings(), eps), k,
                                         value=0, other=1, samples=samples, rng=rng(m.id))),
        ("mf-snapped", f"one answered cell, {zero}, T_i fixed",
         lambda m: fp.mf_snapped_support(eps, k, m.settings(d=int(block["d"])),
                                         samples=samples, rng=rng(m.id))),
    ]
    for mech_id, neighbours, run in releases:
        mech = mechanisms.get(mech_id)
        add("ldp_sparse", mech.label, f"{neighbours}: support of the release sampler",
            run(mech), "a release sampler of crowdpriv perturb: every output on a grid both "
                       "inputs reach", family=getattr(mech, "CLAIM", mech.label), float_safe=True)
    pptd, laplace = mechanisms.get("pptd"), mechanisms.get("pptd-laplace")
    if pptd_lambda1 is not None:
        lambdas = [float(pptd_lambda1)]
    elif pptd_block is not None:
        lambdas = pptd_lambda1s(pptd_block)
    else:
        lambdas = [float(pptd.example_settings().lambda1)]
    for lam1 in lambdas:
        settings = pptd_settings(pptd_block, lam1)
        sens = pptd.sensitivity(settings)
        add("pptd", f"{pptd.label} (floating point)",
            f"one record, 0 vs Lemma 4.8's Δ_s ({settings.sensitivity}), λ1 = {lam1:g}: "
            "support of the float64 output",
            fp.pptd_float64_support(pptd.lambda2(settings, eps), value=0.0, other=sens,
                                    samples=samples,
                                    rng=rng(f"PPTD Alg. 2, λ1 = {lam1:g}")),
            "Alg. 2 as run: x + √(E/λ2)·Z in float64; the shared-variance mechanism has no "
            "float-safe sampler here (pptd-laplace is a float-safe mechanism beside it)",
            delta=float(settings.delta), family=pptd.claim_family(lam1))
        lap_settings = laplace.settings(lambda1=lam1, b=settings.b, eta=settings.eta,
                                        delta=settings.delta, sensitivity=settings.sensitivity)
        add("pptd", laplace.label,
            f"one record, 0 vs Lemma 4.8's Δ_s ({settings.sensitivity}), λ1 = {lam1:g}: "
            "support of the release sampler",
            fp.snapped_release_support(laplace, lap_settings, eps, value=0.0, other=sens,
                                       samples=samples,
                                       rng=rng(f"{laplace.id}, λ1 = {lam1:g}")),
            "a release sampler of crowdpriv perturb: every output on a grid both inputs reach",
            float_safe=True, family=laplace.claim_family(lam1), delta=float(settings.delta))
    basic, snapped = mechanisms.get("basic"), mechanisms.get("basic-snapped")
    level = next((name for name, value in (basic_epsilons or {}).items()
                  if float(value) == eps), None)

    def basic_family(label):
        return f"{label}({level}): ε-DP per claim (Sec. 5)" if level else ""
    add("priscrowd", f"{basic.label} (floating point)",
        "one normalised claim, 0 vs 1, range fixed at 3 (the theorem's setting): support of "
        "the float64 output",
        fp.basic_float64_support(0.0, 1.0, 3.0, eps, samples=samples, rng=rng("Basic")),
        "Basic as run: z + Lap(range/ε) in float64", family=basic_family(basic.label))
    chosen = snapped.example_settings()
    r = chosen.value_range
    add("priscrowd", snapped.label,
        f"one claim across the public range, {chosen.centre - r / 2:g} vs "
        f"{chosen.centre + r / 2:g}: support of the release sampler",
        fp.snapped_release_support(snapped, chosen, eps, value=chosen.centre - r / 2,
                                   other=chosen.centre + r / 2, samples=samples,
                                   rng=rng(snapped.id)),
        "a release sampler of crowdpriv perturb: every output on a grid both inputs reach",
        float_safe=True, family=basic_family(f"{snapped.label} "))
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


# --- outputs ----------------------------------------------------------------------------------

def _slug(text: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "_" for ch in text)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_")


def privacy_claims(table: pd.DataFrame, paper: str, *, confidence: float) -> pd.DataFrame:
    """The privacy claims of ``paper`` (claims.csv columns, category ``privacy``): one row per
    claim (:func:`family_verdicts`), its status in the audit's own words — violated, not
    refuted, proved, not auditable (:data:`CLAIM_VERDICTS`) —, never the papers' holds/fails."""
    from .claims import COLUMNS

    rows = []
    families = family_verdicts(table)
    for r in families.loc[families["paper"] == paper].itertuples():
        delta = f", δ = {r.claimed_delta:g}" if r.claimed_delta else ""
        basis = (f"the worst of {r.neighbours} neighbour(s) inside the paper's rule "
                 f"({NEIGHBOUR_RULES.get(paper, 'the paper')}); exact ε where a closed form "
                 f"exists, else a Clopper-Pearson lower bound at {confidence:g} on {r.samples} "
                 "samples per side")
        rows.append({
            "claim_id": f"{paper}.privacy.{_slug(r.family)}"[:120],
            "claim": f"{r.family}: ε = {r.claimed_epsilon:g}{delta}",
            "figure": "Privacy audit", "category": "privacy",
            "reading": "results/privacy_audit/audit.csv (every neighbour tried)",
            "status": r.verdict, "basis": basis,
            "evidence": (f"worst neighbour: {r.worst_neighbour}; largest lower bound "
                         f"{r.epsilon_lower_bound:.4g} at {r.lower_bound_neighbour}; "
                         f"{r.evidence}"), "data": "",
        })
    return pd.DataFrame(rows, columns=list(COLUMNS))


def caveats(table: pd.DataFrame) -> pd.DataFrame:
    """Machine-readable caveats for release ledgers: every violated or unclaimed guarantee.

    Columns paper, mechanism, neighbours, kind (``violated`` / ``not claimed`` /
    ``not auditable``), claimed_epsilon, epsilon (the exact value, else the lower bound)."""
    rows = []
    for r in table.itertuples():
        if r.verdict not in ("violated", "not claimed", "not auditable"):
            continue
        eps = r.exact_epsilon if np.isfinite(r.exact_epsilon) else r.epsilon_lower_bound
        rows.append(dict(paper=r.paper, mechanism=r.mechanism, neighbours=r.neighbours,
                         kind=r.verdict, claimed_epsilon=r.claimed_epsilon, epsilon=eps))
    return pd.DataFrame(rows, columns=["paper", "mechanism", "neighbours", "kind",
                                       "claimed_epsilon", "epsilon"])


#: Row labels of the audit figure wrap at this many characters (the longest take three lines).
LABEL_CHARS = 70
#: Audit figure: width, height per line of the tallest row label and per row, and the height
#: of the title, x axis and legend (inches); font size of the row labels (points).
FIGURE_WIDTH, LINE_HEIGHT, ROW_PAD, FRAME_HEIGHT, LABEL_SIZE = 10.0, 0.15, 0.14, 1.9, 8
#: Width of the ∞ column relative to the finite axis, and the x margin (share of the span of
#: log10 ε each side; at least ``MIN_PAD`` decades).
INFINITY_RATIO, PAD, MIN_PAD = 1 / 14, 0.06, 0.03
#: Mantissas of the major ticks of an axis spanning under one decade (with plain_log_ticks'
#: minor 2 and 5 among them, every label looks alike).
NARROW_SUBS = (1.0, 2.0, 4.0, 5.0, 6.0, 8.0)
#: Gap between the row labels and the axis (points): room for the hollow markers on its edge.
LABEL_PAD = 8


def _grouped(table: pd.DataFrame, paper: str) -> pd.DataFrame:
    """The rows of ``paper``, grouped by mechanism (first-appearance order, rows kept in order)."""
    sub = table.loc[table["paper"] == paper]
    return pd.concat([sub.loc[sub["mechanism"] == m] for m in pd.unique(sub["mechanism"])],
                     ignore_index=True)


def _row_label(row) -> str:
    """``mechanism: neighbours (δ = …) [verdict]`` wrapped at :data:`LABEL_CHARS`, never
    inside ``x = v``, the δ or the verdict (non-breaking spaces)."""
    import textwrap

    def keep(text):
        return text.replace(" ", "\u00a0")

    delta = " " + keep(f"(δ = {row.claimed_delta:.3g})") if row.claimed_delta > 0 else ""
    text = f"{row.mechanism}: {row.neighbours.replace(' = ', keep(' = '))}{delta} "
    return textwrap.fill(text + keep(f"[{row.verdict}]"), LABEL_CHARS)


def _resolution_limits(sub: pd.DataFrame, confidence: float) -> dict[int, float]:
    """Sample size -> largest resolvable ε, for the rows not auditable because the claim is
    beyond it (the test of :func:`verdict`)."""
    limits = {}
    for r in sub.loc[sub["verdict"] == "not auditable"].itertuples():
        limit = resolvable_epsilon(int(r.samples), confidence)
        if r.claimed_epsilon > limit:
            limits[int(r.samples)] = limit
    return limits


def _log_limits(values: np.ndarray) -> tuple[float, float]:
    """x limits around the finite positive ``values`` with a margin of :data:`PAD`."""
    shown = np.log10(values[np.isfinite(values) & (values > 0)])
    lo, hi = shown.min(), shown.max()
    pad = max(PAD * (hi - lo), MIN_PAD)
    return 10 ** (lo - pad), 10 ** (hi + pad)


def _scatter(ax, ax_inf, x: np.ndarray, y: np.ndarray, **style) -> None:
    """Finite positive ``x`` on ``ax``; infinite ones in the ∞ column ``ax_inf``."""
    finite = np.isfinite(x) & (x > 0)
    if finite.any():
        ax.scatter(x[finite], y[finite], **style)
    if np.isposinf(x).any():
        ax_inf.scatter(np.zeros(np.isposinf(x).sum()), y[np.isposinf(x)], **style)


def _infinity_column(ax, ax_inf) -> None:
    """The ∞ column right of the finite axis: one tick, no y labels, a break mark between."""
    from .plotting import REFERENCE

    ax_inf.set_xlim(-1.0, 1.0)
    ax_inf.set_xticks([0.0], ["∞"])
    ax_inf.spines["left"].set_visible(False)
    ax_inf.tick_params(axis="y", left=False, labelleft=False)
    for axes, x in ((ax, 1.0), (ax_inf, 0.0)):
        axes.plot([x], [0.0], transform=axes.transAxes, marker=[(-1, -2), (1, 2)],
                  markersize=9, color="k", linestyle="none", clip_on=False, gid=REFERENCE)


def _audit_axes(fig, infinite: bool):
    """The finite log axis and, with ``infinite``, the ∞ column beside it (else None)."""
    if not infinite:
        return fig.subplots(), None
    ax, ax_inf = fig.subplots(1, 2, sharey=True, width_ratios=[1.0, INFINITY_RATIO])
    fig.get_layout_engine().set(wspace=0.0, w_pad=0.02)
    _infinity_column(ax, ax_inf)
    return ax, ax_inf


def _draw_points(ax, ax_inf, values: np.ndarray, y: np.ndarray, limits: dict[int, float],
                 confidence: float) -> None:
    """Claimed ε, lower bound and exact ε (columns of ``values``) of rows ``y`` on the log
    axis ``ax`` (limits set here, from the finite values) and the ∞ column ``ax_inf``; zero
    bounds at the axis' left edge, the resolution ``limits`` as dotted lines."""
    claimed, lb, exact = values.T
    _scatter(ax, ax_inf, claimed, y, marker="|", s=300, color="k", label="claimed ε")
    _scatter(ax, ax_inf, lb, y, marker="o", color="tab:blue",
             label=f"audit lower bound ({confidence * 100:g} %)")
    ax.set_xscale("log")
    ax.set_xlim(*_log_limits(np.concatenate([values.ravel(), list(limits.values())])))
    if (lb == 0).any():
        ax.scatter(np.full((lb == 0).sum(), ax.get_xlim()[0]), y[lb == 0], marker="o",
                   facecolors="none", edgecolors="tab:blue", clip_on=False, zorder=3,
                   label="lower bound 0 (no evidence)")
    _scatter(ax, ax_inf, exact, y, marker="x", color="tab:red", label="exact ε")
    for samples, limit in limits.items():
        ax.axvline(limit, linestyle=":", color="0.3",
                   label=f"resolution limit ({samples:,} samples)")


def _label_axes(ax, labels: list[str], y: np.ndarray) -> None:
    """Row labels, axis labels, and ticks a narrow (under one decade) log axis can show."""
    from matplotlib.ticker import LogLocator

    if np.log10(ax.get_xlim()[1] / ax.get_xlim()[0]) < 1:
        ax.xaxis.set_major_locator(LogLocator(subs=NARROW_SUBS))
    ax.set_yticks(y, labels, fontsize=LABEL_SIZE)
    ax.set_ylim(y.min() - 0.5, y.max() + 0.5)
    ax.tick_params(axis="y", length=0, pad=LABEL_PAD)
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("audited case [verdict]")


def plot_audit(table: pd.DataFrame, paper: str, paths, *, confidence: float,
               title: str | None = None) -> None:
    """Claimed ε, audit lower bound and exact ε per audited case of one paper (log scale),
    checked and saved by :func:`crowdpriv.plotting.save_figure`.

    Rows are grouped by mechanism; a ``not claimed`` row has no claimed bar (the paper claims
    nothing for those neighbours); a lower bound of 0 is a hollow marker at the axis' left
    edge; ε = ∞ sits in a separate ∞ column; a dotted line marks the largest ε the sample size
    resolves where a claim is not auditable beyond it (``confidence`` of the audit). ``title``:
    the paper's name (default ``paper``).
    """
    from .plotting import figure_legend, save_figure, use_style

    use_style()
    import matplotlib.pyplot as plt

    sub = _grouped(table, paper)
    labels = [_row_label(r) for r in sub.itertuples()]
    tallest = max(label.count("\n") + 1 for label in labels)
    values = sub[["claimed_epsilon", "epsilon_lower_bound", "exact_epsilon"]].to_numpy(float,
                                                                              copy=True)
    values[(sub["verdict"] == "not claimed").to_numpy(), 0] = np.nan  # no bar: nothing claimed
    fig = plt.figure(figsize=(FIGURE_WIDTH, len(sub) * (LINE_HEIGHT * tallest + ROW_PAD)
                              + FRAME_HEIGHT), layout="constrained")
    ax, ax_inf = _audit_axes(fig, np.isposinf(values).any())
    y = np.arange(len(sub))[::-1]
    _draw_points(ax, ax_inf, values, y, _resolution_limits(sub, confidence), confidence)
    _label_axes(ax, labels, y)
    figure_legend(fig, [a for a in (ax, ax_inf) if a is not None], fontsize=LABEL_SIZE,
                  loc="outside lower center", ncol=3, frameon=False)
    fig.suptitle(f"{title or paper}: privacy audit", fontsize=10)
    save_figure(fig, *paths)
