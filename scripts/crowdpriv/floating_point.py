"""Floating-point support tests of the samplers the pipeline and the releases run (Mironov,
CCS 2012): for an output y drawn from the sampler on input x, y is unreachable from the
neighbour x' when no floating-point draw makes the neighbour's sampler output y
(:func:`crowdpriv.audit.reachable`, certain by bisection over the monotone sampler).

Each test runs the code that runs: LP's float32 sweep sampler as drawn (``lp_draws`` /
``lp_apply``), PPTD's Alg. 2 (``pptd_apply``), Basic (``basic_release``), MF's float64 b − η,
and every release sampler of ``crowdpriv perturb`` (snapped or with integer thresholds), whose
share must be 0. :func:`crowdpriv.audits.floating_point_rows` turns them into audit rows.
:func:`snapped_exact_epsilon` goes further for a snapped release with finitely many inputs
(LP's labels): the exact ε of the sampler that runs, its output law counted over every draw.
"""

from __future__ import annotations

import math

import numpy as np

from .audit import SupportResult, support_share
from .mechanisms import get
from .mechanisms.basic import basic_release
from .mechanisms.lp import lp_apply, lp_draws
from .mechanisms.mf import MFPrepared, mf_prepare
from .mechanisms.mf_snapped import mf_snapped_rhs
from .mechanisms.pptd import perturb, pptd_apply
from .mechanisms.rr_exact import rr_exact_apply, rr_exact_draws, rr_thresholds
from .release import standard_laplace

__all__ = ["lp_float32_support", "pptd_float64_support", "basic_float64_support",
           "mf_eta_support", "snapped_release_support", "mf_snapped_support",
           "integer_rr_support", "snapped_output_law", "snapped_exact_epsilon"]


class _Replay:
    """A generator stand-in that returns given standard Laplace draws L: ``laplace(loc, scale)``
    gives ``loc + scale * L`` with numpy's own arithmetic (its float64 Laplace is
    ``loc + scale * log(...)``: the same bits), ``standard_laplace`` L itself (the release
    samplers' :func:`crowdpriv.release.standard_laplace`), ``integers`` zeros (a NULL fill
    never used)."""

    def __init__(self, draws):
        self.draws = np.asarray(draws, dtype=np.float64)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return np.reshape(loc + scale * self.draws, size)

    def integers(self, low, high=None, size=None, dtype=np.int64):
        return np.zeros(size, dtype=dtype)

    def standard_laplace(self, size):
        """The draws :func:`crowdpriv.release.standard_laplace` would make."""
        return np.reshape(self.draws, size)


def lp_float32_support(epsilon: float, domain_size: int, *, answer: int, other: int,
                       samples: int, rng) -> SupportResult:
    """LP as the sweeps draw it (:func:`crowdpriv.mechanisms.lp.lp_draws` / ``lp_apply``):
    y = fl32(fl32(n · fl32(|Γ|/ε)) + filled) with n = fl32(E1 − E2); outputs for an answered
    cell ``answer`` that an answered cell ``other`` cannot produce, n free over every float32."""
    k = int(domain_size)
    codes = np.full((samples, 1), answer, dtype=np.int8)
    y = lp_apply(lp_draws(codes, rng=rng, domain_size=k), epsilon, domain_size=k).ravel()
    filled = np.full(samples, other, dtype=np.float32)
    return support_share(y, lambda n: lp_apply((filled, n), epsilon, domain_size=k),
                         dtype=np.float32)


def pptd_float64_support(lam2: float, *, value: float, other: float, samples: int,
                         rng) -> SupportResult:
    """PPTD's Alg. 2 as run (:func:`crowdpriv.mechanisms.pptd.pptd_apply`, one record per
    user): y = fl(x + fl(√(E/λ2) · Z)). Every float t is a possible noise (E = λ2 gives √1 =
    1 and t = Z), so the neighbour's sampler is pptd_apply at E = λ2 with Z = t."""
    y = perturb(np.full((samples, 1), value), lam2, rng=rng).claims[:, 0]
    x = np.full((samples, 1), other)
    e = np.full((samples, 1), lam2)
    return support_share(y, lambda t: pptd_apply(x, (e, t[:, None]), lam2).claims[:, 0],
                         dtype=np.float64)


