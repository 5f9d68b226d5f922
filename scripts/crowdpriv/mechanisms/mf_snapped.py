"""MF for a real release: the noisy right-hand side b − η by Mironov's snapping mechanism.

MF (LDP-sparse Eq. 9-10) solves (G_i + λI) u = b_i − η_i with b_i = Σ_{j∈T_i} a_ij v_j and
η_i ~ Lap(|Γ|/ε)^d, then sends u_iᵀV. The worker's data enter the output only through G_i (which
tasks he answered, T_i) and b_i (his answers). Here the noisy b_i is released by the snapping
mechanism (:mod:`crowdpriv.release`) in each of the d coordinates, and the solve is
post-processing of it:

    r_k = c_k + snap(b_k − c_k),  c_k = (|Γ| − 1)/2 · Σ_j v_kj,   u = (G_i + λI)⁺ r,

where snap clamps to [−B_k, B_k], adds Lap(λ_n) with λ_n = |Γ|/ε (drawn ε-free as Lap(1) by
Mironov's own sampler, :func:`crowdpriv.release.standard_laplace`, and scaled), rounds to the
nearest multiple of Λ (the smallest power of two ≥ λ_n) and clamps again.

The clamp bound must not depend on the data. c_k and B_k depend only on the public V, |Γ|
and ε: whatever a worker answered, |b_k − c_k| ≤ (|Γ| − 1)/2 · Σ_j |v_kj| (the |T_i| of a bound
|T_i| (|Γ| − 1) max|v| is the worker's own, hence data: all n tasks replace it), so
B_k = (|Γ| − 1)/2 · Σ_j |v_kj| + 10 λ_n never clamps an input and clamps an output with
probability below e^−10/2 (:func:`mf_coordinate_bounds`). The sampler's noise reaches 708 λ_n
(:data:`crowdpriv.release.LAPLACE_REACH`): every output must stay reachable from every input,
so B_k is capped at (708 λ_n − Λ)/2; at a large ε (λ_n small against the spread of b) the cap
clamps inputs, a cost in utility, none in privacy (a clamp moves neighbours no further apart).

Exact ε for a changed answer value (T_i fixed, so G_i fixed). One answer a_j moving by at most
|Γ| − 1 moves coordinate k of b by at most Δ_kj = (|Γ| − 1)|v_kj|. Mironov (CCS 2012)
Theorem 1 for coordinate k with sensitivity Δ_kj: Δ_kj/λ_n + 2^−49 B_k/λ_n. The d coordinates
draw independent noise, so their costs add (basic composition), and the worst task gives

    ε* = ((|Γ| − 1) max_j ‖v_j‖₁ + S)/λ_n + d 2^−49 B/λ_n ≈ ε (|Γ| − 1) l1/|Γ|,

with B ≥ every B_k (:func:`mf_snapped_bound`: n l1 for Σ_j |v_kj|) and S a bound on the
floating point of the inputs the theorem sees, fl(fl(b_k) − c_k) for two neighbours, summed
over k: b_k is a float64 dot product of n terms (error ≤ γ_n Σ_j |a_j v_kj|, γ_n = n u/(1 − n u),
u = 2^−53, in any summation order), and the centring adds at most u (|b_k − c_k| + ...) per
value: S = 2 γ_{n+1} (|Γ| − 1) n l1 + 2 d u (1 + u) ((|Γ| − 1)/2 n l1 + 10 λ_n)
(:func:`mf_snapped_epsilon`; l1 with a relative slack 2^−40). V must satisfy
‖v_j‖₁ ≤ l1 (1 + 2^−40), which V drawn by :func:`crowdpriv.mechanisms.mf.draw_task_profiles`
does (its rounding is below (d + 2) u); the sampler refuses any other V. Theorem 1 assumes a
correctly rounded log, which the C library's is not proved to be (:mod:`crowdpriv.release`).

Not covered. A NULL that becomes an answer changes T_i, hence G_i and the solve itself, and
u then has no bounded density ratio (LDP-sparse Definition 2.1's NULL neighbours): the
guarantee under that definition stays ∞. The floating point is safe: the released r lies on a
grid both neighbours reach; the solve and u_iᵀV are post-processing of r.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import ParameterError
from ..release import LAPLACE_REACH, LOG_CAVEAT, snap, snapping_grid, standard_laplace
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, Perturbed
from ._codes import check_epsilon
from .lp import CELL_NEIGHBOURS
from .mf import MF, MFPrepared, MFSettings, mf_prepare

__all__ = ["MFSnapped", "mf_snapped_bound", "mf_coordinate_bounds", "mf_snapped_epsilon",
           "mf_snapped_rhs", "MF_CLAMP_SCALES", "PROFILE_NORM_SLACK"]

#: Noise scales between the largest |b_k − c_k| and the clamp bound B.
MF_CLAMP_SCALES = 10.0
#: Relative slack allowed on ‖v_j‖₁ ≤ l1 (the rounding of V's normalisation).
PROFILE_NORM_SLACK = 2.0**-40
_U = 2.0**-53


def _reach_cap(scale: float) -> float:
    """The largest clamp the sampler's noise reaches from every input: (708 λ − Λ)/2, with the
    margin of :func:`crowdpriv.release.snapping_reaches`."""
    return (LAPLACE_REACH * scale * (1.0 - 2.0**-40) - snapping_grid(scale)) / 2.0


def mf_snapped_bound(epsilon: float, domain: int, n_tasks: int, l1_norm: float) -> float:
    """The largest clamp bound of any coordinate, B = min((|Γ| − 1)/2 · n · l1 (1 + 2^−40) +
    10 λ, (708 λ − Λ)/2), λ = |Γ|/ε: what the guarantee's Theorem 1 term uses."""
    scale = domain / epsilon
    spread = (domain - 1) / 2.0 * n_tasks * l1_norm * (1.0 + PROFILE_NORM_SLACK)
    return min(spread + MF_CLAMP_SCALES * scale, _reach_cap(scale))


