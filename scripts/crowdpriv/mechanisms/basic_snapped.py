"""Basic for a real release: Laplace noise on each claim with a public range, by snapping.

PrisCrowd's Basic baseline (Sec. 5) adds Lap(Δ/ε) to each normalised claim with Δ the object's
own claim range: the z-scores and Δ come from the data (:class:`.basic.Basic` states ∞). A
release needs Δ fixed in advance. Here the user states a public ``value_range`` R (required)
and ``centre`` c in the claims' units (no per-object normalisation: it is computed from the
data); each claim is centred, clamped to the public range [−R/2, R/2] (exact: R/2 is a double
and the clamp is applied after the centring's rounding), and released by Mironov's snapping
mechanism (:mod:`crowdpriv.release`) with scale λ = R/ε: Lap(λ) added (Mironov's own sampler of
it, :func:`crowdpriv.release.standard_laplace`), rounded to the nearest
multiple of Λ (the smallest power of two ≥ λ), clamped to [−B, B] with B = R/2 + 10λ (an
output is clamped with probability below e^−10/2), the centre added back.

Exact ε per claim. After the clamp any two claims lie within R of each other, so every change
of one claim is covered, and Mironov (CCS 2012) Theorem 1 with sensitivity R gives

    ε* = R/λ + 2^−49 B/λ = ε + 2^−49 (R/2 + 10 R/ε) ε/R = ε + 2^−49 (ε/2 + 10).

A user's claims draw independent noise: basic composition over his claims. PrisCrowd's Alg. 1
(synthetic claims) is another mechanism and out of scope here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_positive
from ..release import (
    LOG_CAVEAT,
    snap,
    snapping_epsilon,
    snapping_grid,
    snapping_reaches,
    standard_laplace,
)
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, basic_composition, setting
from .priscrowd import CLAIM_NEIGHBOURS

__all__ = ["BasicSnapped", "BasicSnappedSettings", "basic_snapped_release", "basic_snapped_bound",
           "BASIC_CLAMP_SCALES"]

#: Noise scales between the edge of the public range and the clamp bound B.
BASIC_CLAMP_SCALES = 10.0


@dataclass(frozen=True)
class BasicSnappedSettings:
    """The public ``value_range`` R (required: the claims' range fixed in advance, in their
    units) and its ``centre``."""

    value_range: float | None = setting(None, "public range R of the claims fixed in advance "
                                              "(required; claims outside are clamped)",
                                        type=float)
    centre: float = setting(0.0, "public centre of the claims' range")

    def __post_init__(self):
        if self.value_range is not None:
            check_positive("value_range", self.value_range)
        if not np.isfinite(self.centre):
            raise ParameterError("centre", self.centre, f"centre must be finite, got "
                                                        f"{self.centre!r}")

    def need_range(self) -> float:
        if self.value_range is None:
            raise ParameterError("value_range", None, "basic-snapped needs --value-range, the "
                                 "claims' range fixed in advance (public, not computed from "
                                 "the data)")
        return float(self.value_range)


def basic_snapped_bound(epsilon: float, value_range: float) -> float:
    """B = R/2 + 10 R/ε around the centre; ε too large for the sampler's reach (2B + Λ above
    708 R/ε: ε above about 680) is refused (:func:`crowdpriv.release.snapping_reaches`)."""
    bound = value_range / 2.0 + BASIC_CLAMP_SCALES * value_range / epsilon
    if not snapping_reaches(value_range / epsilon, bound):
        raise ParameterError("epsilon", epsilon, f"basic-snapped: ε = {epsilon:g} is too large "
                             "for the snapping sampler's reach (its noise must carry every "
                             "claim of the range to both clamps)")
    return bound


def basic_snapped_release(claims, epsilon: float, *, value_range: float, centre: float, rng):
    """Basic with a public range by the snapping mechanism (module docstring); ``NaN`` = no
    claim, kept."""
    x = np.asarray(claims, dtype=np.float64)
    half = value_range / 2.0
    inside = np.clip(x - centre, -half, half)
    scale = value_range / epsilon
    noise = standard_laplace(rng, x.shape) * scale  # Theorem 1's sampler of Lap(R/ε)
    out = centre + snap(inside, noise, scale, bound=basic_snapped_bound(epsilon, value_range))
    return np.where(np.isnan(x), np.nan, out)


class BasicSnapped(Mechanism):
    """Basic (PrisCrowd Sec. 5) with a public range, sampled by Mironov's snapping mechanism."""

    default_inference = "gtm"
    id = "basic-snapped"
    label = "Basic release (snapped)"
    aliases = ()
    paper = "priscrowd"
    summary = "Laplace noise on each claim, public range R fixed in advance, scale R/ε, snapped"
    answer_type = "continuous"
    Settings = BasicSnappedSettings
    parts = frozenset({"release", "audit", "law"})
    float_safe = True
    fills_nulls = False

    def example_settings(self):
        """R has no default (it is the user's): 4 .. 14, around the audit's object."""
        return self.settings(value_range=10.0, centre=9.0)

    def exact_epsilon(self, settings, epsilon) -> float:
        """ε* per claim: Theorem 1 with sensitivity R, scale R/ε, B = R/2 + 10R/ε."""
        r = settings.need_range()
        return snapping_epsilon(r, r / epsilon, basic_snapped_bound(epsilon, r))

    def release(self, answers, epsilon, settings, *, rng, domain_size=None):
        return basic_snapped_release(answers, float(epsilon), value_range=settings.need_range(),
                                     centre=settings.centre, rng=rng)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        r = settings.need_range()
        return {"parameters": {"scale": r / epsilon, "clamp_bound": basic_snapped_bound(epsilon, r),
                               "snapping_grid": snapping_grid(r / epsilon)},
                "spent": {"exact_epsilon_per_claim": self.exact_epsilon(settings, epsilon)}}

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "claim of a user about an object",
                       "PrisCrowd Sec. 5 (Basic: Laplace noise) with a public range, by "
                       "Mironov's snapping mechanism", CLAIM_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        r = settings.need_range()
        record = self.exact_epsilon(settings, epsilon)
        worker, _ = basic_composition(record, shape.max_records_per_worker)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="claim of a user about an object",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the user's {shape.max_records_per_worker} "
                        "claims (independent noise)",
            ideal_record_epsilon=float(epsilon), float_safe=True,
            basis=(f"Mironov (CCS 2012) Theorem 1: public range R = {r:g} around "
                   f"{settings.centre:g} (claims clamped to it, so any change of one claim "
                   f"moves the input by at most R), scale R/ε, grid "
                   f"{snapping_grid(r / epsilon):g}, clamp B = "
                   f"{basic_snapped_bound(epsilon, r):g}: "
                   f"ε* = R/λ + 2^−49 B/λ = {record:.17g} (crowdpriv.mechanisms.basic_snapped)"),
            caveats=(LOG_CAVEAT, "claims outside the public range are clamped to it",
                     "no per-object normalisation (it would be computed from the data)"))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        r = settings.need_range()
        return {"theorem": "PrisCrowd Sec. 5 (Basic): Laplace noise Lap(R/ε) on each claim, R a "
                           "public range fixed in advance; by Mironov's snapping mechanism (CCS "
                           "2012, Theorem 1)",
                "unit": "per claim",
                "sampler": (f"claims clamped to {settings.centre - r / 2:g} .. "
                            f"{settings.centre + r / 2:g}, snapped to multiples of "
                            f"{snapping_grid(r / epsilon):g}"),
                "covers": ["any change of one claim (clamped to the public range), with the "
                           "exact ε of the sampler; a user's claims compose"],
                "not_covered": ["claims outside the public range are clamped: the release says "
                                "nothing about how far outside they were",
                                "the paper's Basic normalises claims per object from the data; "
                                "this release does not"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, name=None, shape=None):
        from ..audit import Case

        label = f"{self.label} ({name})" if name else self.label
        r = settings.need_range()
        low, high = settings.centre - r / 2.0, settings.centre + r / 2.0

        def sample(rng, n, which):
            x = np.full((n, 1), low if which == "D" else high)
            return self.release(x, epsilon, settings, rng=rng)[:, 0]

        return [Case("priscrowd", label,
                     f"one claim moves across the public range, {low:g} vs {high:g}",
                     float(epsilon), 0.0, sample,
                     exact_epsilon=self.exact_epsilon(settings, epsilon), float_safe=True,
                     family=f"{label}: ε-DP per claim (Sec. 5)",
                     note="Theorem 1 with sensitivity R: every output a grid point both "
                          "claims reach")]

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        r = settings.need_range()
        scale = r / float(epsilon)
        grid = 2.0 ** np.ceil(np.log2(scale))  # written here, not read from the sampler
        bound = r / 2.0 + 10.0 * scale
        claim = settings.centre + 0.3 * r  # inside the range
        x = claim - settings.centre
        lo_j, hi_j = np.floor(-bound / grid) - 1, np.ceil(bound / grid) + 1
        points = grid * np.arange(lo_j, hi_j + 1)
        edges = np.concatenate([[-np.inf], points[:-1] + grid / 2, [np.inf]])
        mass = np.diff(stats.laplace.cdf(edges, loc=x, scale=scale))
        values = np.clip(points, -bound, bound)
        support = np.unique(values)
        probs = np.array([mass[values == v].sum() for v in support])

        def sample(rng, n):
            out = self.release(np.full((n, 1), claim), epsilon, settings, rng=rng)[:, 0]
            return out - settings.centre

        return [LawCheck("a claim inside the range: Lap(R/ε) snapped to multiples of Λ", sample,
                         support=support, probabilities=probs)]
