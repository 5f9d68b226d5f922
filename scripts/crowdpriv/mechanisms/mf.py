"""MF: matrix-factorisation perturbation (LDP-sparse Sec. V, Eq. 9-10, Alg. 2, Theorem 4).

The data curator draws a task profile matrix V (d × n, ‖v_j‖₁ ≤ 1) independently of the
answers; each worker minimises the objective-perturbed loss
L_DP = Σ_{j∈T_i} (a_ij − uᵀv_j)² + 2uᵀη_i (+ λ‖u‖²), η_i ~ Lap(|Γ|/ε)^d, in closed form, and
sends u_iᵀV (dense). Truth inference reads the factors (U, V) without forming U·V.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import (
    ParameterError,
    check_in_interval,
    check_int_at_least,
    check_nonnegative,
)
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, Perturbed, setting
from ._codes import check_domain_answers, check_epsilon
from .lp import CELL_NEIGHBOURS

__all__ = ["MF", "MFSettings", "PROFILE_SIGNS", "MFPrepared", "draw_task_profiles",
           "mf_prepare", "mf_draws", "mf_apply", "mf_worker_profiles", "mf_perturb_prepared",
           "mf_perturb", "mf_objective", "mf_value_epsilon"]

#: Signs of MF's task profiles V: ``nonnegative`` (U(0, 1) entries) or ``signed`` (U(-1, 1)).
PROFILE_SIGNS = ("nonnegative", "signed")


@dataclass(frozen=True)
class MFSettings:
    """MF's settings: factorisation parameter ``d``; ``ridge`` λ ≥ 0 (0: the exact /
    minimum-norm minimiser of Eq. 9); ``l1_norm`` ‖v_j‖₁ ≤ 1 of V's columns; ``profiles``: signs
    of V's entries (:data:`PROFILE_SIGNS`); ``rcond``: eigenvalues below it times the largest
    are dropped in a singular solve."""

    d: int = setting(10, "factorisation parameter d (columns of V)")
    ridge: float = setting(0.0, "ridge λ ≥ 0 of the worker's loss (0: Eq. 9 exactly)")
    l1_norm: float = setting(1.0, "‖v_j‖₁ of V's columns, at most 1 (Sec. V)")
    profiles: str = setting("nonnegative", "signs of V's entries", choices=PROFILE_SIGNS)
    rcond: float = setting(1e-8, "relative eigenvalue cut of a singular solve")

    def __post_init__(self):
        check_int_at_least("d", self.d, 1)
        check_nonnegative("ridge", self.ridge)
        check_in_interval("l1_norm", self.l1_norm, 0.0, 1.0, closed_low=False, closed_high=True)
        if self.profiles not in PROFILE_SIGNS:
            raise ParameterError("profiles", self.profiles,
                                 f"profiles must be one of {PROFILE_SIGNS}, got "
                                 f"{self.profiles!r}")
        check_nonnegative("rcond", self.rcond)


def draw_task_profiles(n_tasks: int, d: int, *, rng, l1_norm: float = 1.0,
                       signs: str = "nonnegative"):
    """Data-independent task profile matrix V (d x n) with ‖v_j‖₁ = ``l1_norm`` ≤ 1 (Sec. V).

    ``signs="nonnegative"`` (default): entries are U(0, 1) draws, each column rescaled to the
    given 1-norm. Non-negative columns with equal 1-norm let u = c·(d/l1_norm)·1 reproduce a
    constant answer c exactly, i.e. the factorisation can carry a worker's typical answer to
    the tasks he left NULL. ``signs="signed"``: U(−1, 1) entries, rescaled the same way; the
    paper only requires ‖v_j‖₁ ≤ 1 (Sec. V), so both are within its text (a reading axis).
    The same uniform draws are used by both, so the two readings share V's magnitudes.
    """
    n = check_int_at_least("n_tasks", n_tasks, 1)
    d = check_int_at_least("d", d, 1)
    l1 = check_in_interval("l1_norm", l1_norm, 0.0, 1.0, closed_low=False, closed_high=True)
    if signs not in PROFILE_SIGNS:
        raise ValueError(f"profile signs must be one of {PROFILE_SIGNS}, got {signs!r}")
    x = rng.random((d, n)) + np.finfo(float).tiny
    if signs == "signed":
        x = 2.0 * x - 1.0
        x = np.where(x == 0.0, np.finfo(float).tiny, x)
    return x / np.abs(x).sum(0) * l1


@dataclass(frozen=True)
class MFPrepared:
    """Per-worker quantities of MF that do not depend on the noise (reused across ε).

    ``solver`` is the (pseudo-)inverse of G_i + λI with G_i = Σ_{j∈T_i} v_j v_jᵀ, shape
    (..., m, d, d); ``rhs`` is b_i = Σ_{j∈T_i} a_ij v_j, shape (..., m, d); ``profiles`` is V.
    """

    solver: np.ndarray
    rhs: np.ndarray
    profiles: np.ndarray
    domain_size: int


def mf_prepare(answers, profiles, *, domain_size: int, ridge: float = 0.0, rcond: float = 1e-8,
               checked: bool = False, null_code: int | None = None):
    """Set up each worker's closed-form MF solve (LDP-sparse Eq. 9-10).

    Setting the gradient of L_DP = Σ_{j∈T_i}(a_ij − uᵀv_j)² + 2uᵀη_i (+ λ‖u‖²) to zero gives
    (G_i + λI) u = b_i − η_i. Where G_i + λI is positive definite (λ > 0, or |T_i| ≥ d
    answers with V in general position, and its Cholesky factorisation exists) the solver is
    its inverse: the exact minimiser. Where it is singular (e.g. |T_i| < d and λ = 0) L_DP is
    unbounded below along the null space and we return the minimum-norm solution
    (Moore-Penrose pseudo-inverse by eigendecomposition, eigenvalues at or below ``rcond`` x
    the largest, or at or below 1e-300, dropped). Gradient descent as in Alg. 2 reaches the
    same point when it converges. V's columns must satisfy ‖v_j‖₁ ≤ 1 + 1e-9 (Sec. V's bound
    with a slack for the rounding of their normalisation).

    Parameters
    ----------
    answers : array_like, shape (..., m, n)
        ``NaN`` = NULL (excluded from T_i).
    profiles : array_like, shape (d, n)
        Task profile matrix V from :func:`draw_task_profiles`.
    domain_size : int
    ridge : float
        λ ≥ 0. A ridge term leaves the ε-LDP proof of Theorem 4 intact (it cancels in
        η_i − η_j because u is the same).
    rcond : float
    null_code : int, optional
        ``answers`` are label codes (:func:`crowdpriv.mechanisms.answer_codes`) with this code
        for NULL.
    """
    if null_code is not None:
        c = np.asarray(answers)
        mask = c != null_code
        values = np.empty(c.shape)  # the float path's values, exactly: label x 1, NULL x 0
        np.copyto(values, np.multiply(c, mask))
        a = values
    else:
        a = np.asarray(answers) if checked else check_domain_answers(answers, domain_size)
        mask = ~np.isnan(a)
        values = np.where(mask, a, 0.0)
    v = np.asarray(profiles, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != a.shape[-1]:
        raise ValueError(f"profiles must have shape (d, {a.shape[-1]}), got {v.shape}")
    if (np.abs(v).sum(0) > 1 + 1e-9).any():
        raise ValueError("profiles must satisfy ||v_j||_1 <= 1 for every task (LDP-sparse Sec. V)")
    ridge = check_nonnegative("ridge", ridge)
    rcond = check_nonnegative("rcond", rcond)
    d, n = v.shape
    outer = np.einsum("an,bn->nab", v, v).reshape(n, d * d)
    answered = np.empty(mask.shape)
    np.copyto(answered, mask)
    gram = (answered @ outer).reshape(a.shape[:-1] + (d, d))
    del answered
    gram += ridge * np.eye(d)
    rhs = values @ v.T
    return MFPrepared(_mf_solver(gram, mask.sum(-1), d, ridge, rcond), rhs, v, int(domain_size))


def _mf_solver(gram, answered, d, ridge, rcond):
    """(G + λI)⁻¹ where positive definite (a Cholesky factorisation exists: 20x cheaper than
    an eigendecomposition), else the pseudo-inverse (eigenvalues at or below ``rcond`` x the
    largest, or at or below 1e-300, dropped; no division by a dropped one). ``answered`` is |T_i| per worker (below d with λ = 0: singular)."""
    solver = np.zeros_like(gram)
    full = (answered >= d) | (ridge > 0)
    if full.any():
        block = gram[full]
        try:
            np.linalg.cholesky(block)  # raises unless every matrix is positive definite
            solver[full] = np.linalg.inv(block)
        except np.linalg.LinAlgError:
            full = np.zeros_like(full)
    if not full.all():
        w, q = np.linalg.eigh(gram[~full])
        cut = rcond * np.maximum(w[..., -1:], 0.0)
        inv = np.where(w > np.maximum(cut, 1e-300), 1.0 / np.where(w > 0, w, 1.0), 0.0)
        solver[~full] = (q * inv[..., None, :]) @ np.swapaxes(q, -1, -2)
    return solver


def mf_draws(prepared: MFPrepared, *, rng) -> np.ndarray:
    """MF's ε-free draws: standard Laplace η° per worker and factor, shape (..., m, d)."""
    return rng.laplace(0.0, 1.0, size=prepared.rhs.shape)