def mf_coordinate_bounds(profiles, domain: int, epsilon: float) -> np.ndarray:
    """B_k = min((|Γ| − 1)/2 · Σ_j |v_kj| + 10 λ, (708 λ − Λ)/2) per coordinate (public: V)."""
    scale = domain / epsilon
    spread = (domain - 1) / 2.0 * np.abs(np.asarray(profiles, dtype=np.float64)).sum(axis=-1)
    return np.minimum(spread + MF_CLAMP_SCALES * scale, _reach_cap(scale))


def mf_snapped_epsilon(epsilon: float, domain: int, n_tasks: int, d: int,
                       l1_norm: float) -> float:
    """ε* of the snapped MF release for a changed answer value (T_i fixed): Mironov's Theorem 1
    in each of the d coordinates, composed (module docstring)."""
    k, n = int(domain), int(n_tasks)
    lam = k / float(epsilon)
    bound = mf_snapped_bound(epsilon, k, n, l1_norm)
    norm = l1_norm * (1.0 + PROFILE_NORM_SLACK)
    spread = (k - 1) / 2.0 * n * norm + MF_CLAMP_SCALES * lam
    gamma = (n + 1) * _U / (1.0 - (n + 1) * _U)
    slack = 2.0 * gamma * (k - 1) * n * norm + 2.0 * d * _U * (1.0 + _U) * spread
    return ((k - 1) * norm + slack) / lam + d * 2.0**-49 * bound / lam


def _centre(profiles, domain: int) -> np.ndarray:
    """c_k = (|Γ| − 1)/2 · Σ_j v_kj (public: V only)."""
    return (domain - 1) / 2.0 * np.asarray(profiles, dtype=np.float64).sum(axis=-1)


def mf_snapped_rhs(prepared: MFPrepared, draws, epsilon, settings) -> np.ndarray:
    """r = c + snap(b − c) per worker and coordinate (shape (..., m, d)) from standard Laplace
    ``draws`` of that shape (ε-free, :func:`crowdpriv.release.standard_laplace`; the noise is
    λ times them), each coordinate clamped to its own B_k (:func:`mf_coordinate_bounds`)."""
    eps = float(check_epsilon(epsilon))
    v = prepared.profiles
    k = prepared.domain_size
    norms = np.abs(v).sum(axis=0)
    if (norms > settings.l1_norm * (1.0 + PROFILE_NORM_SLACK)).any():
        raise ParameterError("profiles", float(norms.max()),
                             f"mf-snapped needs ‖v_j‖₁ ≤ l1_norm = {settings.l1_norm:g} for "
                             f"every task (its guarantee assumes it), got {norms.max()!r}")
    scale = k / eps
    centre = _centre(v, k)
    bound = mf_coordinate_bounds(v, k, eps)
    return centre + snap(prepared.rhs - centre, np.asarray(draws) * scale, scale, bound=bound)


