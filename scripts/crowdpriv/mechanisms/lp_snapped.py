"""LP for a real release: NULL → a uniform label, then Mironov's snapping mechanism.

The same mechanism as :mod:`.lp` (LDP-sparse Eq. 6-7, scale |Γ|/ε), sampled so that no
floating-point artefact distinguishes two inputs (:mod:`crowdpriv.release`): the value is
centred on Γ, clamped to [−B, B], Laplace noise added, rounded to the nearest multiple of Λ
(the smallest power of two ≥ |Γ|/ε) and clamped again. Mironov's Theorem 1 gives its exact
per-cell ε.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..release import snapped_laplace, snapping_epsilon, snapping_grid
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, basic_composition
from .lp import CELL_NEIGHBOURS

__all__ = ["LPSnapped", "LPSnappedSettings", "lp_bound", "lp_release"]

#: Noise scales between the edge of Γ's range and the clamp bound B.
CLAMP_SCALES = 10.0


@dataclass(frozen=True)
class LPSnappedSettings:
    """The snapped LP has no settings of its own: its NULL fill is uniform in Γ and its clamp
    bound follows from ε and |Γ| (:func:`lp_bound`)."""


def lp_bound(epsilon: float, domain: int) -> float:
    """The clamp bound B of LP's snapped release around the centre of Γ: half of Γ's range
    plus ten noise scales (clamping moves an output with probability e^−10 / 2)."""
    return (domain - 1) / 2.0 + CLAMP_SCALES * domain / epsilon


def lp_release(answers, epsilon: float, domain: int, rng) -> np.ndarray:
    """LP (LDP-sparse Eq. 6-7) for a real release: NULL -> a uniform label, then Mironov's
    snapping mechanism with the paper's scale |Γ|/ε (:func:`crowdpriv.release.snapped_laplace`),
    centred on Γ. Outputs lie on a power-of-two grid, so no floating-point artefact
    distinguishes two inputs."""
    a = np.asarray(answers, dtype=np.float64)
    fill = rng.integers(0, domain, size=a.shape)
    x = np.where(np.isnan(a), fill, a)
    centre = (domain - 1) / 2.0
    return centre + snapped_laplace(x - centre, domain / epsilon,
                                    bound=lp_bound(epsilon, domain), rng=rng)


class LPSnapped(Mechanism):
    """LP sampled by Mironov's snapping mechanism: what ``crowdpriv perturb lp`` runs."""

    default_inference = "median"
    id = "lp-snapped"
    label = "LP release (snapped)"
    aliases = ("LP release (snapped)",)
    paper = "ldp_sparse"
    summary = "LP (Eq. 6-7) with Mironov's snapping mechanism: a floating-point-safe release"
    Settings = LPSnappedSettings
    parts = frozenset({"release", "audit", "law"})
    float_safe = True
    null_handling = "NULL replaced by a uniform label: every cell of a worker's row released"
    #: The privacy audit's claim (family of neighbours) of this sampler.
    CLAIM = "LP release (snapped): ε-cell LDP (Theorem 1)"

    def release(self, answers, epsilon, settings, *, rng, domain_size=None):
        from ._codes import check_domain_answers

        a = check_domain_answers(np.asarray(answers, dtype=np.float64), domain_size)
        return lp_release(a, float(epsilon), int(domain_size), rng)

    def noise_variance(self, settings, epsilon, *, domain_size=None):
        """E[(output − answer)²] averaged over the labels of Γ, exact
        (:func:`crowdpriv.release.snapped_noise_mse`): Lap(|Γ|/ε)'s 2(|Γ|/ε)² plus what
        snapping's grid adds (54.75 against 50 at |Γ| = 5, ε = 1)."""
        from ..release import snapped_noise_mse

        k, eps = int(domain_size), float(epsilon)
        centre = (k - 1) / 2.0
        return float(snapped_noise_mse(np.arange(k) - centre, k / eps,
                                       bound=lp_bound(eps, k)).mean())

    def check_epsilon(self, settings, epsilon, *, domain_size=None):
        """Mironov's Theorem 1 needs λ < B < 2^46 λ (λ = |Γ|/ε, B = :func:`lp_bound`)."""
        from .._checks import ParameterError

        k = int(domain_size)
        lam = k / float(epsilon)
        if not lp_bound(epsilon, k) < 2.0 ** 46 * lam:
            largest = 2 * k * (2.0 ** 46 - CLAMP_SCALES) / (k - 1)
            raise ParameterError("epsilon", epsilon,
                                 f"epsilon = {epsilon:g} is too large for the snapped LP release "
                                 f"(its noise scale |Γ|/ε must be above 2^-46 of the clamp bound, "
                                 f"Mironov's Theorem 1): use epsilon below {largest:.4g}")

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        return {"parameters": {"sampler": self.ledger_text(settings, epsilon,
                                                           domain_size=domain_size)["sampler"]},
                "spent": {"exact_epsilon_per_cell": self.exact_cell_epsilon(epsilon,
                                                                            domain_size)}}

    def exact_cell_epsilon(self, epsilon, domain_size) -> float:
        """Mironov's Theorem 1 for inputs at distance |Γ| − 1: (|Γ| − 1)/λ + 2^−49 B/λ."""
        k = int(domain_size)
        return snapping_epsilon(k - 1, k / epsilon, lp_bound(epsilon, k))

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered cell of a worker (ε-cell LDP)",
                       "LDP-sparse Theorem 1 (Eq. 6-7), sampled by Mironov's snapping "
                       "mechanism", CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        k = int(domain_size)
        answered = self.exact_cell_epsilon(epsilon, k)
        # NULL (uniform fill) against an answer: the fill is one of the |Γ| answers, each at
        # distance at most |Γ| − 1 from any answer, so the mixture's ratio is bounded by the
        # answered-cell bound (a mixture of mechanisms each within ε of the other input)
        record = answered
        worker, _ = basic_composition(record, shape.tasks)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.tasks} released cells "
                        "(NULLs filled)",
            ideal_record_epsilon=record, float_safe=True,
            basis=(f"Mironov (CCS 2012) Theorem 1: grid Λ = {snapping_grid(k / epsilon):g}, "
                   f"clamp B = {lp_bound(epsilon, k):g}, sensitivity |Γ| − 1: ε = 1/λ' + "
                   "2^−49 B'/λ' in units of the sensitivity; a NULL's uniform fill is a "
                   "mixture of answered inputs, each within that ε"),
            caveats=("outputs are snapped to a power-of-two grid and clamped to Γ's centre ± "
                     "B",))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)
        return {"theorem": "LDP-sparse Theorem 1 (Eq. 6-7): Laplace noise Lap(|Γ|/ε) on every "
                           "cell, NULL replaced by a uniform label; sampled by Mironov's "
                           "snapping mechanism (CCS 2012, Theorem 1)",
                "unit": "per answer (cell) of a worker",
                "sampler": (f"Mironov's snapping mechanism: grid {snapping_grid(k / epsilon):g}, "
                            f"outputs clamped to {(k - 1) / 2 - lp_bound(epsilon, k):g} .. "
                            f"{(k - 1) / 2 + lp_bound(epsilon, k):g}"),
                "covers": ["a change of one cell of a worker's row, NULL included, with the "
                           "exact ε of the floating-point sampler"],
                "not_covered": ["a worker's whole answer vector: ε adds up over his cells "
                                "(n·ε for n tasks, NULL fills included)",
                                "the released values are snapped to a power-of-two grid and "
                                "clamped (Mironov 2012): this removes the floating-point leak "
                                "of a textbook sampler at a tiny cost in ε and some "
                                "resolution"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case

        k = int(domain_size)
        family = self.CLAIM

        def cells(first, second):
            def sample(rng, n, which):
                value = first if which == "D" else second
                return lp_release(np.full((n, 1), value), epsilon, k, rng).ravel()
            return sample

        exact = self.exact_cell_epsilon(epsilon, k)
        return [Case("ldp_sparse", self.label, "one answered cell, 0 vs |Γ|-1",
                     epsilon, 0.0, cells(0.0, float(k - 1)), exact_epsilon=exact,
                     note="outputs on a power-of-two grid: both inputs reach the same support",
                     family=family, float_safe=True),
                Case("ldp_sparse", self.label, "one cell, NULL vs answered 0", epsilon, 0.0,
                     cells(np.nan, 0.0), exact_epsilon=exact, family=family, float_safe=True,
                     note="a NULL's uniform fill is a mixture of answers, each within the "
                          "answered-cell bound")]

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        k = int(domain_size)
        scale = k / float(epsilon)
        grid = snapping_grid(scale)
        bound = lp_bound(epsilon, k)
        centre = (k - 1) / 2.0
        value = float(k - 1)
        x = value - centre
        # every grid point Lap(|Γ|/ε) can round to, each with the mass of its rounding cell
        # (the outermost cells take the tails), then clamped to [−B, B] as the sampler does
        lo_j, hi_j = np.floor(-bound / grid) - 1, np.ceil(bound / grid) + 1
        centres = grid * np.arange(lo_j, hi_j + 1)
        edges = np.concatenate([[-np.inf], centres[:-1] + grid / 2, [np.inf]])
        mass = np.diff(stats.laplace.cdf(edges, loc=x, scale=scale))
        values = np.clip(centres, -bound, bound)
        points = np.unique(values)
        probs = np.array([mass[values == v].sum() for v in points])
        def sample(rng, n):
            out = lp_release(np.full((n, 1), value), epsilon, k, rng).ravel() - centre
            return out

        return [LawCheck("answered cell: Lap(|Γ|/ε) rounded to the nearest multiple of Λ",
                         sample, support=points, probabilities=probs)]
