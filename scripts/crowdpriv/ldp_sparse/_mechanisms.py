"""The four LDP perturbations of LDP-sparse: LP (Eq. 6-7), RR (Eq. 8), MF (Eq. 9-10, Alg. 2)
and the 2-Layer baseline (Sec. VI-A, after Li et al. KDD 2018).

Every mechanism maps a worker x task answer matrix (``NaN`` = NULL, values in
Γ = {0, 1, ..., K-1}; leading batch axes allowed) to a perturbed matrix of the same shape.

The experiments hold answers as int8 *label codes* instead (:func:`answer_codes`: the label, or
K for NULL; 1 byte per cell instead of 4) and call the ``*_codes`` samplers, which the float
functions wrap: the same random draws in the same order, so both give the same output for the
same generator state. RR and 2-Layer return codes (their output alphabet is Γ ∪ {NULL}).

Every sampler is split into its ε-free draws (``*_draws``: LP's NULL fill and standard Laplace
noise, RR's uniforms, 2-Layer's budget multipliers, MF's standard Laplace η) and a cheap
deterministic map of those draws at a given ε (``*_apply``). A sweep over ε draws once and
applies the map per ε: common random numbers (the same draws at every ε of a repetition), so
the ε sweep costs one draw instead of one per ε and the paired comparisons across ε that the
claims make isolate the effect of ε. Each ε still gets exactly its mechanism's distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crowdpriv._checks import (
    check_in_interval,
    check_int_at_least,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "check_domain_answers",
    "answer_codes",
    "codes_to_answers",
    "lp_perturb",
    "lp_perturb_codes",
    "lp_draws",
    "lp_apply",
    "rr_perturb_codes",
    "rr_draws",
    "rr_apply",
    "two_layer_perturb_codes",
    "two_layer_draws",
    "two_layer_apply",
    "mf_draws",
    "mf_apply",
    "laplace_noise",
    "rr_keep_probability",
    "rr_perturb",
    "two_layer_epsilons",
    "two_layer_perturb",
    "draw_task_profiles",
    "PROFILE_SIGNS",
    "MFPrepared",
    "mf_prepare",
    "mf_worker_profiles",
    "mf_perturb_prepared",
    "mf_perturb",
    "mf_objective",
]


def _check_epsilon(epsilon):
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.ndim == 0:
        check_positive("epsilon", float(eps))
    elif not (np.isfinite(eps).all() and (eps >= 0).all()):
        raise ValueError(f"epsilon must be finite and >= 0 per worker, got {eps!r}")
    return eps


def check_domain_answers(answers, domain_size: int) -> np.ndarray:
    """Return answers as an array after checking they are NULL (NaN) or integers in Γ.

    The mechanisms run it unless told ``checked=True`` by a caller that already did (the
    experiments check each chunk of repetitions once, not once per mechanism and ε).

    Γ = {0, ..., domain_size-1} (LDP-sparse Sec. III-A: synthetic 0..9, real 0..4).
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    a = np.asarray(answers)
    if a.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {a.ndim}")
    vals = a[~np.isnan(a)]
    bad = (vals < 0) | (vals > k - 1) | (vals != np.round(vals))
    if bad.any():
        raise ValueError(
            f"answers must be NULL (NaN) or integers in [0, {k - 1}] (domain_size={k}); "
            f"found {vals[bad][0]!r}"
        )
    return a


def answer_codes(answers, domain_size: int, *, checked: bool = False) -> np.ndarray:
    """Int8 label codes of an answer matrix: the label for an answer, ``domain_size`` (|Γ|) for
    NULL. Checks the answers (:func:`check_domain_answers`) unless ``checked``."""
    k = check_int_at_least("domain_size", domain_size, 2)
    if k > 63:
        raise ValueError(f"label codes hold |Γ| <= 63, got domain_size={k}")
    a = np.asarray(answers) if checked else check_domain_answers(answers, k)
    if a.dtype.kind in "iub":
        return a.astype(np.int8)
    return np.where(np.isnan(a), k, a).astype(np.int8)


def codes_to_answers(codes, domain_size: int, *, dtype=np.float32) -> np.ndarray:
    """The answer matrix of :func:`answer_codes`' codes (``NaN`` for the NULL code)."""
    c = np.asarray(codes)
    out = c.astype(dtype)
    out[c == int(domain_size)] = np.nan
    return out