class MFSnapped(MF):
    """MF whose noisy b − η is released by the snapping mechanism and solved as
    post-processing: what ``crowdpriv perturb mf`` runs."""

    id = "mf-snapped"
    label = "MF release (snapped)"
    #: The privacy audit's claim (family of neighbours) of this sampler.
    CLAIM = "MF release (snapped): ε-cell LDP (Theorem 4)"
    aliases = ()
    summary = "MF (Eq. 9-10) with b − η snapped per coordinate (Mironov 2012), solve after"
    Settings = MFSettings
    parts = frozenset({"sweep", "release", "audit", "law"})
    float_safe = True
    release_with = None

    release = Mechanism.release  # the dense output in float64 from the codes' sampler

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        """Standard Laplace per worker and coordinate, drawn as Theorem 1 assumes."""
        return standard_laplace(rng, state.rhs.shape)

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        states, all_draws = ([state], [draws]) if isinstance(state, MFPrepared) else (state,
                                                                                       draws)
        us = [np.einsum("...ij,...j->...i", prep.solver, mf_snapped_rhs(prep, d, epsilon,
                                                                        settings))
              for prep, d in zip(states, all_draws)]
        if isinstance(state, MFPrepared):
            return Perturbed(factors=(us[0], state.profiles))
        return Perturbed(factors=(np.stack(us), np.stack([p.profiles for p in states])))

    def exact_epsilon(self, settings, epsilon, domain_size, n_tasks) -> float:
        """ε* for a changed answer value, T_i fixed (:func:`mf_snapped_epsilon`)."""
        return mf_snapped_epsilon(epsilon, domain_size, n_tasks, settings.d, settings.l1_norm)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        return {"parameters": {"snapping_grid": snapping_grid(domain_size / epsilon)}}

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell of a worker (ε-cell LDP)",
                       "LDP-sparse Theorem 4 (Eq. 9-10), b − η by Mironov's snapping "
                       "mechanism", CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        value = self.exact_epsilon(settings, epsilon, domain_size, shape.tasks)
        bound = mf_snapped_bound(epsilon, domain_size, shape.tasks, settings.l1_norm)
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule="the worker's one released vector u_iᵀV, for any change of his row "
                        "(values and NULL pattern)",
            ideal_record_epsilon=float("inf"), float_safe=True,
            basis=(f"a changed answer value (T_i fixed): ε* = {value:.17g} exactly (Mironov "
                   f"2012 Theorem 1 in each of the d = {settings.d} coordinates of b, "
                   f"sensitivity (|Γ| − 1)|v_kj|, clamps B_k ≤ {bound:g}, grid "
                   f"{snapping_grid(domain_size / epsilon):g}, composed; "
                   "crowdpriv.mechanisms.mf_snapped); the solve is post-processing. A NULL "
                   "that becomes an answer changes G_i, hence the solve: the densities of u "
                   "differ by an unbounded factor, so Definition 2.1's NULL neighbours get "
                   "ε = ∞ in exact arithmetic as well"),
            caveats=(LOG_CAVEAT,
                     "a change between NULL and an answer is not covered (Theorem 4's proof "
                     "holds T_i fixed)",
                     f"a changed answer value costs ε* = {value:.6g} (snapped b − η, exact)"))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "LDP-sparse Theorem 4 (Eq. 9-10): objective-perturbed matrix "
                           "factorisation, the noisy b − η released by Mironov's snapping "
                           "mechanism (CCS 2012, Theorem 1) and solved after",
                "unit": "per answer (cell) of a worker",
                "sampler": (f"b − η per coordinate: centred on (|Γ| − 1)/2 Σ_j v_kj, clamped "
                            f"to ± B, Lap(|Γ|/ε), snapped to multiples of "
                            f"{snapping_grid(domain_size / epsilon):g}"),
                "covers": ["a change of one answered cell's value (the worker's answered "
                           "tasks fixed), with the exact ε of the sampler (see the guarantee)"],
                "not_covered": ["a change between NULL and an answer changes MF's solve: no "
                                "finite ε holds for it (LDP-sparse Definition 2.1 includes "
                                "it), so the guarantee per cell is ∞",
                                "a worker's whole answer vector"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        """One worker's row of 4d tasks (V, then the values of his first 2d answered tasks,
        drawn from ``default_rng(0)``); the first task is 0 in D and |Γ| − 1 (or NULL) in D′;
        the statistic is the released value of that task."""
        from ..audit import Case

        k = int(domain_size)
        d = int(settings.d)
        n_tasks = 4 * d
        top = float(k - 1)

        def cell(answered, change_to_null=False):
            rng0 = np.random.default_rng(0)
            v = self.profiles(n_tasks, settings, rng=rng0)
            base = np.full(n_tasks, np.nan)
            base[:answered] = rng0.integers(0, k, answered)
            d_vec, d2_vec = base.copy(), base.copy()
            d_vec[0] = 0.0
            d2_vec[0] = np.nan if change_to_null else top
            preps = {w: mf_prepare(vec[None], v, domain_size=k, ridge=settings.ridge,
                                   rcond=settings.rcond)
                     for w, vec in (("D", d_vec), ("D'", d2_vec))}

            def sample(rng, n, which):
                prep = preps[which]
                tiled = MFPrepared(np.repeat(prep.solver, n, axis=0),
                                   np.repeat(prep.rhs, n, axis=0), prep.profiles, k)
                draws = self.draws(None, settings, rng=rng, domain_size=k, state=tiled)
                out = self.apply(None, draws, epsilon, settings, domain_size=k, state=tiled)
                return out.dense(np.float64)[:, 0]
            return sample

        exact = self.exact_epsilon(settings, epsilon, k, n_tasks)
        return [
            Case("ldp_sparse", self.label, f"one answered cell, 0 vs |Γ|-1, |T_i| = {2 * d} >= d",
                 epsilon, 0.0, cell(2 * d), exact_epsilon=exact, family=self.CLAIM,
                 float_safe=True, note="b − η snapped per coordinate: Theorem 1 composed over d"),
            Case("ldp_sparse", self.label, f"one cell, answered 0 vs NULL, |T_i| = {2 * d}",
                 epsilon, 0.0, cell(2 * d, change_to_null=True), family=self.CLAIM,
                 float_safe=True,
                 note="a NULL changes T_i, hence G_i and the solve itself: not covered"),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        """One worker answering all 3d tasks (V, then his answers, drawn from
        ``default_rng(1)``): coordinates 0 and d − 1 of b − η, recovered from the output
        (r = (G + λI) u) and centred, follow Lap(|Γ|/ε) snapped to the multiples of Λ and
        clamped to ± B_k. A recovered value counts as the nearest value of the support (a
        multiple of Λ or ± B_k); one farther than Λ/4 from it is NaN (outside every support,
        so the check fails)."""
        from scipy import stats

        k = int(domain_size)
        d = int(settings.d)
        n_tasks = 3 * d
        rng0 = np.random.default_rng(1)
        v = self.profiles(n_tasks, settings, rng=rng0)
        row = rng0.integers(0, k, n_tasks).astype(np.int8)[None]  # every task answered
        prep = self.prepare(row, settings, domain_size=k, profiles=v)
        scale = k / float(epsilon)
        grid = 2.0 ** math.ceil(math.log2(scale))  # written here, not read from the sampler
        # each coordinate's clamp: half its answers' range plus ten scales, within the reach
        reach = (LAPLACE_REACH * scale * (1.0 - 2.0**-40) - grid) / 2.0
        bounds = np.minimum((k - 1) / 2.0 * np.abs(v).sum(axis=1) + 10.0 * scale, reach)
        centre = (k - 1) / 2.0 * v.sum(axis=1)
        gram = np.linalg.inv(prep.solver[0])

        def coordinate(j):
            bound = bounds[j]
            x = np.clip(prep.rhs[0, j] - centre[j], -bound, bound)
            lo_j, hi_j = np.floor(-bound / grid) - 1, np.ceil(bound / grid) + 1
            points = grid * np.arange(lo_j, hi_j + 1)
            edges = np.concatenate([[-np.inf], points[:-1] + grid / 2, [np.inf]])
            mass = np.diff(stats.laplace.cdf(edges, loc=x, scale=scale))
            values = np.clip(points, -bound, bound)
            support = np.unique(values)
            probs = np.array([mass[values == s].sum() for s in support])

            def sample(rng, n):
                tiled = MFPrepared(np.repeat(prep.solver, n, axis=0),
                                   np.repeat(prep.rhs, n, axis=0), prep.profiles, k)
                draws = self.draws(None, settings, rng=rng, domain_size=k, state=tiled)
                u, _ = self.apply(None, draws, epsilon, settings, domain_size=k,
                                  state=tiled).factors
                r = u @ gram.T  # b − η as released, recovered from the output
                snapped = r[:, j] - centre[j]
                # the nearest value of the support: a multiple of Λ, or ± B at a clamp (which
                # need not be a multiple of Λ)
                i = np.clip(np.searchsorted(support, snapped), 1, len(support) - 1)
                below, above = support[i - 1], support[i]
                nearest = np.where(snapped - below <= above - snapped, below, above)
                return np.where(np.abs(nearest - snapped) < grid / 4, nearest, np.nan)
            return LawCheck(f"coordinate {j} of b − η: Lap(|Γ|/ε) snapped to multiples of Λ",
                            sample, support=support, probabilities=probs)

        return [coordinate(0), coordinate(d - 1)]
