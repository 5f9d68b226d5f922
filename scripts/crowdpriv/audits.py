"""What the privacy audit checks: each mechanism of the three papers, with the neighbours its
paper's guarantee implies (and, labelled ``not claimed``, the ones a skeptic would try), the
exact ε where a closed form exists, and the verdict (:func:`verdict`).

Every case runs the samplers the pipeline runs (``lp_perturb``, ``rr_perturb``, ...), on
inputs of one cell or one record, vectorised over the samples; :mod:`crowdpriv.audit` does the
statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .audit import audit, resolvable_epsilon
from .seeds import derive_rng

__all__ = [
    "VERDICTS",
    "AUDIT_COLUMNS",
    "Case",
    "verdict",
    "lp_null_exact_epsilon",
    "two_layer_exact_epsilon",
    "ldp_sparse_cases",
    "pptd_cases",
    "priscrowd_cases",
    "floating_point_rows",
    "release_cases",
    "privacy_claims",
    "caveats",
    "plot_audit",
    "run_audit",
]

#: Verdicts of an audit row (issue 13): violated (refuted at the confidence), exact (the exact
#: value is within the claim), not refuted (no violation found), not auditable (the claimed ε
#: exceeds what the sample size can resolve), not claimed (the paper claims nothing here).
VERDICTS = ("violated", "exact", "not refuted", "not auditable", "not claimed")
AUDIT_COLUMNS = ("paper", "mechanism", "neighbours", "claimed_epsilon", "claimed_delta",
                 "epsilon_lower_bound", "exact_epsilon", "samples", "verdict", "evidence")
#: A "violated" verdict from a lower bound needs at least this many samples per side.
MIN_VIOLATION_SAMPLES = 100_000
#: Relative slack when an exact ε is compared with a claim (floating point only).
EXACT_TOL = 1e-9


@dataclass(frozen=True)
class Case:
    """One audit: a mechanism, a neighbour relation and the sampler of a scalar statistic."""

    paper: str
    mechanism: str
    neighbours: str
    claimed_epsilon: float
    claimed_delta: float
    sample: Callable[[np.random.Generator, int, str], np.ndarray]
    exact_epsilon: float = float("nan")
    discrete: bool = False
    statistic: str = "output"
    claimed: bool = True
    note: str = ""


def verdict(case: Case, epsilon_lb: float, samples: int, confidence: float) -> tuple[str, str]:
    """The verdict of a case and why (see :data:`VERDICTS`)."""
    exact, claimed = case.exact_epsilon, case.claimed_epsilon
    if not case.claimed:
        return "not claimed", "the paper claims no guarantee for these neighbours"
    if np.isfinite(exact):
        if exact <= claimed * (1 + EXACT_TOL) + EXACT_TOL:
            return "exact", f"the exact epsilon {exact:.4g} is within the claimed {claimed:g}"
        return "violated", f"the exact epsilon {exact:.4g} exceeds the claimed {claimed:g}"
    if epsilon_lb > claimed:
        if samples < MIN_VIOLATION_SAMPLES:
            return "not auditable", (
                f"the lower bound {epsilon_lb:.4g} exceeds the claimed {claimed:g}, but fewer "
                f"than {MIN_VIOLATION_SAMPLES} samples per side back it (privacy_audit.samples)")
        return "violated", (f"the lower bound {epsilon_lb:.4g} exceeds the claimed {claimed:g} "
                            f"at confidence {confidence:g}")
    if claimed > resolvable_epsilon(samples, confidence):
        return "not auditable", (f"the claimed {claimed:g} exceeds the largest epsilon "
                                 f"{samples} samples can resolve")
    return "not refuted", f"no event found with a lower bound above the claimed {claimed:g}"


# --- LDP-sparse -------------------------------------------------------------------------------


def lp_null_exact_epsilon(epsilon: float, domain_size: int, answer: int) -> float:
    """Exact ε of LP (Eq. 6-7) between a NULL cell (filled with a uniform v in Γ, then
    Lap(|Γ|/ε)) and a cell answered ``answer``.

    The density ratio of the uniform mixture of Laplaces to one Laplace is monotone on each
    side of Γ's range and bounded between, so its extremes are the limits x → ±∞:
    mean_v e^(±(v − answer) ε/|Γ|); ε is the largest log of either ratio or its inverse.
    """
    k = int(domain_size)
    v = np.arange(k)
    b = k / float(epsilon)
    ratios = [np.mean(np.exp(s * (v - answer) / b)) for s in (1.0, -1.0)]
    return float(max(abs(np.log(r)) for r in ratios))


def two_layer_exact_epsilon(epsilon: float, domain_size: int, spread: float = 1.0) -> float:
    """Exact ε per cell of the 2-Layer baseline: RR (Eq. 8) at ε_i ~ U(ε(1−s), ε(1+s)) drawn
    once per worker. A cell's output is the mixture over ε_i, so the largest ratio of output
    probabilities is E[e^ε_i/(|Γ|+e^ε_i)] / E[1/(|Γ|+e^ε_i)] (keep vs one other symbol)."""
    from scipy import integrate

    k = float(domain_size)
    lo, hi = epsilon * (1 - spread), epsilon * (1 + spread)
    if hi - lo <= 0:
        return float(epsilon)
    keep = integrate.quad(lambda e: np.exp(e) / (k + np.exp(e)), lo, hi)[0]
    other = integrate.quad(lambda e: 1.0 / (k + np.exp(e)), lo, hi)[0]
    return float(np.log(keep / other))


def _column(sample_row: Callable[[np.ndarray, np.random.Generator], np.ndarray], d_value,
            d2_value):
    """A sampler applying a per-cell mechanism to an n x 1 column of one value."""
    def sample(rng, n, which):
        value = d_value if which == "D" else d2_value
        return np.asarray(sample_row(np.full((n, 1), value, dtype=np.float32), rng)).ravel()
    return sample


def ldp_sparse_cases(block: Mapping, epsilon: float) -> list[Case]:
    """LDP-sparse's mechanisms at ``epsilon`` against ε-cell LDP (Definitions of Sec. III-B:
    one cell of a worker's answer vector changes, NULL included)."""
    from .ldp_sparse import (
        draw_task_profiles,
        lp_perturb,
        mf_perturb_prepared,
        mf_prepare,
        rr_perturb,
        two_layer_perturb,
    )

    k = int(block["real_domain_size"])
    mech = block["mechanisms"]
    spread = float(mech.get("two_layer_spread", 1.0))
    null = np.nan
    top = float(k - 1)

    def lp(a, rng):
        return lp_perturb(a, epsilon, rng=rng, domain_size=k, null_fill=mech["lp_null_fill"])

    def rr(a, rng):
        out = rr_perturb(a, epsilon, rng=rng, domain_size=k)
        return np.where(np.isnan(out), -1.0, out)

    def two(a, rng):
        out = two_layer_perturb(a, epsilon, rng=rng, domain_size=k, spread=spread)
        return np.where(np.isnan(out), -1.0, out)

    def whole_vector(n_cells):
        def sample(rng, n, which):
            value = 0.0 if which == "D" else top
            out = lp(np.full((n, n_cells), value, dtype=np.float32), rng)
            return out.mean(axis=1)
        return sample

    def mf_cell(n_tasks, answered, change_to_null=False):
        """MF (Eq. 9-10) for one worker: D and D' differ in the answer of task 0; the
        statistic is the released value of that task."""
        rng0 = np.random.default_rng(0)
        v = draw_task_profiles(n_tasks, int(block["d"]), rng=rng0,
                               l1_norm=mech.get("mf_l1_norm", 1.0),
                               signs=mech.get("mf_profiles", "nonnegative"))
        base = np.full(n_tasks, np.nan)
        base[:answered] = rng0.integers(0, k, answered)
        d_vec, d2_vec = base.copy(), base.copy()
        d_vec[0] = 0.0
        d2_vec[0] = np.nan if change_to_null else top
        preps = {w: mf_prepare(vec[None], v, domain_size=k, ridge=mech.get("mf_ridge", 0.0))
                 for w, vec in (("D", d_vec), ("D'", d2_vec))}

        def sample(rng, n, which):
            prep = preps[which]
            tiled = type(prep)(np.repeat(prep.solver, n, axis=0), np.repeat(prep.rhs, n, axis=0),
                               prep.profiles, prep.domain_size)
            return mf_perturb_prepared(tiled, epsilon, rng=rng, dtype=np.float64)[:, 0]
        return sample

    d = int(block["d"])
    cases = [
        Case("ldp_sparse", "LP", "one answered cell, 0 vs |Γ|-1", epsilon, 0.0,
             _column(lp, 0.0, top), exact_epsilon=(k - 1) * epsilon / k,
             note="Lap(|Γ|/ε) on a value range of |Γ|-1"),
        Case("ldp_sparse", "LP", "one cell, NULL vs answered 0", epsilon, 0.0,
             _column(lp, null, 0.0), exact_epsilon=lp_null_exact_epsilon(epsilon, k, 0)),
        Case("ldp_sparse", "RR", "one answered cell, 0 vs 1", epsilon, 0.0,
             _column(rr, 0.0, 1.0), exact_epsilon=epsilon, discrete=True),
        Case("ldp_sparse", "RR", "one cell, NULL vs answered 0", epsilon, 0.0,
             _column(rr, null, 0.0), exact_epsilon=epsilon, discrete=True),
        Case("ldp_sparse", "2-Layer", f"one answered cell, 0 vs 1, at the plotted ε = {epsilon:g}",
             epsilon, 0.0, _column(two, 0.0, 1.0),
             exact_epsilon=two_layer_exact_epsilon(epsilon, k, spread), discrete=True,
             note="per-worker ε_i ~ U(ε(1-s), ε(1+s)); the figure plots the mean ε"),
        Case("ldp_sparse", "2-Layer", f"one cell, NULL vs answered 0, at the plotted ε = "
             f"{epsilon:g}", epsilon, 0.0, _column(two, null, 0.0),
             exact_epsilon=two_layer_exact_epsilon(epsilon, k, spread), discrete=True,
             note="NULL is one more RR symbol: the same mixture as an answered cell"),
        Case("ldp_sparse", "2-Layer",
             f"one answered cell, 0 vs 1, of the worker with the largest ε_i = "
             f"{epsilon * (1 + spread):g}", epsilon, 0.0,
             _column(lambda a, rng: np.where(np.isnan(o := rr_perturb(
                 a, epsilon * (1 + spread), rng=rng, domain_size=k)), -1.0, o), 0.0, 1.0),
             exact_epsilon=epsilon * (1 + spread), discrete=True,
             note="a worker knows his own ε_i; the figure plots the mean ε"),
        Case("ldp_sparse", "MF", f"one answered cell, 0 vs |Γ|-1, |T_i| = {2 * d} >= d",
             epsilon, 0.0, mf_cell(4 * d, 2 * d)),
        Case("ldp_sparse", "MF", f"one answered cell, 0 vs |Γ|-1, |T_i| = {d // 2} < d",
             epsilon, 0.0, mf_cell(4 * d, max(d // 2, 1))),
        Case("ldp_sparse", "MF", f"one cell, answered 0 vs NULL, |T_i| = {2 * d}", epsilon, 0.0,
             mf_cell(4 * d, 2 * d, change_to_null=True),
             note="a NULL changes T_i, hence G_i and the solve itself; Theorem 4's proof "
                  "(η_i − η_j cancels for a fixed T_i) covers a changed answer, not this"),
        Case("ldp_sparse", "LP", "a worker's whole vector of 20 cells, all 0 vs all |Γ|-1",
             epsilon, 0.0, whole_vector(20), exact_epsilon=20 * (k - 1) * epsilon / k,
             statistic="mean output", claimed=False),
    ]
    return cases


# --- PPTD -------------------------------------------------------------------------------------


def pptd_cases(block: Mapping, epsilon: float, lam1: float) -> list[Case]:
    """PPTD's Alg. 2 against Theorem 4.10's (ε, δ) per record, under both readings of Lemma
    4.8's sensitivity, plus a record whose owner's other records are known."""
    from .pptd import exact_record_epsilon, lambda2_from_epsilon, lemma48_sensitivity, perturb

    priv = dict(block["privacy"])
    b, eta, delta = float(priv["b"]), float(priv["eta"]), float(priv["delta"])
    cases = []
    for reading in ("printed", "corrected"):
        lam2 = float(lambda2_from_epsilon(epsilon, lam1, b=b, eta=eta, delta=delta,
                                          sensitivity=reading))
        sens = float(lemma48_sensitivity(lam1, b=b, eta=eta, sensitivity=reading))

        def record(rng, n, which, lam2=lam2, sens=sens):
            x = 0.0 if which == "D" else sens
            # the pipeline's Alg. 2 on n users holding one record each
            return perturb(np.full((n, 1), x), lam2, rng=rng).claims[:, 0]

        cases.append(Case(
            "pptd", "Alg. 2", f"one record at Lemma 4.8's Δ_s ({reading}), λ1 = {lam1:g}",
            epsilon, delta, record, exact_epsilon=float(exact_record_epsilon(lam2, sens)),
            note=f"noise N(0, y), y ~ Exp(λ2 = {lam2:.4g}) is Laplace(1/sqrt(2 λ2))"))
    lam2 = float(lambda2_from_epsilon(epsilon, lam1, b=b, eta=eta, delta=delta))
    sens = float(lemma48_sensitivity(lam1, b=b, eta=eta))
    others = 29

    def known_others(rng, n, which):
        # the user's variance is shared by his records (Alg. 2); an adversary who knows the
        # true values of his other records (0 here) reads it off their noise and standardises
        # the target record
        x = np.zeros((n, others + 1))
        x[:, 0] = 0.0 if which == "D" else sens
        out = perturb(x, lam2, rng=rng).claims
        y_hat = (out[:, 1:] ** 2).mean(axis=1)
        return out[:, 0] / np.sqrt(y_hat)

    cases.append(Case(
        "pptd", "Alg. 2", f"one record, the user's {others} other records known (printed Δ_s)",
        epsilon, delta, known_others, statistic="target / estimated noise sd",
        note="Theorem 4.10 treats each record alone; the shared variance couples a user's "
             "records"))
    return cases


# --- PrisCrowd ----------------------------------------------------------------------------------

#: The audited object's claims (one object; D' moves its last claim far out).
_OBJECT = np.array([4.1, 4.6, 4.9, 5.0, 5.0, 5.2, 5.4, 5.5, 5.9, 6.3, 4.4, 5.1])
_MOVED = 9.0


def priscrowd_cases(block: Mapping) -> list[Case]:
    """PrisCrowd's Alg. 1 against Theorem 2's (ε, δ) and the Basic baselines against their
    nominal ε, for one object whose last claim moves (D' = the claim at ``_MOVED``), both in
    the theorem's own setting (units and bandwidth fixed by D) and as the pipeline runs them
    (each dataset z-scored, its bandwidth chosen, from its own claims)."""
    from .priscrowd import (
        Params,
        basic_release,
        bandwidth,
        normalise_objects,
        synthesize,
        theorem2_budget,
    )

    params = Params.from_mapping(block)
    d_claims = _OBJECT[None, :]
    d2_claims = d_claims.copy()
    d2_claims[0, -1] = _MOVED
    mask = np.ones_like(d_claims, dtype=bool)
    z_d, mean_d, scale_d = normalise_objects(d_claims, mask, units=params.units)
    h_d = bandwidth(z_d, mask, rule=params.bandwidth, mad_min=params.mad_min,
                    h_min=params.h_min)
    weights = np.full(d_claims.shape, 1.0 / d_claims.shape[1])
    eps, delta = theorem2_budget(weights, mask, k=params.k, gamma=params.gamma,
                                 eps0=params.eps0, t=params.t,
                                 delta_exponent=params.delta_exponent)
    eps, delta = float(eps[0]), float(delta[0])

    def units(claims, fixed):
        if fixed:  # the theorem's setting: D's normalisation and bandwidth for both
            return (claims - mean_d[:, None]) / scale_d[:, None], h_d
        z, _, _ = normalise_objects(claims, mask, units=params.units)
        return z, bandwidth(z, mask, rule=params.bandwidth, mad_min=params.mad_min,
                            h_min=params.h_min)

    def release(fixed, which_stat):
        # The first released claim has the same law for every m (Alg. 1 tests candidates in
        # order and only stops at the m-th pass), so its cases release one claim: m x cheaper.
        m_run = 1 if which_stat == "first" else params.m

        def sample(rng, n, which):
            z, h = units(d_claims if which == "D" else d2_claims, fixed)
            out = synthesize(z, mask, h, weights, m=m_run, k=params.k, gamma=params.gamma,
                             eps0=params.eps0, reps=n, batch_size=params.batch_size,
                             max_candidates=params.max_candidates, rng=rng).released[:, 0, :]
            if which_stat == "first":
                return np.nan_to_num(out[:, 0], nan=-1e9)
            return np.nanmax(np.where(np.isnan(out), -1e9, out), axis=1)
        return sample

    # Basic with a fixed sensitivity: D's range, the claim moving within it (to D's maximum)
    within = d_claims.copy()
    within[0, -1] = d_claims.max()
    z_within = (within - mean_d[:, None]) / scale_d[:, None]
    z_range = float(z_d.max() - z_d.min())
    shift = abs(float(z_within[0, -1] - z_d[0, -1]))

    def basic(level_eps, fixed):
        def sample(rng, n, which):
            if fixed:  # the theorem's setting: the sensitivity is D's range, fixed
                z = z_d if which == "D" else z_within
                return z[0, -1] + rng.laplace(0.0, z_range / level_eps, n)
            z, _ = units(d_claims if which == "D" else d2_claims, False)
            return basic_release(z, mask, level_eps, reps=n, rng=rng,
                                 sensitivity=params.basic_sensitivity)[:, 0, -1]
        return sample

    # PrisCrowd's own seed weights are non-uniform: Theorem 2's ε grows with max/min weight
    ranked = np.linspace(1.0, 3.0, d_claims.shape[1])[None, :]
    ranked = ranked / ranked.sum()
    eps_w, delta_w = (float(v[0]) for v in theorem2_budget(
        ranked, mask, k=params.k, gamma=params.gamma, eps0=params.eps0, t=params.t,
        delta_exponent=params.delta_exponent))

    def weighted(rng, n, which):
        z, h = units(d_claims if which == "D" else d2_claims, True)
        out = synthesize(z, mask, h, ranked, m=1, k=params.k, gamma=params.gamma,
                         eps0=params.eps0, reps=n, batch_size=params.batch_size,
                         max_candidates=params.max_candidates, rng=rng).released[:, 0, 0]
        return np.nan_to_num(out, nan=-1e9)

    cases = [Case(
        "priscrowd", "Alg. 1 (PrisCrowd weights)",
        "one claim of an object moves far out; one released claim; weights 1:3 across the "
        "claims; theorem's setting", eps_w, delta_w, weighted, statistic="one released claim",
        note=f"Theorem 2 with max/min weight 3: ε = {eps_w:.4g}, δ = {delta_w:.3g}; the "
             "pipeline learns the weights from the claims themselves (not covered by the "
             "theorem, which takes them as given)")]
    for fixed, setting in ((True, "theorem's setting: units and bandwidth fixed by D"),
                           (False, "as run: each dataset normalised, bandwidth chosen, by itself")):
        for stat, words, times in (("first", "one released claim", 1),
                                   ("max", f"the m = {params.m} released claims (max)",
                                    params.m)):
            composed = "" if times == 1 else (f"; claimed = m x Theorem 2's (ε, δ) by basic "
                                              "composition")
            cases.append(Case(
                "priscrowd", "Alg. 1 (uniform weights)",
                f"one claim of an object moves far out; {words}; {setting}", times * eps,
                min(times * delta, 1.0), release(fixed, stat), statistic=words,
                note=("the normalisation and bandwidth follow the data, which Theorem 2 "
                      "takes as fixed; " if not fixed else "")
                + f"Theorem 2's (ε, δ) per released claim for this object: ε = {eps:.4g}, "
                     f"δ = {delta:.3g} (k = {params.k}, γ = {params.gamma:g}, "
                     f"ε0 = {params.eps0:g}){composed}"))
    for name, level in params.basic_epsilons.items():
        cases.append(Case(
            "priscrowd", f"Basic({name})", "one claim moves within the object's range "
                                           "(fixed sensitivity)", float(level), 0.0,
            basic(float(level), True), exact_epsilon=shift * float(level) / z_range,
            note="Lap(range/ε) on a claim moving within the range (here to D's maximum)"))
        cases.append(Case(
            "priscrowd", f"Basic({name})", "one claim moves far out (as run: z-scores and "
                                           "range recomputed from the data)",
            float(level), 0.0, basic(float(level), False),
            statistic="released value of the moved claim",
            note="the z-scores and the range (Basic's sensitivity) are recomputed from the "
                 "data, so one claim moves every normalised claim and the noise scale: outside "
                 "the Laplace mechanism's proof, which needs a sensitivity fixed in advance"))
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
        evidence = f"{why}; {res.evidence}" + (f"; {case.note}" if case.note else "")
        rows.append(dict(
            paper=case.paper, mechanism=case.mechanism, neighbours=case.neighbours,
            claimed_epsilon=case.claimed_epsilon, claimed_delta=case.claimed_delta,
            epsilon_lower_bound=res.epsilon_lower_bound, exact_epsilon=case.exact_epsilon,
            samples=samples, verdict=status, evidence=evidence))
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


def floating_point_rows(block: Mapping, epsilon: float, *, seed: int, samples: int = 2000
                        ) -> pd.DataFrame:
    """Mironov (CCS 2012) applied to LP as implemented: the share of float64 (textbook) and of
    the pipeline's float32 outputs for answer 0 that answer |Γ|-1 can never produce
    (:func:`crowdpriv.audit.laplace_support_gap`). Each such output is checked exhaustively
    against every noise draw that could round to it, so a positive share is an exact
    distinguishing event: no finite ε holds for the implementation."""
    from .audit import laplace_support_gap

    k = int(block["real_domain_size"])
    rows = []
    for label, f32 in (("textbook float64 numpy.laplace", False),
                       ("the pipeline's float32 LP output", True)):
        share = laplace_support_gap(0.0, float(k - 1), k / epsilon, samples=samples,
                                    float32=f32,
                                    rng=derive_rng(seed, "audit", "floating point", label))
        # the textbook sampler is a reference (the pipeline does not run it): not a claim
        verdict_ = "not claimed" if not f32 else ("violated" if share > 0 else "not refuted")
        rows.append(dict(
            paper="ldp_sparse", mechanism="LP (floating point)",
            neighbours=f"one answered cell, 0 vs |Γ|-1: support of {label}",
            claimed_epsilon=epsilon, claimed_delta=0.0,
            epsilon_lower_bound=float("inf") if share > 0 else 0.0,
            exact_epsilon=float("inf") if share > 0 else float("nan"), samples=samples,
            verdict=verdict_,
            evidence=(f"{share:.1%} of {samples} below-median outputs for answer 0 cannot be "
                      f"produced from answer {k - 1} by any noise draw (checked exhaustively); "
                      "an implementation-level finding (Mironov 2012) of the reproduction's "
                      "sampler; the release path (crowdpriv perturb lp) snaps its output to a "
                      "power-of-two grid, audited as 'LP release (snapped)'")))
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


def release_cases(domain: int, epsilon: float) -> list[Case]:
    """The release samplers of :mod:`crowdpriv.api` (the ones a user's data goes through):
    LP with Mironov's snapping (exact ε from his Theorem 1)."""
    from .api import lp_bound, lp_release
    from .release import snapping_epsilon

    k = int(domain)

    def sample(rng, n, which):
        value = 0.0 if which == "D" else float(k - 1)
        return lp_release(np.full((n, 1), value), epsilon, k, rng).ravel()

    return [Case("ldp_sparse", "LP release (snapped)", "one answered cell, 0 vs |Γ|-1",
                 epsilon, 0.0, sample,
                 exact_epsilon=snapping_epsilon(k - 1, k / epsilon, lp_bound(epsilon, k)),
                 note="outputs on a power-of-two grid: both inputs reach the same support")]


# --- outputs ----------------------------------------------------------------------------------

#: What each verdict makes of the paper's privacy claim in its claims table.
CLAIM_STATUS = {"violated": "fails", "exact": "holds", "not refuted": "holds",
                "not auditable": "not testable"}
#: The theorem or definition each audited mechanism's guarantee comes from.
GUARANTEE = {
    ("ldp_sparse", "LP"): "Theorem 1: LP satisfies ε-cell LDP (Sec. IV-A)",
    ("ldp_sparse", "LP release (snapped)"): "Theorem 1 with Mironov's snapping (crowdpriv "
                                            "release path): ε-cell LDP",
    ("ldp_sparse", "RR"): "RR with NULL as a symbol satisfies ε-cell LDP (Sec. IV-B, Eq. 8)",
    ("ldp_sparse", "MF"): "Theorem 4: MF satisfies ε-cell LDP (Sec. V)",
    ("ldp_sparse", "2-Layer"): "2-Layer is compared at the same ε (Sec. VI-D, Fig. 5)",
    ("pptd", "Alg. 2"): "Theorem 4.10: Alg. 2 satisfies (ε, δ)-LDP per record",
    ("priscrowd", "Alg. 1 (uniform weights)"): "Theorem 2: Alg. 1 satisfies (ε, δ)-DP",
    ("priscrowd", "Alg. 1 (PrisCrowd weights)"): "Theorem 2: Alg. 1 satisfies (ε, δ)-DP",
}


def _slug(text: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "_" for ch in text)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_")


def privacy_claims(table: pd.DataFrame, paper: str, *, confidence: float) -> pd.DataFrame:
    """The audit rows of ``paper`` as claims of category ``privacy`` (claims.csv columns):
    violated -> fails, exact / not refuted -> holds (with that basis), not auditable -> not
    testable; ``not claimed`` rows are no claim of the paper and are left out."""
    from .claims import COLUMNS

    rows = []
    for r in table.loc[(table["paper"] == paper) & (table["verdict"] != "not claimed")].itertuples():
        delta = f", δ = {r.claimed_delta:g}" if r.claimed_delta else ""
        basis = ("exact: closed-form ε of the mechanism as run" if np.isfinite(r.exact_epsilon)
                 else f"black-box audit: Clopper-Pearson lower bound on ε at {confidence:g}, "
                      f"{r.samples} samples per side")
        rows.append({
            "claim_id": f"{paper}.privacy.{_slug(r.mechanism)}.{_slug(r.neighbours)}"[:120],
            "claim": f"{GUARANTEE.get((paper, r.mechanism), r.mechanism)}: ε = "
                     f"{r.claimed_epsilon:g}{delta} for {r.neighbours}",
            "figure": "Privacy audit", "category": "privacy",
            "reading": "the neighbours named in the claim; results/privacy_audit/audit.csv",
            "status": CLAIM_STATUS[r.verdict], "basis": basis,
            "evidence": f"{r.verdict}: {r.evidence}", "data": "",
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
