"""PPTD's noise level with independent Laplace noise per record, released by snapping.

PPTD's Alg. 2 gives each user one variance δ_s² ~ Exp(λ2) for all his records; one record's
noise is then Laplace(1/√(2λ2)) (an exponential mixture of normals, :func:`.pptd.
exact_record_epsilon`), but a user's records share δ_s, so the per-record Laplace identity says
nothing about a user with several records (no pure ε holds for them, :class:`.pptd.PPTD`), and
no floating-point-safe sampler of that shared-variance law exists here (a grid sampler for the
random-variance Gaussian with its exact ε computed is not attempted).

This member is a different mechanism, named as such: every record of every user gets its own
Laplace noise with the same per-record marginal, scale σ = 1/√(2λ2), λ2 from Theorem 4.10 at
ε (:func:`.pptd.lambda2_from_epsilon`, Lemma 4.8's reading in the settings), sampled by
Mironov's snapping mechanism (:mod:`crowdpriv.release`): the claim is centred on a public
``centre``, clamped to [−B, B] (``bound``: public, default 300 σ; at most about 353 σ, the
reach of the sampler's noise, :func:`crowdpriv.release.snapping_reaches`), Lap(σ) added
(Mironov's own sampler, :func:`crowdpriv.release.standard_laplace`), rounded to the nearest
multiple of Λ (the smallest power of two ≥ σ), clamped again, and the centre added back.

Exact ε per record, for two records at distance at most Δ_s (PPTD Definitions 4.6-4.7 with
Lemma 4.8): Mironov (CCS 2012) Theorem 1 with sensitivity Δ_s + ς,

    ε* = (Δ_s + ς) √(2λ2) + 2^−49 B √(2λ2),

where ς = 2^−52 B bounds the rounding of the centring x − c for both records (each within
2^−53 |x − c| ≤ 2^−53 B of exact; ς is exact in floating point, a power-of-two multiple of B;
0 when the centre is 0: x − 0 is exact). δ = 0. A user's records draw independent noise:
basic composition over his records gives his ε (no sharing, so unlike Alg. 2 it is finite).
Its utility differs from Alg. 2's: CRH cannot tell users' noise levels apart any more
(:func:`crowdpriv.pptd.laplace_tradeoff` runs PPTD's Fig. 2 experiment for both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_positive
from ..release import (
    LAPLACE_REACH,
    LOG_CAVEAT,
    snap,
    snapping_epsilon,
    snapping_grid,
    snapping_reaches,
    standard_laplace,
)
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, basic_composition, setting
from .pptd import (
    RECORD_NEIGHBOURS,
    SENSITIVITY_READINGS,
    PPTDSettings,
    lambda2_from_epsilon,
    lemma48_sensitivity,
)

__all__ = ["PPTDLaplace", "PPTDLaplaceSettings", "pptd_laplace_release", "DEFAULT_BOUND_SCALES"]

#: The default clamp bound B in noise scales σ around the centre (the sampler's noise reaches
#: 708 σ, so B may be at most about 353 σ: :func:`crowdpriv.release.snapping_reaches`).
DEFAULT_BOUND_SCALES = 300.0


@dataclass(frozen=True)
class PPTDLaplaceSettings(PPTDSettings):
    """PPTD's settings (λ1 required, Lemma 4.8's ``b``, ``eta``, the ``delta`` of Theorem
    4.10's mapping, the ``sensitivity`` reading) and the snapping mechanism's public
    ``centre`` and clamp ``bound`` (None: 300 noise scales), in the claims' units."""

    centre: float = setting(0.0, "public centre of the claims for the snapping clamp")
    bound: float | None = setting(None, "public clamp half-width B around the centre "
                                        "(default 300 noise scales)", type=float)

    def __post_init__(self):
        super().__post_init__()
        if not math.isfinite(self.centre):
            raise ParameterError("centre", self.centre, f"centre must be finite, got "
                                                        f"{self.centre!r}")
        if self.bound is not None:
            check_positive("bound", self.bound)


def pptd_laplace_release(claims, scale: float, *, centre: float, bound: float, rng):
    """Independent Lap(``scale``) noise on every claim by the snapping mechanism, around the
    public ``centre`` with clamp ``bound`` (``NaN`` = no claim, kept)."""
    x = np.asarray(claims, dtype=np.float64)
    noise = standard_laplace(rng, x.shape) * scale  # Theorem 1's sampler of Lap(scale)
    out = centre + snap(x - centre, noise, scale, bound=bound)
    return np.where(np.isnan(x), np.nan, out)


