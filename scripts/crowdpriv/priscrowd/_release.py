"""PrisCrowd phase 2: candidate synthesis with the randomised privacy test (Algorithm 1),
the Basic (Laplace) baseline, and Theorem 2's (epsilon, delta).

Everything works on normalised claims ``z`` of shape (G, n) with a mask, one row per object,
and is batched over objects and repetitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_greater_than, check_int_at_least, check_positive

__all__ = [
    "ReleaseResult",
    "validate_test_params",
    "privacy_levels",
    "privacy_test_counts",
    "pass_probability",
    "synthesize",
    "basic_release",
    "theorem2_budget",
]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_CHUNK = 4_000_000  # elements of the (rows, batch, n) work array per chunk


def validate_test_params(k, gamma, eps0, m):
    """Validate Algorithm 1's parameters; return them as (int, float, float, int)."""
    k = check_int_at_least("k", k, 1)
    gamma = check_greater_than("gamma", gamma, 1.0)
    eps0 = check_positive("eps0", eps0)
    m = check_int_at_least("m", m, 1)
    return k, gamma, eps0, m


def privacy_levels(y, z, h, gamma):
    """Integer band ``a`` with ``gamma^(-a-1) < P <= gamma^(-a)`` for ``P = K_h(y - z)``.

    PrisCrowd Alg. 1 step 2. ``P`` is the density of the candidate under each seed's kernel
    (it may exceed 1, so ``a`` may be negative). Computed in log space:
    ``a = floor(-log P / log gamma)``. Broadcasts ``y``, ``z`` and ``h``.
    """
    y, z, h = (np.asarray(a, dtype=float) for a in (y, z, h))
    # in place, in the order of 0.5·u² + log h + log √(2π) (0.5·u·u is exactly 0.5·(u·u))
    out = np.empty(np.broadcast_shapes(y.shape, z.shape, h.shape))
    np.subtract(y, z, out=out)
    out /= h
    np.square(out, out=out)
    out *= 0.5
    out += np.log(h)
    out += _LOG_SQRT_2PI
    out /= np.log(gamma)
    return np.floor(out, out=out)


def privacy_test_counts(y, seed, z, mask, h, gamma):
    """``k'``: number of records whose band equals the seed's (PrisCrowd Alg. 1 step 3).

    Parameters
    ----------
    y : ndarray (G, B)
        Candidates.
    seed : ndarray (G, B) int
        Index of each candidate's seed within its object.
    z, mask : ndarray (G, n)
    h : ndarray (G,)
    gamma : float

    Returns
    -------
    ndarray (G, B) int
        ``k'`` (the seed itself included).

    Notes
    -----
    The same counts as comparing :func:`privacy_levels` of every (candidate, record) pair
    with the seed's, without computing them: a band is an interval of the distance
    ``|y − z|`` whose ends are found once per bandwidth (:class:`_Bands`).
    """
    h = np.asarray(h, dtype=float)
    z = np.asarray(z, dtype=float)
    unique_h, row = np.unique(h, return_inverse=True)
    bands = _Bands(unique_h, gamma)
    centre = np.take_along_axis(z, np.asarray(seed), axis=1)
    records = np.where(np.asarray(mask, dtype=bool), z, np.nan).T
    return bands.counts(np.asarray(y, dtype=float), centre, records, row.reshape(h.shape))


#: Own bands tabulated per bandwidth: a candidate y ~ N(z_seed, h²) has its seed's band within
#: the table unless |y − z_seed| > _TABLE_SIGMAS h (probability 2e-19; computed then).
_TABLE_SIGMAS = 9.0
#: Elements of the (rows, B, n) distance array per step of the count (fits the L2 cache).
_COUNT_CHUNK = 1 << 18


def _float_bits(x):
    return np.asarray(x, dtype=np.float64).view(np.int64)


