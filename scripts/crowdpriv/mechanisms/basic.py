"""Basic: the Laplace baseline of PrisCrowd (Huai et al., IJCAI 2019, Sec. 5).

Laplace noise Lap(Δ_i/ε) on every normalised claim of object i, released as is, with ε = 0.1 /
1 / 10 for Basic(Strong / Normal / Weak). As the paper runs it, Δ_i is the object's normalised
claim range computed from the claims themselves: the noise scale follows the data, which the
Laplace mechanism's proof does not allow (its sensitivity must be fixed in advance). A public
``value_range`` fixed in advance restores the textbook setting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_int_at_least, check_positive
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, setting
from .priscrowd import AUDIT_OBJECT, CLAIM_NEIGHBOURS, audit_neighbours

__all__ = ["Basic", "BasicSettings", "BASIC_SENSITIVITIES", "basic_release"]

#: Readings of the Basic baseline's Laplace sensitivity (config ``priscrowd.basic_sensitivity``):
#: ``range`` the object's normalised claim range (Sec. 5); ``records`` the number of claims on
#: the object times that range (the introduction: noise "proportional to the number of data
#: records").
BASIC_SENSITIVITIES = ("range", "records")


def basic_release(z, mask, epsilon, *, reps=1, rng, sensitivity="range", value_range=None):
    """The **Basic** baseline: Laplace noise on every normalised claim, released as is.

    PrisCrowd Sec. 5 (Baselines): noise ``Lap(Delta_i / epsilon)`` with sensitivity ``Delta_i``
    = the object's normalised claim range (max - min), epsilon = 0.1 / 1 / 10 for
    Strong / Normal / Weak; ``sensitivity="records"`` multiplies Delta_i by the object's number
    of claims (:data:`BASIC_SENSITIVITIES`). ``value_range``: a range fixed in advance (public)
    instead of each object's own.

    Returns
    -------
    ndarray (R, G, n)
        Noisy claims, NaN on padding.
    """
    epsilon = check_positive("epsilon", epsilon)
    reps = check_int_at_least("reps", reps, 1)
    z = np.asarray(z, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    if value_range is None:
        hi = np.where(mask, z, -np.inf).max(axis=1)
        lo = np.where(mask, z, np.inf).min(axis=1)
        spread = hi - lo
    else:
        spread = np.full(z.shape[0], check_positive("value_range", value_range))
    if sensitivity not in BASIC_SENSITIVITIES:
        raise ValueError(f"sensitivity must be one of {BASIC_SENSITIVITIES}, got {sensitivity!r}")
    scale = spread / epsilon
    if sensitivity == "records":
        scale = scale * mask.sum(axis=1)
    noise = rng.laplace(size=(reps, *z.shape)) * scale[None, :, None]
    return np.where(mask[None], z[None] + noise, np.nan)


@dataclass(frozen=True)
class BasicSettings:
    """Basic's settings: the ``sensitivity`` reading (:data:`BASIC_SENSITIVITIES`), the
    ``units`` the claims are normalised in (:data:`crowdpriv.kde.UNITS`) and an optional
    public ``value_range`` (None: each object's own range, as the paper runs it)."""

    sensitivity: str = setting("range", "Laplace sensitivity: the object's range, or range × "
                                        "claims", choices=BASIC_SENSITIVITIES)
    units: str = setting("zscore", "claims z-scored per object or only centred",
                         choices=("zscore", "raw"))
    value_range: float | None = setting(None, "a public range fixed in advance (default: each "
                                              "object's own)", type=float)

    def __post_init__(self):
        from ..kde import UNITS

        if self.sensitivity not in BASIC_SENSITIVITIES:
            raise ParameterError("sensitivity", self.sensitivity,
                                 f"sensitivity must be one of {BASIC_SENSITIVITIES}, got "
                                 f"{self.sensitivity!r}")
        if self.units not in UNITS:
            raise ParameterError("units", self.units, f"units must be one of {UNITS}, got "
                                                      f"{self.units!r}")
        if self.value_range is not None:
            check_positive("value_range", self.value_range)


class Basic(Mechanism):
    """Basic (PrisCrowd Sec. 5): Lap(range/ε) on every normalised claim."""

    default_inference = "gtm"
    id = "basic"
    label = "Basic"
    aliases = ("Basic",)
    paper = "priscrowd"
    summary = "Laplace noise on each normalised claim, scale the object's range / ε (Sec. 5)"
    answer_type = "continuous"
    Settings = BasicSettings
    parts = frozenset({"audit", "law"})
    float_safe = False
    fills_nulls = False

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "claim of a user about an object",
                       "PrisCrowd Sec. 5 (Basic baselines: Laplace noise with sensitivity the "
                       "object's range)", CLAIM_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        public = settings.value_range is not None
        # with a public range the noise is Lap(Δ/ε) (or larger, under 'records'): at most ε
        # for a claim moving within Δ
        ideal = float(epsilon) if public else float("inf")
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="claim of a user about an object",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule=f"basic composition over the user's {shape.max_records_per_worker} "
                        "claims",
            ideal_record_epsilon=ideal, float_safe=False,
            basis=("Lap(Δ/ε) with Δ fixed in advance is ε-DP for a claim moving within Δ; as "
                   "the paper runs it Δ is each object's own range (and the z-scores are "
                   "recomputed), so one claim moves the noise scale itself: no finite ε holds "
                   "for a claim moving outside the range; the float64 Laplace sample has "
                   "input-dependent support (Mironov 2012)"),
            caveats=("the sensitivity (the object's range) is computed from the claims",))

    def sample(self, z, mask, epsilon, settings, *, rng, reps=1):
        """Basic on normalised claims (:func:`basic_release`) with the settings."""
        return basic_release(z, mask, epsilon, reps=reps, rng=rng,
                             sensitivity=settings.sensitivity, value_range=settings.value_range)

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None, name=None):
        """Basic at level ``epsilon`` (``name``: Strong / Normal / Weak) for the audited object:
        its last claim moving within the range with the sensitivity fixed by D (the Laplace
        mechanism's own setting: exact), and as the pipeline runs it (z-scores and range
        recomputed from each input) with the replacements a skeptic tries
        (:func:`crowdpriv.mechanisms.priscrowd.audit_neighbours`); the statistic is the
        released value of that claim in the data's units."""
        from ..audit import Case
        from ..kde import normalise_objects

        label = f"Basic({name})" if name else self.label
        family = f"{label}: ε-DP per claim (Sec. 5)"
        d_claims = AUDIT_OBJECT[None, :]
        mask = np.ones_like(d_claims, dtype=bool)
        z_d, mean_d, scale_d = normalise_objects(d_claims, mask, units=settings.units)
        # Basic with a fixed sensitivity: D's range, the claim moving within it (to D's max)
        within = d_claims.copy()
        within[0, -1] = d_claims.max()
        z_within = (within - mean_d[:, None]) / scale_d[:, None]
        z_range = float(z_d.max() - z_d.min())
        shift = abs(float(z_within[0, -1] - z_d[0, -1]))
        fixed_settings = BasicSettings("range", settings.units, z_range)
        one = np.ones((1, 1), dtype=bool)

        def fixed(rng, n, which):  # the theorem's setting: the sensitivity is D's range
            z = (z_d if which == "D" else z_within)[:, -1:]
            return self.sample(z, one, epsilon, fixed_settings, rng=rng, reps=n)[:, 0, 0]

        def as_run(replaced):
            d2_claims = d_claims.copy()
            d2_claims[0, -1] = replaced

            def sample(rng, n, which):
                claims = d_claims if which == "D" else d2_claims
                z, mean, scale = normalise_objects(claims, mask, units=settings.units)
                out = self.sample(z, mask, epsilon, settings, rng=rng, reps=n)[:, 0, -1]
                return mean[0] + scale[0] * out  # the released value in the data's units
            return sample

        cases = [Case("priscrowd", label, "one claim moves within the object's range (fixed "
                                          "sensitivity)", float(epsilon), 0.0, fixed,
                      exact_epsilon=shift * float(epsilon) / z_range, family=family,
                      note="Lap(range/ε) on a claim moving within the range (here to D's "
                           "maximum)")]
        for words, value in audit_neighbours(AUDIT_OBJECT):
            cases.append(Case(
                "priscrowd", label, f"one claim {words} (as run: z-scores and range "
                                    "recomputed from the data)", float(epsilon), 0.0,
                as_run(value), statistic="released value of the replaced claim",
                family=family,
                note="the z-scores and the range (Basic's sensitivity) are recomputed from the "
                     "data, so one claim moves every normalised claim and the noise scale: "
                     "outside the Laplace mechanism's proof, which needs a sensitivity fixed "
                     "in advance"))
        return cases

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        z = np.array([[-1.0,  # the object's range: -1 .. 2, Δ = 3
                       0.0, 0.5,  # pragma: no mutate (equivalent: any inner claims in [-1, 2] leave Δ = 3 and the law Lap(Δ/ε); only the rounding of (z + noise) - z moves)
                       2.0]])
        mask = np.ones_like(z, dtype=bool)
        spread = 3.0 if settings.value_range is None else settings.value_range
        scale = spread / float(epsilon) * (z.shape[1] if settings.sensitivity == "records"
                                           else 1)

        def noise(rng, n):
            return (self.sample(z, mask, epsilon, settings, rng=rng, reps=n)[:, 0, :]
                    - z).ravel()

        return [LawCheck("noise on a claim: Lap(Δ/ε), Δ = the object's range (× its claims "
                         "under 'records')", noise, cdf=stats.laplace(scale=scale).cdf)]