class PPTDLaplace(Mechanism):
    """PPTD's per-record noise level, i.i.d. Laplace per record, snapped: a release member
    beside :class:`.pptd.PPTD` (whose shared variance has no float-safe sampler)."""

    default_inference = "gtm"
    id = "pptd-laplace"
    label = "PPTD i.i.d. Laplace (snapped)"
    aliases = ()
    paper = "pptd"
    summary = ("independent Laplace noise per record at Alg. 2's per-record scale 1/√(2λ2), "
               "snapped (a float-safe mechanism beside PPTD)")
    answer_type = "continuous"
    Settings = PPTDLaplaceSettings
    parts = frozenset({"release", "audit", "law"})
    float_safe = True
    fills_nulls = False

    def example_settings(self):
        """λ1 has no default (prior knowledge): the synthetic data's λ1 = 2 (Sec. 5.1)."""
        return self.settings(lambda1=2.0)

    def lambda2(self, settings, epsilon) -> float:
        """λ2 of Theorem 4.10 at ε, as PPTD maps it."""
        return float(lambda2_from_epsilon(epsilon, settings.need_lambda1(), b=settings.b,
                                          eta=settings.eta, delta=settings.delta,
                                          sensitivity=settings.sensitivity))

    def scale(self, settings, epsilon) -> float:
        """σ = 1/√(2λ2): Alg. 2's per-record Laplace marginal."""
        return 1.0 / math.sqrt(2.0 * self.lambda2(settings, epsilon))

    def sensitivity(self, settings) -> float:
        """Lemma 4.8's Δ_s under the settings' reading."""
        return float(lemma48_sensitivity(settings.need_lambda1(), b=settings.b,
                                         eta=settings.eta, sensitivity=settings.sensitivity))

    def bound(self, settings, epsilon) -> float:
        """The clamp bound B (public): the setting, or 300 σ; a bound beyond the sampler's
        reach (2B + Λ > 708 σ) is refused."""
        sigma = self.scale(settings, epsilon)
        bound = DEFAULT_BOUND_SCALES * sigma if settings.bound is None else float(settings.bound)
        if not snapping_reaches(sigma, bound):
            raise ParameterError("bound", bound, f"pptd-laplace: the clamp bound must be at most "
                                 f"about {LAPLACE_REACH / 2:.0f} noise scales ("
                                 f"{(LAPLACE_REACH * sigma - snapping_grid(sigma)) / 2:.6g} at "
                                 f"ε = {epsilon:g}), so that every claim's noise reaches both "
                                 "clamps")
        return bound

    def record_epsilon(self, settings, epsilon) -> float:
        """ε* per record (module docstring)."""
        bound = self.bound(settings, epsilon)
        slack = 0.0 if settings.centre == 0.0 else 2.0**-52 * bound
        return snapping_epsilon(self.sensitivity(settings) + slack, self.scale(settings, epsilon),
                                bound)

    def release(self, answers, epsilon, settings, *, rng, domain_size=None):
        return pptd_laplace_release(answers, self.scale(settings, epsilon),
                                    centre=settings.centre, bound=self.bound(settings, epsilon),
                                    rng=rng)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        return {"parameters": {"lambda2": self.lambda2(settings, epsilon),
                               "scale": self.scale(settings, epsilon),
                               "clamp_bound": self.bound(settings, epsilon),
                               "snapping_grid": snapping_grid(self.scale(settings, epsilon))},
                "spent": {"exact_epsilon_per_record": self.record_epsilon(settings, epsilon),
                          "sensitivity": self.sensitivity(settings)}}

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), float(settings.delta), "record (claim) of a user",
                       f"PPTD Theorem 4.10's λ2 (Lemma 4.8's Δ_s, {settings.sensitivity}) with "
                       "independent Laplace(1/√(2λ2)) per record, snapped", RECORD_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        record = self.record_epsilon(settings, epsilon)
        records = shape.max_records_per_worker
        worker, _ = basic_composition(record, records)
        ideal = self.sensitivity(settings) / self.scale(settings, epsilon)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="record (claim) of a user",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the user's {records} records (independent "
                        "noise per record)",
            ideal_record_epsilon=ideal, float_safe=True,
            basis=(f"Mironov (CCS 2012) Theorem 1: Laplace scale σ = 1/√(2λ2) = "
                   f"{self.scale(settings, epsilon):.6g}, grid "
                   f"{snapping_grid(self.scale(settings, epsilon)):g}, clamp B = "
                   f"{self.bound(settings, epsilon):.6g} around {settings.centre:g}, "
                   f"sensitivity Δ_s = {self.sensitivity(settings):.6g} (Lemma 4.8, "
                   f"{settings.sensitivity}): ε* = Δ_s√(2λ2) + 2^−49 B√(2λ2) = {record:.17g} "
                   "at δ = 0 (crowdpriv.mechanisms.pptd_laplace)"),
            caveats=("a different mechanism from Alg. 2: independent noise per record at "
                     "Alg. 2's per-record scale (Alg. 2 shares one variance per user)",
                     "records further apart than Δ_s are not covered (PPTD's neighbours)",
                     "λ1 must come from prior knowledge, not from the data",
                     "claims more than B from the centre are clamped", LOG_CAVEAT))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "independent Laplace(1/√(2λ2)) per record, λ2 from PPTD Theorem 4.10 "
                           "(the per-record marginal of Alg. 2), by Mironov's snapping "
                           "mechanism (CCS 2012, Theorem 1)",
                "unit": "per record (claim), ε at δ = 0",
                "sampler": (f"snapping: grid {snapping_grid(self.scale(settings, epsilon)):g}, "
                            f"clamp ± {self.bound(settings, epsilon):.6g} around "
                            f"{settings.centre:g}"),
                "covers": ["one record of a user moving by at most Lemma 4.8's Δ_s, with the "
                           "exact ε of the sampler; a user's records compose (independent "
                           "noise)"],
                "not_covered": ["this is not PPTD's Alg. 2: its noise is independent per record "
                                "(Alg. 2 shares one variance per user, which has no "
                                "floating-point-safe sampler here)",
                                "λ1 must come from prior knowledge, not from the data",
                                "claims more than the clamp bound from the centre are clamped"]}

    def claim_family(self, lambda1: float) -> str:
        """The privacy audit's claim (family of neighbours) of this sampler at ``lambda1``."""
        return f"{self.label}: (ε, δ) per record, λ1 = {float(lambda1):g}"

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case

        lam1 = settings.need_lambda1()
        cases = []
        for reading in SENSITIVITY_READINGS:
            read = PPTDLaplaceSettings(lam1, settings.b, settings.eta, settings.delta, reading,
                                       settings.centre, settings.bound)
            sens = self.sensitivity(read)

            def record(rng, n, which, read=read, sens=sens):
                x = settings.centre + (0.0 if which == "D" else sens)
                return self.release(np.full((n, 1), x), epsilon, read, rng=rng)[:, 0]

            cases.append(Case(
                "pptd", self.label, f"one record at Lemma 4.8's Δ_s ({reading}), λ1 = {lam1:g}",
                epsilon, settings.delta, record,
                exact_epsilon=self.record_epsilon(read, epsilon), float_safe=True,
                family=self.claim_family(lam1),
                note="independent Laplace(1/sqrt(2 λ2)) per record, snapped"))
        return cases

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        sigma = 1.0 / math.sqrt(2.0 * self.lambda2(settings, epsilon))  # Theorem 4.10's λ2
        grid = 2.0 ** math.ceil(math.log2(sigma))  # written here, not read from the sampler
        top = 3  # grid indices beyond ± top merged into the tails
        edges = grid * (np.arange(-top, top) + 0.5)  # cells of the indices −top .. top
        merged = np.diff(stats.laplace.cdf(np.concatenate([[-np.inf], edges, [np.inf]]),
                                           scale=sigma))

        def grid_index(values):
            return np.clip(np.round((values - settings.centre) / grid), -top, top)

        def one(rng, n):
            x = np.full((n, 1), settings.centre)
            return grid_index(self.release(x, epsilon, settings, rng=rng)[:, 0])

        def pair(rng, n):
            # two records of one user: independent noise, so |index| pairs have product law
            x = np.full((n, 2), settings.centre)
            a = np.minimum(np.abs(grid_index(self.release(x, epsilon, settings, rng=rng))), 2)
            return 3 * a[:, 0] + a[:, 1]

        absolute = np.array([merged[top], merged[top - 1] + merged[top + 1],
                             1.0 - merged[top] - merged[top - 1] - merged[top + 1]])
        return [LawCheck("one record: Lap(1/√(2λ2)) snapped to multiples of Λ", one,
                         support=np.arange(-top, top + 1), probabilities=merged),
                LawCheck("two records of one user: independent noise (product law of the "
                         "grid magnitudes 0, 1, ≥ 2)", pair, support=np.arange(9),
                         probabilities=np.outer(absolute, absolute).ravel())]