def lp_perturb(answers, epsilon, *, rng, domain_size: int, null_fill="uniform", dtype=np.float32,
               checked: bool = False):
    """Laplace perturbation with NULL replacement (LDP-sparse Eq. 6-7, Theorem 1).

    Each NULL is replaced by v (``null_fill="uniform"``: a uniform random answer in Γ, the
    paper's experimental choice; a number: that constant in Γ), then Lap(|Γ|/ε) noise is added to
    every cell, so the output is dense.

    Parameters
    ----------
    answers : array_like, shape (..., m, n)
    epsilon : float
        Privacy budget ε > 0.
    rng : numpy.random.Generator
    domain_size : int
        |Γ| (the Laplace scale is |Γ|/ε as printed in Eq. 7).
    null_fill : "uniform" or float
    """
    codes = answer_codes(answers, domain_size, checked=checked)
    return lp_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size, null_fill=null_fill,
                            dtype=dtype)


def lp_perturb_codes(codes, epsilon, *, rng, domain_size: int, null_fill="uniform",
                     dtype=np.float32):
    """:func:`lp_perturb` on label codes (:func:`answer_codes`); a dense ``dtype`` output:
    :func:`lp_apply` of :func:`lp_draws`."""
    eps = float(_check_epsilon(epsilon))
    draws = lp_draws(codes, rng=rng, domain_size=domain_size, null_fill=null_fill, dtype=dtype)
    return lp_apply(draws, eps, domain_size=domain_size)


def lp_draws(codes, *, rng, domain_size: int, null_fill="uniform", dtype=np.float32, out=None):
    """LP's ε-free draws for label codes: ``(filled, noise)``, the answer or (for NULL) its
    replacement v (``null_fill="uniform"``: uniform in Γ, drawn for every cell first; a number:
    that constant) and standard Laplace noise (:func:`laplace_noise` with scale 1). ``out``:
    two arrays of the codes' shape and ``dtype`` to fill (e.g. slices of a stack)."""
    c = np.asarray(codes)
    k = int(domain_size)
    if isinstance(null_fill, str):
        if null_fill != "uniform":
            raise ValueError(f"null_fill must be 'uniform' or a number in Γ, got {null_fill!r}")
        # the smallest integer type holding Γ: a quarter of the bytes (and time) of int64 draws
        fill = rng.integers(0, k, size=c.shape, dtype=np.min_scalar_type(k - 1))
        # c + [c = NULL]·(v − |Γ|): the answer, or v where NULL (integer arithmetic)
        replaced = np.multiply(c == k, fill.astype(c.dtype, copy=False) - c.dtype.type(k))
        replaced += c
    else:
        check_in_interval("null_fill", null_fill, 0, k - 1, closed_high=True)
        replaced = np.where(c == k, dtype(null_fill), c)
    filled, noise = out if out is not None else (np.empty(c.shape, dtype), None)
    np.copyto(filled, replaced)  # in the output's type once, for every ε
    return filled, laplace_noise(rng, c.shape, 1.0, dtype=dtype, out=noise)


def lp_apply(draws, epsilon, *, domain_size: int) -> np.ndarray:
    """LP's output at ε from :func:`lp_draws`: filled + (|Γ|/ε)·noise (Eq. 6-7), dense."""
    filled, noise = draws
    eps = float(_check_epsilon(epsilon))
    out = np.multiply(noise, noise.dtype.type(int(domain_size) / eps))
    out += filled  # the answer (or its fill) plus the noise
    return out


def laplace_noise(rng, shape, scale: float, *, dtype=np.float32, out=None) -> np.ndarray:
    """Lap(0, ``scale``) draws in ``dtype`` as the difference of two standard exponentials.

    E₁ − E₂ with E₁, E₂ ~ Exp(1) independent is Lap(0, 1) exactly; numpy's ziggurat
    exponential in float32 makes this ~2× faster than ``rng.laplace`` (float64 inverse CDF
    plus a cast), the largest single cost of the LP experiments. Accuracy experiments only:
    a release snaps instead (:mod:`crowdpriv.release`), since floating-point Laplace samplers
    are not exactly ε-DP (Mironov 2012). ``out``: an array of ``shape`` and ``dtype`` to fill.
    """
    noise = rng.standard_exponential(size=None if out is not None else shape, dtype=dtype,
                                     out=out)
    noise -= rng.standard_exponential(size=shape, dtype=dtype)
    noise *= np.dtype(dtype).type(scale)
    return noise