def _band_edges(level, h, gamma):
    """Smallest float64 ``d >= 0`` with ``privacy_levels(d, 0, h, gamma) >= level`` (elementwise).

    :func:`privacy_levels` is a non-decreasing function of the float ``|y − z|`` (every step of
    its float computation is a correctly rounded monotone operation), so the pairs whose band
    is ``a`` are exactly those with ``band_edges(a) <= |y − z| < band_edges(a + 1)``. Found
    exactly, by bisection over the bit patterns of non-negative floats (ordered as integers),
    in a bracket of a few units in the last place around the closed form
    ``h sqrt(2 (a log gamma − log(h sqrt(2 pi))))``, widened where it misses.
    """
    level, h = np.broadcast_arrays(np.asarray(level, dtype=float), np.asarray(h, dtype=float))
    shape, level, h = level.shape, level.ravel(), h.ravel()
    top = int(_float_bits(np.inf))

    def reaches(bits, at):
        return privacy_levels(np.maximum(bits, 0).view(np.float64), 0.0, h[at], gamma) >= level[at]

    with np.errstate(invalid="ignore", over="ignore"):
        guess = h * np.sqrt(np.maximum(2.0 * (level * np.log(gamma) - np.log(h) - _LOG_SQRT_2PI),
                                       0.0))
    guess = _float_bits(np.where(np.isfinite(guess), guess, 0.0))
    # (lo, hi] holds the answer: lo does not reach the level (−1: below 0), hi does
    lo, hi = np.full(level.size, -1, dtype=np.int64), np.full(level.size, top, dtype=np.int64)
    todo = np.arange(level.size)
    for width in (4, 1 << 20, 1 << 44):  # ulps either side of the closed form
        if not todo.size:
            break
        below = np.maximum(guess[todo] - width, -1)
        above = np.minimum(guess[todo] + width, top)
        ok = reaches(above, todo) & ((below < 0) | ~reaches(below, todo))
        lo[todo[ok]], hi[todo[ok]] = below[ok], above[ok]
        todo = todo[~ok]  # left with the whole range
    open_ = np.flatnonzero(hi - lo > 1)
    while open_.size:
        mid = lo[open_] + (hi[open_] - lo[open_]) // 2
        ok = reaches(mid, open_)
        hi[open_[ok]], lo[open_[~ok]] = mid[ok], mid[~ok]
        open_ = open_[hi[open_] - lo[open_] > 1]
    return hi.view(np.float64).reshape(shape)


_BANDS_KEPT: dict = {}


class _Bands:
    """The privacy test's band edges (:func:`_band_edges`) for a few bandwidths, tabulated for
    the bands a candidate drawn from its seed's kernel can have, so that ``k'`` is counted by
    comparing distances with two numbers per candidate."""

    def __init__(self, h, gamma):
        self.h = np.array(h, dtype=float)  # a copy: kept tables must not see later changes
        self.gamma = gamma
        self.first = privacy_levels(0.0, 0.0, self.h, gamma)  # the band of distance 0
        span = int(np.ceil(0.5 * _TABLE_SIGMAS**2 / np.log(gamma))) + 2
        levels = self.first[:, None] + np.arange(span + 1)
        self.table = _band_edges(levels, self.h[:, None], gamma)  # (len(h), span + 1)

    @classmethod
    def of(cls, h, gamma) -> "_Bands":
        """The table for these bandwidths, kept for the next call with the same ones (Fig. 5's
        timings and the audit call Alg. 1 many times on the same objects)."""
        key = (np.asarray(h, dtype=float).tobytes(), float(gamma))
        if key not in _BANDS_KEPT:
            if len(_BANDS_KEPT) >= 16:
                _BANDS_KEPT.pop(next(iter(_BANDS_KEPT)))
            _BANDS_KEPT[key] = cls(h, gamma)
        return _BANDS_KEPT[key]

    def counts(self, y, centre, records, row):
        """``k'`` for candidates ``y`` (R, B) whose seeds have the values ``centre`` (R, B),
        on ``records`` (n, R: records leading, NaN where masked) of rows whose bandwidth is
        ``self.h[row]``."""
        own = privacy_levels(np.abs(y - centre), 0.0, self.h[row][:, None], self.gamma)
        k = (own - self.first[row][:, None]).astype(np.int64)
        width = self.table.shape[1]
        inside = k < width - 1
        at = (row * width)[:, None] + np.minimum(k, width - 2)
        lo, hi = self.table.ravel()[at], self.table.ravel()[at + 1]
        if not inside.all():  # a candidate beyond the table: its edges computed here
            hr = np.broadcast_to(self.h[row][:, None], k.shape)[~inside]
            lo[~inside] = _band_edges(own[~inside], hr, self.gamma)
            hi[~inside] = _band_edges(own[~inside] + 1, hr, self.gamma)
        # work arrays (records, candidates, rows): every operation runs along the rows (long,
        # contiguous), and the count adds whole (candidates, rows) planes
        yt, lo, hi = (np.ascontiguousarray(a.T) for a in (y, lo, hi))
        out = np.empty(yt.shape, dtype=np.intp)
        for b in _row_steps(*records.shape[::-1], yt.shape[0]):
            d = np.subtract(yt[None, :, b], records[:, None, b])
            np.abs(d, out=d)
            within = d >= lo[None, :, b]
            within &= d < hi[None, :, b]
            out[:, b] = _count_true(within)
        return out.T