def basic_float64_support(z: float, other: float, scale_range: float, epsilon: float, *,
                          samples: int, rng) -> SupportResult:
    """PrisCrowd's Basic as run (:func:`crowdpriv.mechanisms.basic.basic_release`) with a fixed
    range (the theorem's setting): y = fl(z + fl(L · range/ε)) for a normalised claim ``z``
    against ``other``."""
    one = np.ones((1, 1), dtype=bool)

    def run(value, draws):
        return basic_release(np.array([[value]]), one, epsilon, reps=draws.size,
                             rng=_Replay(draws), value_range=scale_range)[:, 0, 0]

    y = basic_release(np.array([[z]]), one, epsilon, reps=samples, rng=rng,
                      value_range=scale_range)[:, 0, 0]
    return support_share(y, lambda t: run(other, t), dtype=np.float64)


def mf_eta_support(epsilon: float, domain_size: int, settings, *, samples: int,
                   rng) -> SupportResult:
    """MF's noisy right-hand side as run (:func:`crowdpriv.mechanisms.mf.mf_apply`): r =
    fl(b − fl(η° · |Γ|/ε)), the float64 vector the solve post-processes, for one worker whose
    answer to task 0 is 0 (D) or |Γ| − 1 (D′), T_i fixed (4d tasks, V drawn with seed 0, the
    other answers with seed 1); a sample is unreachable when one of its d coordinates is.
    Whether the solve u = (G + λI)⁺ r and u_iᵀV hide the leak is not decided here."""
    mech = get("mf")
    k, d = int(domain_size), int(settings.d)
    v = mech.profiles(4 * d, settings, rng=np.random.default_rng(0))
    row = np.random.default_rng(1).integers(0, k, 4 * d).astype(float)
    rhs = {}
    for which, first in (("D", 0.0), ("D'", float(k - 1))):
        row[0] = first
        rhs[which] = mf_prepare(row[None], v, domain_size=k, ridge=settings.ridge).rhs[0]
    eta = rng.laplace(0.0, 1.0, size=(samples, d))
    y = rhs["D"] - eta * (k / float(epsilon))  # mf_apply's own arithmetic: rhs − draws·(|Γ|/ε)
    # r decreases in η°: as a function of t = −η° it increases
    return support_share(y, lambda t: rhs["D'"] - (-t) * (k / float(epsilon)), dtype=np.float64)


def snapped_release_support(mechanism, settings, epsilon: float, *, value, other,
                            domain_size: int | None = None, samples: int,
                            rng) -> SupportResult:
    """A release member sampled by the snapping mechanism (its ``release`` draws standard
    Laplace noise from the generator): outputs of ``release`` on ``value`` that ``other`` cannot
    produce, running the member's own release with each candidate draw (:class:`_Replay`).
    Expected share 0: every output is a grid point both inputs reach."""

    def run(x, generator, n):
        answers = np.full((n, 1), x, dtype=np.float64)
        return np.asarray(mechanism.release(answers, epsilon, settings, rng=generator,
                                            domain_size=domain_size))[:, 0]

    y = run(value, rng, samples)
    return support_share(y, lambda t: run(other, _Replay(t), t.size), dtype=np.float64)


def mf_snapped_support(epsilon: float, domain_size: int, settings, *, samples: int,
                       rng) -> SupportResult:
    """MF's release with b − η snapped (:func:`crowdpriv.mechanisms.mf_snapped.mf_snapped_rhs`),
    the neighbours of :func:`mf_eta_support`: the released r per coordinate (the solve is
    post-processing). Expected share 0."""
    mech = get("mf-snapped")
    k, d = int(domain_size), int(settings.d)
    v = mech.profiles(4 * d, settings, rng=np.random.default_rng(0))
    row = np.random.default_rng(1).integers(0, k, 4 * d).astype(float)
    preps = {}
    for which, first in (("D", 0.0), ("D'", float(k - 1))):
        row[0] = first
        prep = mf_prepare(row[None], v, domain_size=k, ridge=settings.ridge)
        preps[which] = MFPrepared(np.repeat(prep.solver, samples, axis=0),  # pragma: no mutate  (mf_snapped_rhs never reads the solver: any axis gives the same r)
                                  np.repeat(prep.rhs, samples, axis=0), v, k)
    y = mf_snapped_rhs(preps["D"], standard_laplace(rng, (samples, d)), epsilon, settings)
    return support_share(y, lambda t: mf_snapped_rhs(preps["D'"], t, epsilon, settings),
                         dtype=np.float64)