def rr_keep_probability(epsilon, domain_size: int):
    """Probability that RR keeps a symbol, e^ε/(|Γ| + e^ε) (LDP-sparse Eq. 8).

    Each of the |Γ| other symbols of Γ ∪ {NULL} is output with probability 1/(|Γ| + e^ε).
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    # e^ε/(|Γ|+e^ε) written as 1/(1 + |Γ| e^(−ε)) so that a huge ε does not overflow.
    return 1.0 / (1.0 + k * np.exp(-_check_epsilon(epsilon)))


def rr_perturb(answers, epsilon, *, rng, domain_size: int, dtype=np.float32,
               checked: bool = False):
    """Randomized response with NULL as one more symbol (LDP-sparse Eq. 8).

    A cell keeps its symbol with probability e^ε/(|Γ|+e^ε); otherwise it becomes one of the |Γ|
    other symbols of Γ ∪ {NULL}, uniformly. NULL may become an answer and vice versa.

    Parameters
    ----------
    answers : array_like, shape (..., m, n)
    epsilon : float or array_like
        ε > 0, or per-worker budgets broadcastable to ``(..., m, 1)`` (used by 2-Layer).
    rng : numpy.random.Generator
    domain_size : int
        |Γ|.
    """
    codes = answer_codes(answers, domain_size, checked=checked)
    out = rr_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size)
    return codes_to_answers(out, domain_size, dtype=dtype)


def rr_perturb_codes(codes, epsilon, *, rng, domain_size: int, dtype=np.float64) -> np.ndarray:
    """:func:`rr_perturb` on label codes (:func:`answer_codes`); returns int8 codes:
    :func:`rr_apply` of :func:`rr_draws` (uniforms in ``dtype``: float64 by default, so every
    output probability is exact to about 1e-16)."""
    return rr_apply(codes, rr_draws(codes, rng=rng, dtype=dtype), epsilon, domain_size=domain_size)


def rr_draws(codes, *, rng, dtype=np.float64, out=None) -> np.ndarray:
    """RR's ε-free draws: one uniform on [0, 1) per cell (float32 halves the cost; its 2⁻²⁴
    grid moves each output probability by about 1e-7, for accuracy experiments). ``out``: an
    array of the codes' shape and ``dtype`` to fill."""
    if out is not None:
        return rng.random(dtype=dtype, out=out)
    return rng.random(np.shape(codes), dtype=dtype)


def rr_apply(codes, uniforms, epsilon, *, domain_size: int) -> np.ndarray:
    """RR's output symbols at ε from :func:`rr_draws` (LDP-sparse Eq. 8), int8 codes.

    A cell keeps its symbol x when its uniform u < p = e^ε/(|Γ|+e^ε); otherwise
    s = 1 + ⌊(u − p)/(1 − p)·|Γ|⌋ ∈ {1, …, |Γ|} (uniform given u ≥ p) and it becomes
    (x + s) mod (|Γ| + 1): each of the |Γ| other symbols of Γ ∪ {NULL} with probability
    1/(|Γ|+e^ε). ``epsilon`` may be per worker, broadcastable to ``(..., m, 1)`` (2-Layer).
    """
    c = np.asarray(codes)
    u = np.asarray(uniforms)
    if u.shape != c.shape:
        raise ValueError(f"uniforms must have the shape of the codes {c.shape}, got {u.shape}")
    k = int(domain_size)
    keep = rr_keep_probability(epsilon, k)
    p = np.asarray(keep, dtype=u.dtype)
    # |Γ|/(1 − p), capped: where p rounds to 1 in u's type nothing flips whatever the scale
    scale = np.asarray(np.minimum(k / np.maximum(1.0 - keep, 1e-300), 1e30), dtype=u.dtype)
    t = u - p  # < 0 where the symbol is kept
    t *= scale
    np.floor(t, out=t)
    t += 1
    np.clip(t, 0, k, out=t)  # 0 = kept; the top clip only guards rounding at u → 1
    out = t.astype(np.int8)
    out += c
    out -= (out > k) * np.int8(k + 1)  # (x + s) mod (|Γ| + 1), as x + s <= 2|Γ|
    return out


def two_layer_epsilons(epsilon, n_workers: int, *, rng, spread: float = 1.0, batch=()):
    """Per-worker budgets of the 2-Layer baseline: ε_i ~ U(ε(1 − spread), ε(1 + spread)).

    Sun et al. (Sec. VI-D) adapt Li et al. (KDD 2018) so that each worker draws its own ε_i
    uniformly with mean ε; ``spread=1`` (default) gives U(0, 2ε).
    """
    eps = check_positive("epsilon", epsilon)
    spread = check_in_interval("spread", spread, 0.0, 1.0, closed_high=True)
    m = check_int_at_least("n_workers", n_workers, 1)
    return rng.uniform(eps * (1 - spread), eps * (1 + spread), size=tuple(batch) + (m,))


def two_layer_perturb(
    answers, epsilon, *, rng, domain_size: int, spread: float = 1.0, dtype=np.float32,
    checked: bool = False,
):
    """2-Layer baseline: per-worker ε_i (:func:`two_layer_epsilons`), then RR with NULL (Eq. 8)."""
    codes = answer_codes(answers, domain_size, checked=checked)
    out = two_layer_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size, spread=spread)
    return codes_to_answers(out, domain_size, dtype=dtype)