def mf_apply(prepared: MFPrepared, draws, epsilon) -> np.ndarray:
    """The perturbed worker profiles u_i at ε from :func:`mf_draws`: η_i = (|Γ|/ε)·η°_i
    (Lap(|Γ|/ε)^d, Eq. 9-10) and u_i = (G_i + λI)⁺(b_i − η_i); shape (..., m, d)."""
    eps = float(check_epsilon(epsilon))
    eta = draws * (prepared.domain_size / eps)
    return np.einsum("...ij,...j->...i", prepared.solver, prepared.rhs - eta)


def mf_worker_profiles(prepared: MFPrepared, epsilon, *, rng):
    """The perturbed worker profiles u_i of MF (LDP-sparse Eq. 9-10): draw η_i ~ Lap(|Γ|/ε)^d
    and solve (G_i + λI) u_i = b_i − η_i. Returns ``(u, η)``, shapes (..., m, d).

    (:func:`mf_draws` then :func:`mf_apply`; numpy's ``laplace(0, b)`` is b times its
    ``laplace(0, 1)``, so the draws are those of ``rng.laplace(0, |Γ|/ε)``.)
    """
    eps = float(check_epsilon(epsilon))
    draws = mf_draws(prepared, rng=rng)
    return mf_apply(prepared, draws, eps), draws * (prepared.domain_size / eps)