def integer_rr_support(epsilon, domain_size: int, *, value: int, other: int,
                       samples: int, rng) -> SupportResult:
    """RR with integer thresholds (:mod:`crowdpriv.mechanisms.rr_exact`) at ε (2-Layer: the
    worker's ε_i): outputs of input code ``value`` that code ``other`` cannot produce. The
    neighbour outputs y with N_keep of the 2^62 draws when y = other and q otherwise, so y is
    unreachable iff that count is 0. Expected share 0."""
    k = int(domain_size)
    codes = np.full((samples, 1), value, dtype=np.int8)
    y = rr_exact_apply(codes, rr_exact_draws(codes, rng=rng), epsilon, domain_size=k).ravel()
    q, keep = (int(c) for c in rr_thresholds(epsilon, k))
    count = np.where(y == other, keep, q)
    return SupportResult(int((count <= 0).sum()), samples)


#: Distinct outputs one binade of U* may give a snapped release (a grid has few).
MAX_OUTPUTS = 10_000


def snapped_output_law(run, value, *, binades: int = 80) -> dict:
    """The exact output law of a snapped release as it runs, for one input: ``{output:
    Fraction}``, counted over every draw of :func:`crowdpriv.release.standard_laplace`.

    ``run(value, L)`` is the release's output for the standard Laplace draw L = ±LN(U*)
    (the member's own code fed through :class:`_Replay`), non-decreasing in L. U* is in the
    binade [2^−e, 2^(1−e)) with probability 2^−e and uniform over its 2^52 mantissas there, each
    sign has probability 1/2; in a binade the output is monotone in the mantissa, so each
    output's mantissas form a run whose ends bisection finds. Beyond ``binades`` every draw must
    give the clamp (checked at U* = 2^−1022), whose mass 2^−binades it takes. The total is 1
    exactly (checked)."""
    from fractions import Fraction

    mantissas = 2**52
    law: dict = {}
    for sign in (1.0, -1.0):
        for e in range(1, binades + 1):
            def output(m, e=e, sign=sign):
                u = math.ldexp(float(mantissas + m), -(52 + e))
                return run(value, sign * math.log(u))
            m, runs = 0, 0
            while m < mantissas:
                runs += 1
                if runs > MAX_OUTPUTS:
                    raise ValueError(f"more than {MAX_OUTPUTS} outputs in one binade: not a "
                                     "release on a grid")
                g = output(m)
                lo, hi = m, mantissas - 1
                if output(hi) == g:
                    lo = hi
                while hi - lo > 1:  # the last mantissa giving g
                    mid = (lo + hi) // 2
                    lo, hi = (mid, hi) if output(mid) == g else (lo, mid)
                law[g] = law.get(g, 0) + Fraction(lo + 1 - m, mantissas * 2 ** (e + 1))
                m = lo + 1
        far = run(value, sign * math.log(2.0 ** -(binades + 1)))
        if far != run(value, sign * math.log(2.0**-1022)):
            raise ValueError(f"draws beyond binade {binades} do not all give the clamp")
        law[far] = law.get(far, 0) + Fraction(1, 2 ** (binades + 1))
    if sum(law.values()) != 1:
        raise AssertionError("the output law does not sum to 1")
    return law


def snapped_exact_epsilon(run, values, *, binades: int = 80) -> float:
    """The exact ε of a snapped release as it runs between every two of ``values`` (a finite
    input set, e.g. LP's |Γ| labels): the largest log ratio of :func:`snapped_output_law`'s
    probabilities of one output; ∞ if some output of one input is unreachable from another."""
    laws = [snapped_output_law(run, v, binades=binades) for v in values]
    worst = 0.0
    for p in laws:
        for q in laws:
            for g, pg in p.items():
                qg = q.get(g)
                if qg is None:
                    return math.inf
                worst = max(worst, (math.log(pg.numerator) - math.log(pg.denominator))
                            - (math.log(qg.numerator) - math.log(qg.denominator)))
    return worst