def two_layer_perturb_codes(codes, epsilon, *, rng, domain_size: int, spread: float = 1.0,
                            dtype=np.float64) -> np.ndarray:
    """:func:`two_layer_perturb` on label codes; returns int8 codes: :func:`two_layer_apply`
    of :func:`two_layer_draws`."""
    draws = two_layer_draws(codes, rng=rng, spread=spread, dtype=dtype)
    return two_layer_apply(codes, draws, epsilon, domain_size=domain_size)


def two_layer_draws(codes, *, rng, spread: float = 1.0, dtype=np.float64, out=None):
    """2-Layer's ε-free draws: a budget multiplier per worker, U(1 − spread, 1 + spread)
    (ε_i = ε times it: :func:`two_layer_epsilons`' law), then RR's uniforms
    (:func:`rr_draws`)."""
    c = np.asarray(codes)
    if c.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {c.ndim}")
    spread = check_in_interval("spread", spread, 0.0, 1.0, closed_high=True)
    multiplier = rng.uniform(1.0 - spread, 1.0 + spread, size=c.shape[:-1])
    if out is not None:
        out[0][...] = multiplier
        multiplier = out[0]
    return multiplier, rr_draws(c, rng=rng, dtype=dtype, out=None if out is None else out[1])


def two_layer_apply(codes, draws, epsilon, *, domain_size: int) -> np.ndarray:
    """2-Layer's output at ε from :func:`two_layer_draws`: RR with ε_i = ε · multiplier_i."""
    multiplier, uniforms = draws
    eps = check_positive("epsilon", epsilon)
    return rr_apply(codes, uniforms, (eps * multiplier)[..., None], domain_size=domain_size)


#: Signs of MF's task profiles V: ``nonnegative`` (U(0, 1) entries) or ``signed`` (U(-1, 1)).
PROFILE_SIGNS = ("nonnegative", "signed")


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
    (Moore-Penrose pseudo-inverse by eigendecomposition, eigenvalues below ``rcond`` x the
    largest dropped). Gradient descent as in Alg. 2 reaches the same point when it converges.

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
        ``answers`` are label codes (:func:`answer_codes`) with this code for NULL.
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
    an eigendecomposition), else the pseudo-inverse (eigenvalues below ``rcond`` x the
    largest dropped). ``answered`` is |T_i| per worker (below d with λ = 0: singular)."""
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


def mf_worker_profiles(prepared: MFPrepared, epsilon, *, rng):
    """The perturbed worker profiles u_i of MF (LDP-sparse Eq. 9-10): draw η_i ~ Lap(|Γ|/ε)^d
    and solve (G_i + λI) u_i = b_i − η_i. Returns ``(u, η)``, shapes (..., m, d).

    The worker sends u_iᵀV; :class:`crowdpriv.streaming.FactoredAnswers` answers truth
    inference from (u, V) without forming that dense output. (:func:`mf_draws` then
    :func:`mf_apply`; numpy's ``laplace(0, b)`` is b times its ``laplace(0, 1)``, so the
    draws are those of ``rng.laplace(0, |Γ|/ε)``.)
    """
    eps = float(_check_epsilon(epsilon))
    draws = mf_draws(prepared, rng=rng)
    return mf_apply(prepared, draws, eps), draws * (prepared.domain_size / eps)


def mf_draws(prepared: MFPrepared, *, rng) -> np.ndarray:
    """MF's ε-free draws: standard Laplace η° per worker and factor, shape (..., m, d)."""
    return rng.laplace(0.0, 1.0, size=prepared.rhs.shape)


def mf_apply(prepared: MFPrepared, draws, epsilon) -> np.ndarray:
    """The perturbed worker profiles u_i at ε from :func:`mf_draws`: η_i = (|Γ|/ε)·η°_i
    (Lap(|Γ|/ε)^d, Eq. 9-10) and u_i = (G_i + λI)⁺(b_i − η_i); shape (..., m, d)."""
    eps = float(_check_epsilon(epsilon))
    eta = draws * (prepared.domain_size / eps)
    return np.einsum("...ij,...j->...i", prepared.solver, prepared.rhs - eta)


def mf_perturb_prepared(prepared: MFPrepared, epsilon, *, rng, dtype=np.float32, return_u=False):
    """MF perturbation from :func:`mf_prepare`: draw η_i ~ Lap(|Γ|/ε)^d, solve, send u_iᵀV.

    LDP-sparse Eq. 9-10 and Alg. 2 (closed form instead of gradient descent). The output is a
    dense (..., m, n) matrix (:func:`mf_worker_profiles` gives the factor alone). With
    ``return_u`` also returns (u, η).
    """
    u, eta = mf_worker_profiles(prepared, epsilon, rng=rng)
    out = (u.astype(dtype) @ prepared.profiles.astype(dtype)).astype(dtype, copy=False)
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