def mf_perturb_prepared(prepared: MFPrepared, epsilon, *, rng, dtype=np.float32, return_u=False):
    """MF perturbation from :func:`mf_prepare`: draw η_i ~ Lap(|Γ|/ε)^d, solve, send u_iᵀV.

    LDP-sparse Eq. 9-10 and Alg. 2 (closed form instead of gradient descent). The output is a
    dense (..., m, n) matrix (:func:`mf_worker_profiles` gives the factor alone). With
    ``return_u`` also returns (u, η).
    """
    u, eta = mf_worker_profiles(prepared, epsilon, rng=rng)
    out = (u.astype(dtype) @ prepared.profiles.astype(dtype)).astype(dtype, copy=False)  # pragma: no mutate  (equivalent: copy=True copies a fresh product nobody else holds; same values, dtype)
    return (out, u, eta) if return_u else out


def mf_perturb(
    answers, epsilon, *, rng, domain_size: int, d: int = 10, profiles=None, ridge=0.0,
    l1_norm=1.0, dtype=np.float32,
):
    """Matrix-factorisation perturbation (LDP-sparse Sec. V, Eq. 9-10, Alg. 2).

    The data curator draws V (:func:`draw_task_profiles`, unless ``profiles`` is given), each
    worker minimises the objective-perturbed loss and sends u_iᵀV (dense).
    """
    a = check_domain_answers(answers, domain_size)
    if profiles is None:
        profiles = draw_task_profiles(a.shape[-1], d, rng=rng, l1_norm=l1_norm)
    prep = mf_prepare(a, profiles, domain_size=domain_size, ridge=ridge)
    return mf_perturb_prepared(prep, epsilon, rng=rng, dtype=dtype)