def _count_true(flags):
    """Number of True along the first axis, added as bytes (15x faster than bool.sum)."""
    n = flags.shape[0]
    acc = np.uint8 if n < 2**8 else np.uint16 if n < 2**16 else np.uint32
    return np.add.reduce(flags.view(np.uint8), axis=0, dtype=acc)


def _row_steps(rows, n, batch):
    """Slices of rows whose (n, rows, batch) work arrays fit the cache."""
    step = max(1, _COUNT_CHUNK // max(1, n * batch))
    return [slice(a, a + step) for a in range(0, rows, step)]


def _draw_seeds(u, cdf, o):
    """Seed indices for uniforms ``u`` (R, B) of rows of objects ``o`` (R,) with seed CDFs
    ``cdf`` (G, n): the number of CDF values below each uniform, capped at n − 1 (Alg. 1
    step 3); counted with the CDF values leading, in cache-sized steps."""
    n = cdf.shape[1]
    ut, cdf_t = np.ascontiguousarray(u.T), np.take(cdf.T, o, axis=1)  # (B, R), (n, R)
    out = np.empty(ut.shape, dtype=np.intp)
    for b in _row_steps(len(o), n, ut.shape[0]):  # (n, B, rows), as in _Bands.counts
        out[:, b] = _count_true(ut[None, :, b] > cdf_t[:, None, b])
    return out.T.clip(max=n - 1)


def pass_probability(k_prime, k, eps0):
    """Probability that a candidate with count ``k'`` passes: ``Pr{L >= k - k'}``, ``L ~ Lap(1/eps0)``.

    PrisCrowd Lemma 5 (the test passes iff ``k' >= k + z``, ``z ~ Lap(1/eps0)``).
    """
    x = np.asarray(k_prime, dtype=float) - k
    return np.where(x >= 0, 1.0 - 0.5 * np.exp(-eps0 * np.abs(x)), 0.5 * np.exp(-eps0 * np.abs(x)))


@dataclass
class ReleaseResult:
    """Output of :func:`synthesize` for ``R`` repetitions of ``G`` objects.

    Attributes
    ----------
    released : ndarray (R, G, m)
        Released synthetic claims (normalised units) in release order, NaN where fewer than m.
    n_released, n_candidates, n_passed : ndarray (R, G) int
        Claims released, candidates tested (Alg. 1 stops at the m-th pass or the cap), and
        candidates that passed the test among those tested.
    tested_at : ndarray (R, G, m) int
        Candidates tested when the j-th claim was released (0 where it was not): what Alg. 1
        run with m' = j + 1 would have tested on the same candidate stream, the deterministic
        work measure of PrisCrowd Fig. 5 (:func:`candidates_for`).
    """

    released: np.ndarray
    n_released: np.ndarray
    n_candidates: np.ndarray
    n_passed: np.ndarray
    tested_at: np.ndarray

    def candidates_for(self, m: int) -> np.ndarray:
        """Candidates Alg. 1 tests per object to release ``m`` claims (R, G).

        The position of the m-th release in the candidate stream where it was reached, and all
        candidates tested (the cap) where it was not. ``m`` may not exceed the run's own m.
        """
        m_run = self.tested_at.shape[2]
        if not 1 <= m <= m_run:
            raise ValueError(f"m must lie in [1, {m_run}] (the run's m), got {m!r}")
        return np.where(self.n_released >= m, self.tested_at[:, :, m - 1], self.n_candidates)


def synthesize(
    z, mask, h, weights, *, m, k=5, gamma=4.0, eps0=1.0, privacy_test=True, reps=1,
    batch_size=10, max_candidates=300, rng,
):
    """Privacy test-based synthetics release (PrisCrowd Algorithm 1), batched.

    For every object and repetition: draw a seed ``s ~ weights`` (step 3), a candidate
    ``y ~ K_h(. - z_s)`` (step 4), and run the randomised privacy test (step 5):
    ``k~ = k + Lap(1/eps0)``; pass iff ``k' >= k~`` (:func:`privacy_test_counts`). Candidates are
    drawn ``batch_size`` at a time for the objects still short of ``m`` releases, and at most
    ``max_candidates`` per object are tried (Alg. 1 has no cap and would not stop on objects
    whose claims cannot pass). Without the test every candidate is released.

    Parameters
    ----------
    z, mask : ndarray (G, n)
        Normalised claims and mask.
    h : ndarray (G,)
        Bandwidths.
    weights : ndarray (G, n)
        Seed probabilities (combined weights c_is for PrisCrowd, equal for Uniform).
    m, k, gamma, eps0 : int, int, float, float
        Released claims per object and test parameters (paper: m = 30, k = 5, gamma = 4).
    privacy_test : bool
    reps : int
        Independent repetitions (rows ``R``).
    batch_size, max_candidates : int
    rng : numpy.random.Generator

    Returns
    -------
    ReleaseResult
    """
    k, gamma, eps0, m = validate_test_params(k, gamma, eps0, m)
    reps = check_int_at_least("reps", reps, 1)
    batch_size = check_int_at_least("batch_size", batch_size, 1)
    max_candidates = check_int_at_least("max_candidates", max_candidates, 1)
    h = np.asarray(h, dtype=float)
    if np.any(~(h > 0)):
        raise ValueError(f"bandwidth must be > 0, got {h[~(h > 0)][0]!r}")
    z = np.asarray(z, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    G, n = z.shape
    cdf = np.cumsum(np.where(mask, weights, 0.0), axis=1)
    cdf = cdf / cdf[:, -1:]
    rows = reps * G
    obj = np.tile(np.arange(G), reps)
    released = np.full((rows, m), np.nan)
    tested_at = np.zeros((rows, m), dtype=int)
    n_rel = np.zeros(rows, dtype=int)
    n_cand = np.zeros(rows, dtype=int)
    n_pass = np.zeros(rows, dtype=int)
    if not privacy_test:
        u = rng.random((rows, m))
        seed = (u[:, :, None] > cdf[obj][:, None, :]).sum(axis=2).clip(max=n - 1)
        centre = np.take_along_axis(z[obj], seed, axis=1)
        released[:] = centre + h[obj][:, None] * rng.standard_normal((rows, m))
        n_rel[:] = m
        n_cand[:] = m
        n_pass[:] = m
        tested_at[:] = np.arange(1, m + 1)
        shape = (reps, G)
        return ReleaseResult(
            released.reshape(reps, G, m), n_rel.reshape(shape), n_cand.reshape(shape),
            n_pass.reshape(shape), tested_at.reshape(reps, G, m),
        )
    chunk = max(1, _CHUNK // (batch_size * n))
    cols = np.arange(batch_size)
    bands = _Bands.of(h, gamma)
    records = np.ascontiguousarray(np.where(mask, z, np.nan).T)  # masked: in no band
    while True:
        active = np.flatnonzero((n_rel < m) & (n_cand < max_candidates))
        if active.size == 0:
            break
        for lo in range(0, active.size, chunk):
            rr = active[lo : lo + chunk]
            o = obj[rr]
            u = rng.random((rr.size, batch_size))
            seed = _draw_seeds(u, cdf, o)
            centre = z.ravel()[(o * n)[:, None] + seed]  # z[o] at the seeds
            y = centre + h[o][:, None] * rng.standard_normal((rr.size, batch_size))
            kp = bands.counts(y, centre, np.take(records, o, axis=1), o)
            noise = rng.laplace(0.0, 1.0 / eps0, size=(rr.size, batch_size))
            within_cap = n_cand[rr][:, None] + cols[None, :] < max_candidates
            passed = (kp >= k + noise) & within_cap
            cum = n_rel[rr][:, None] + np.cumsum(passed, axis=1)
            take = passed & (cum <= m)
            slot = cum - 1
            # Alg. 1 stops at the m-th pass: candidates after it are never tested.
            hit = cum >= m
            stop = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, within_cap.sum(axis=1))
            tested = cols[None, :] < stop[:, None]
            r_idx, c_idx = np.nonzero(take)
            released[rr[r_idx], slot[r_idx, c_idx]] = y[r_idx, c_idx]
            tested_at[rr[r_idx], slot[r_idx, c_idx]] = n_cand[rr[r_idx]] + c_idx + 1
            n_rel[rr] += take.sum(axis=1)
            n_pass[rr] += (passed & tested).sum(axis=1)
            n_cand[rr] += stop
    shape = (reps, G)
    return ReleaseResult(
        released.reshape(reps, G, m), n_rel.reshape(shape), n_cand.reshape(shape),
        n_pass.reshape(shape), tested_at.reshape(reps, G, m),
    )


#: Readings of the Basic baseline's Laplace sensitivity (config ``priscrowd.basic_sensitivity``):
#: ``range`` the object's normalised claim range (Sec. 5); ``records`` the number of claims on
#: the object times that range (the introduction: noise "proportional to the number of data
#: records").
BASIC_SENSITIVITIES = ("range", "records")


def basic_release(z, mask, epsilon, *, reps=1, rng, sensitivity="range"):
    """The **Basic** baseline: Laplace noise on every normalised claim, released as is.

    PrisCrowd Sec. 5 (Baselines): noise ``Lap(Delta_i / epsilon)`` with sensitivity ``Delta_i``
    = the object's normalised claim range (max - min), epsilon = 0.1 / 1 / 10 for
    Strong / Normal / Weak; ``sensitivity="records"`` multiplies Delta_i by the object's number
    of claims (:data:`BASIC_SENSITIVITIES`).

    Returns
    -------
    ndarray (R, G, n)
        Noisy claims, NaN on padding.
    """
    epsilon = check_positive("epsilon", epsilon)
    reps = check_int_at_least("reps", reps, 1)
    z = np.asarray(z, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    hi = np.where(mask, z, -np.inf).max(axis=1)
    lo = np.where(mask, z, np.inf).min(axis=1)
    if sensitivity not in BASIC_SENSITIVITIES:
        raise ValueError(f"sensitivity must be one of {BASIC_SENSITIVITIES}, got {sensitivity!r}")
    scale = (hi - lo) / epsilon
    if sensitivity == "records":
        scale = scale * mask.sum(axis=1)
    noise = rng.laplace(size=(reps, *z.shape)) * scale[None, :, None]
    return np.where(mask[None], z[None] + noise, np.nan)


def theorem2_budget(weights, mask, *, k=5, gamma=4.0, eps0=1.0, t=1, delta_exponent="eps0"):
    """Per-object (epsilon, delta) of Algorithm 1 (PrisCrowd Theorem 2).

    ``epsilon = eps0 + log(1 + (gamma/t) max_s c_s / min_s c_s)`` and
    ``delta = |U_i| max_s c_s exp(-e (k - t))``. The printed theorem writes ``e = epsilon``;
    Lemmas 8-9 (and Bindschaedler et al. 2017, Thm. 1, which it generalises) give
    ``e = eps0``; choose with ``delta_exponent`` ("eps0" default, or "epsilon"). The theorem
    needs ``|U_i| >= k``: smaller objects get NaN. A zero weight (Hampel local weights zero out
    far claims) makes ``epsilon`` infinite.

    Returns
    -------
    epsilon, delta : ndarray (G,)
    """
    k = check_int_at_least("k", k, 1)
    gamma = check_greater_than("gamma", gamma, 1.0)
    eps0 = check_positive("eps0", eps0)
    t = check_int_at_least("t", t, 1)
    if t >= k:
        raise ValueError(f"t must satisfy 1 <= t < k={k}, got {t!r}")
    if delta_exponent not in ("eps0", "epsilon"):
        raise ValueError(f"delta_exponent must be 'eps0' or 'epsilon', got {delta_exponent!r}")
    w = np.asarray(weights, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    cmax = np.where(mask, w, -np.inf).max(axis=1)
    cmin = np.where(mask, w, np.inf).min(axis=1)
    with np.errstate(divide="ignore"):
        ratio = np.where(cmin > 0, cmax / np.where(cmin > 0, cmin, 1.0), np.inf)
    eps = eps0 + np.log1p(gamma / t * ratio)
    e = eps0 if delta_exponent == "eps0" else eps
    n = mask.sum(axis=1)
    delta = n * cmax * np.exp(-e * (k - t))
    small = n < k
    return np.where(small, np.nan, eps), np.where(small, np.nan, delta)