def mf_objective(answers_row, u, profiles, eta, *, ridge: float = 0.0) -> float:
    """L_DP(a_i, u, V) of LDP-sparse Eq. 9 for one worker (plus optional λ‖u‖²)."""
    a = np.asarray(answers_row, dtype=np.float64)
    v = np.asarray(profiles, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    t = ~np.isnan(a)
    resid = a[t] - u @ v[:, t]
    return float(resid @ resid + 2.0 * u @ np.asarray(eta) + ridge * u @ u)


def mf_value_epsilon(epsilon: float, domain_size: int, l1_norm: float = 1.0) -> float:
    """Exact ε of MF's u_i between two rows that differ in one answered cell's value, by at
    most |Γ| − 1 (T_i fixed, G_i + λI invertible): u = (G + λI)⁻¹(b − η) is an invertible
    affine map of η, so the ratio is that of Lap(|Γ|/ε)^d shifted by Δb = Δa·v_j, whose
    ‖·‖₁ ≤ (|Γ| − 1)‖v_j‖₁: ε (|Γ| − 1) ‖v_j‖₁ / |Γ|."""
    k = int(domain_size)
    return float(epsilon) * (k - 1) * float(l1_norm) / k


class MF(Mechanism):
    """MF (LDP-sparse Eq. 9-10): objective-perturbed factorisation, u_iᵀV sent."""

    default_inference = "sun"
    id = "mf"
    label = "MF"
    config_keys = {"d": "d", "mf_ridge": "ridge", "mf_l1_norm": "l1_norm",
                   "mf_profiles": "profiles"}
    aliases = ("MF",)
    paper = "ldp_sparse"
    summary = "objective-perturbed matrix factorisation (LDP-sparse Eq. 9-10)"
    Settings = MFSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    float_safe = False
    fills_nulls = False  # a dense vector per worker, not a symbol per cell
    release_with = "mf-snapped"
    null_handling = ("every cell of a worker's row released (u_iᵀV is dense); NULLs are left "
                     "out of the solve, so the NULL pattern is not protected")

    def profiles(self, n_tasks, settings, *, rng):
        """V (d × n) drawn independently of the answers (Sec. V)."""
        return draw_task_profiles(n_tasks, settings.d, rng=rng, l1_norm=settings.l1_norm,
                                  signs=settings.profiles)

    def prepare(self, codes, settings, *, domain_size, rng=None, profiles=None):
        v = self.profiles(np.shape(codes)[-1], settings, rng=rng) if profiles is None \
            else profiles
        return mf_prepare(codes, v, domain_size=domain_size, ridge=settings.ridge,
                          rcond=settings.rcond, null_code=int(domain_size))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return mf_draws(state, rng=rng)

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        if isinstance(state, MFPrepared):
            return Perturbed(factors=(mf_apply(state, draws, epsilon), state.profiles))
        us = [mf_apply(prep, d, epsilon) for prep, d in zip(state, draws)]
        return Perturbed(factors=(np.stack(us), np.stack([p.profiles for p in state])))

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell of a worker (ε-cell LDP)",
                       "LDP-sparse Theorem 4 (Eq. 9-10)", CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        value = mf_value_epsilon(epsilon, domain_size, settings.l1_norm)
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule="the worker's one released vector u_iᵀV, for any change of his row "
                        "(values and NULL pattern)",
            ideal_record_epsilon=float("inf"), float_safe=False,
            basis=(f"a changed answer value (T_i fixed): {value:.6g} exactly in exact "
                   "arithmetic (mf_value_epsilon; Theorem 4's proof); a NULL that becomes an "
                   "answer changes G_i, hence the solve: the densities of u then differ by an "
                   "unbounded factor (or in support when G_i is singular), so Definition "
                   "2.1's NULL neighbours get ε = ∞; the Laplace η is a float64 sample"),
            caveats=("a change between NULL and an answer is not covered (Theorem 4's proof "
                     "holds T_i fixed)",
                     "objective perturbation has no floating-point-safe sampler"))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "LDP-sparse Theorem 4 (Eq. 9-10): objective-perturbed matrix "
                           "factorisation",
                "unit": "per answer (cell) of a worker",
                "covers": [f"a change of one answered cell's value: "
                           f"{mf_value_epsilon(epsilon, domain_size, settings.l1_norm):.4g} in "
                           "exact arithmetic"],
                "not_covered": ["a change between NULL and an answer changes MF's solve (not "
                                "covered by Theorem 4; the audit finds ε above the claim)",
                                "objective perturbation has no floating-point-safe sampler"]}

    #: The family of the claim (Theorem 4) in the audit.
    CLAIM = "MF: ε-cell LDP (Theorem 4)"

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        """One worker's row (4d tasks; V, then the values of the first |T_i| tasks, drawn from
        ``default_rng(0)``; the changed cell is the first): a changed answer with |T_i| ≥ d and
        (for d > 1: an answered cell makes |T_i| ≥ 1) < d, an answer that becomes NULL, and
        (outside Definition 2.1, composition beside) all his answers changed. Statistics: the released value of the changed task, and where
        (G + λI) is invertible for both inputs the exact log likelihood ratio of u_i:
        η = b − (G + λI)u, so log p_D(u) − log p_D'(u) = (ε/|Γ|)(‖η'‖₁ − ‖η‖₁) +
        log|det(G + λI)| − log|det(G' + λI)|."""
        from ..audit import Case

        k = int(domain_size)
        d = int(settings.d)
        top = float(k - 1)
        scale = k / float(epsilon)

        def rows(n_tasks, answered, change):
            rng0 = np.random.default_rng(0)
            v = self.profiles(n_tasks, settings, rng=rng0)
            base = np.full(n_tasks, np.nan)
            base[:answered] = rng0.integers(0, k, answered)
            d_vec, d2_vec = base.copy(), base.copy()
            if change == "all":
                d_vec[:answered], d2_vec[:answered] = 0.0, top
            else:
                d_vec[0] = 0.0
                d2_vec[0] = np.nan if change == "null" else top
            return v, {"D": d_vec, "D'": d2_vec}

        def mf_case(n_tasks, answered, change="value", likelihood_ratio=False):
            v, vecs = rows(n_tasks, answered, change)
            preps = {w: mf_prepare(vec[None], v, domain_size=k, ridge=settings.ridge,
                                   rcond=settings.rcond) for w, vec in vecs.items()}
            grams = {w: np.linalg.inv(p.solver[0]) for w, p in preps.items()} \
                if likelihood_ratio else {}

            def sample(rng, n, which):
                prep = preps[which]
                tiled = MFPrepared(np.repeat(prep.solver, n, axis=0),
                                   np.repeat(prep.rhs, n, axis=0), prep.profiles,
                                   prep.domain_size)
                draws = self.draws(None, settings, rng=rng, domain_size=k, state=tiled)
                out = self.apply(None, draws, epsilon, settings, domain_size=k, state=tiled)
                if not likelihood_ratio:
                    return out.dense(np.float64)[:, 0]
                u = out.factors[0]
                log_p = {}
                for w, p in preps.items():
                    eta = p.rhs[0] - u @ grams[w].T
                    log_p[w] = (-np.abs(eta).sum(axis=1) / scale
                                + np.linalg.slogdet(grams[w])[1])
                return log_p["D"] - log_p["D'"]
            return sample

        value = mf_value_epsilon(epsilon, k, settings.l1_norm)
        lr = "log likelihood ratio of u_i"
        row = max(2 * d, min(shape.max_records_per_worker, 200)) if shape is not None else 2 * d
        cases = [
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs |Γ|-1, |T_i| = {2 * d} >= d", epsilon, 0.0, mf_case(4 * d, 2 * d), family=self.CLAIM, exact_epsilon=value,
                 note="(G + λI) invertible: u is an invertible affine map of η"),
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs |Γ|-1, |T_i| = {2 * d} >= d (likelihood ratio)",
                 epsilon, 0.0, mf_case(4 * d, 2 * d, likelihood_ratio=True), statistic=lr,
                 exact_epsilon=value, family=self.CLAIM),
            # a worker with fewer than d answers (singular G_i): none has an answered cell at d = 1
            *([Case("ldp_sparse", self.label,
                    f"one answered cell, 0 vs |Γ|-1, |T_i| = {d // 2} < d",
                    epsilon, 0.0, mf_case(4 * d, d // 2), family=self.CLAIM)] if d > 1 else []),
            Case("ldp_sparse", self.label, f"one cell, answered 0 vs NULL, |T_i| = {2 * d}",
                 epsilon, 0.0, mf_case(4 * d, 2 * d, "null"), family=self.CLAIM,
                 note="a NULL changes T_i, hence G_i and the solve itself; Theorem 4's proof "
                      "(η_i − η_j cancels for a fixed T_i) covers a changed answer, not this"),
            Case("ldp_sparse", self.label,
                 f"one cell, answered 0 vs NULL, |T_i| = {2 * d} (likelihood ratio)",
                 epsilon, 0.0, mf_case(4 * d, 2 * d, "null", likelihood_ratio=True),
                 statistic=lr, family=self.CLAIM,
                 note="the densities of u differ by a factor unbounded in u: ε = ∞ in exact "
                      "arithmetic; the sample shows what it can resolve"),
            Case("ldp_sparse", self.label,
                 f"a worker's whole row of {row} answers, all 0 vs all |Γ|-1 (likelihood "
                 "ratio)", epsilon, 0.0, mf_case(2 * row, row, "all", likelihood_ratio=True),
                 statistic=lr, claimed=False, family=self.CLAIM,
                 composition=f"{row} cells × {value:.4g} = {row * value:.4g} by basic "
                             "composition"),
        ]
        return cases

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        k = int(domain_size)
        d = int(settings.d)
        n_tasks = 3 * d
        rng0 = np.random.default_rng(1)  # pragma: no mutate  (equivalent: the law's statistic η = b − (G + λI)u is the noise itself, up to rounding, whatever V and the row with G invertible)
        v = self.profiles(n_tasks, settings, rng=rng0)
        row = rng0.integers(0, k, n_tasks).astype(np.int8)[None]  # every task answered  # pragma: no mutate  (equivalent: η recovered does not depend on the answers, up to rounding)
        prep = self.prepare(row, settings, domain_size=k, profiles=v)

        def eta(rng, n):
            tiled = MFPrepared(np.repeat(prep.solver, n, axis=0), np.repeat(prep.rhs, n, axis=0),
                               prep.profiles, prep.domain_size)
            draws = self.draws(None, settings, rng=rng, domain_size=k, state=tiled)
            u, _ = self.apply(None, draws, epsilon, settings, domain_size=k, state=tiled).factors
            # η = b − (G + λI) u: recovered from the output, whatever the sampler did
            g = np.linalg.inv(prep.solver[0])
            return (prep.rhs[0] - u @ g.T).ravel()

        return [LawCheck("η_i recovered from u_i: Lap(|Γ|/ε) in each of d coordinates", eta,
                         cdf=stats.laplace(scale=k / float(epsilon)).cdf)]

    def release(self, answers, epsilon, settings, *, rng, domain_size=None):
        a = check_domain_answers(np.asarray(answers, dtype=np.float32), domain_size)
        v = self.profiles(a.shape[1], settings, rng=rng)
        prep = mf_prepare(a, v, domain_size=domain_size, ridge=settings.ridge,
                          rcond=settings.rcond)
        out = self.apply(None, self.draws(None, settings, rng=rng, domain_size=domain_size,
                                          state=prep), epsilon, settings,
                         domain_size=domain_size, state=prep)
        return out.dense(np.float32).astype(np.float64)
