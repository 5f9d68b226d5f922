"""PrisCrowd's release: candidate synthesis with the randomised privacy test (Huai et al.,
IJCAI 2019, Algorithm 1) and Theorem 2's (ε, δ) per released claim.

Everything works on normalised claims ``z`` of shape (G, n) with a mask, one row per object,
and is batched over objects and repetitions. The seed weights are an input (Theorem 2 takes
them as given); phase 1, which learns them from the claims, is :mod:`crowdpriv.priscrowd`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_greater_than, check_int_at_least, check_positive
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, setting

__all__ = [
    "ReleaseResult",
    "validate_test_params",
    "privacy_levels",
    "privacy_test_counts",
    "pass_probability",
    "synthesize",
    "draw_candidates",
    "theorem2_budget",
    "PrisCrowdAlg1",
    "Alg1Settings",
    "WEIGHTINGS",
    "audit_neighbours",
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
_TABLE_SIGMAS = 9.0  # pragma: no mutate  (equivalent: a wider table gives the same counts; a candidate past it has its edges computed)
#: Elements of the (rows, B, n) distance array per step of the count (fits the L2 cache).
_COUNT_CHUNK = 1 << 18  # pragma: no mutate  (equivalent: only how many rows one step counts; each row's count is the same)


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
        guess = h * np.sqrt(np.maximum(2.0 * (level * np.log(gamma) - np.log(h) - _LOG_SQRT_2PI),  # pragma: no mutate  (equivalent: only where the bisection starts; its bracket is checked, else widened to all floats)
                                       0.0))  # pragma: no mutate  (equivalent: only where the bisection starts; its bracket is checked, else widened to all floats)
    guess = _float_bits(np.where(np.isfinite(guess), guess, 0.0))  # pragma: no mutate  (equivalent: only where the bisection starts; its bracket is checked, else widened to all floats)
    # (lo, hi] holds the answer: lo does not reach the level (−1: below 0), hi does
    lo, hi = np.full(level.size, -1, dtype=np.int64), np.full(level.size, top, dtype=np.int64)  # pragma: no mutate  (equivalent: a level whose edge is 0 is always bracketed by the first width, never left to this start)
    todo = np.arange(level.size)
    for width in (4, 1 << 20, 1 << 44):  # ulps either side of the closed form  # pragma: no mutate  (equivalent: only where the bisection starts; its bracket is checked, else widened to all floats)
        if not todo.size:  # pragma: no mutate  (equivalent: skipping the brackets leaves every level to the whole-range bisection)
            break
        below = np.maximum(guess[todo] - width, -1)  # pragma: no mutate  (equivalent: only where the bisection starts; its bracket is checked, else widened to all floats)
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
        timings and the audit call Alg. 1 many times on the same objects): the 16 latest
        tables are kept, the oldest dropped first."""
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
    """Seed indices for uniforms ``u`` (R, B) in [0, 1) of rows of objects ``o`` (R,) with seed
    CDFs ``cdf`` (G, n): the number of CDF values at or below each uniform, capped at n − 1
    (Alg. 1 step 3), i.e. seed j for u in [cdf_{j−1}, cdf_j), an empty interval for a record of
    weight 0, which is never drawn, also at u = 0 (a first record of weight 0 has cdf_0 = 0);
    counted with the CDF values leading, in cache-sized steps."""
    n = cdf.shape[1]
    ut, cdf_t = np.ascontiguousarray(u.T), np.take(cdf.T, o, axis=1)  # (B, R), (n, R)
    out = np.empty(ut.shape, dtype=np.intp)
    for b in _row_steps(len(o), n, ut.shape[0]):  # (n, B, rows), as in _Bands.counts  # pragma: no mutate  (equivalent: only how many rows one step counts)
        out[:, b] = _count_true(ut[None, :, b] >= cdf_t[:, None, b])
    return out.T.clip(max=n - 1)


def _test_batch(bands, y, centre, records, o, threshold, within_cap, need):
    """Alg. 1 step 5 on a batch of candidates ``y`` (R, B) of rows of objects ``o``: whether
    each passes (``k' >= threshold``) and is within the cap, for every candidate Alg. 1 tests.

    A row with ``need >= B`` has its whole batch counted (one count for all such rows). A row
    that needs ``need < B`` more releases stops at its ``need``-th pass: its candidates are
    counted a column at a time, and those after its stop (never tested) are left False without
    counting them, which changes nothing :func:`synthesize` reads (they are neither released
    nor counted as tested, and the stop is the same); a column at a time costs more per
    candidate, so the caller passes ``need = B`` where a stop is not expected early. The test
    draws no random numbers."""
    R, B = y.shape
    passed = np.zeros((R, B), dtype=bool)
    full = np.flatnonzero(need >= B)
    if full.size:
        of = o[full]
        kp = bands.counts(y[full], centre[full], np.take(records, of, axis=1), of)
        passed[full] = (kp >= threshold[full]) & within_cap[full]
    open_ = np.flatnonzero((need < B) & within_cap[:, 0])
    got = np.zeros(R, dtype=np.int64)
    for c in range(B):
        if not open_.size:
            break
        oc = o[open_]
        kp = bands.counts(y[open_, c:c + 1], centre[open_, c:c + 1],
                          np.take(records, oc, axis=1), oc)[:, 0]
        ok = kp >= threshold[open_, c]
        passed[open_, c] = ok
        got[open_] += ok
        still = got[open_] < need[open_]
        if c + 1 < B:
            still &= within_cap[open_, c + 1]
        open_ = open_[still]
    return passed


def pass_probability(k_prime, k, eps0):
    """Probability that a candidate with count ``k'`` passes: ``Pr{L >= k - k'}``, ``L ~ Lap(1/eps0)``.

    PrisCrowd Lemma 5 (the test passes iff ``k' >= k + z``, ``z ~ Lap(1/eps0)``).
    """
    x = np.asarray(k_prime, dtype=float) - k
    return np.where(x >= 0, 1.0 - 0.5 * np.exp(-eps0 * np.abs(x)), 0.5 * np.exp(-eps0 * np.abs(x)))


def draw_candidates(cdf, z, h, size: int, *, rng):
    """Algorithm 1 steps 3-4 for each row (an object): ``size`` seeds s ~ the seed weights
    (``cdf``: their cumulative sums, normalised) and a candidate y ~ K_h(· − z_s) for each.
    Returns ``(seed, y)``, shapes (rows, size)."""
    rows, n = z.shape
    u = rng.random((rows, size))
    seed = _draw_seeds(u, np.asarray(cdf, dtype=float), np.arange(rows))
    centre = np.take_along_axis(z, seed, axis=1)
    return seed, centre + h[:, None] * rng.standard_normal((rows, size))


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
        _, released[:] = draw_candidates(cdf[obj], z[obj], h[obj], m, rng=rng)
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
            noise = rng.laplace(0.0, 1.0 / eps0, size=(rr.size, batch_size))
            within_cap = n_cand[rr][:, None] + cols[None, :] < max_candidates
            # a row's first batch may stop early (m < batch_size, as the audit's m = 1); later
            # batches of a row short of m are mostly rare passers, which test the whole batch
            passed = _test_batch(bands, y, centre, records, o, k + noise, within_cap,
                                 np.where(n_cand[rr] == 0, m - n_rel[rr], batch_size))  # pragma: no mutate  (equivalent: need only picks how _test_batch counts, whole batch or a column at a time; passes after the m-th are never read)
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


#: Seed weightings of a release: PrisCrowd's combined weights (Eq. 6), equal weights
#: (Uniform), the global weights alone (Eq. 2) — by the method label of the result files.
WEIGHTINGS = {"combined": "PrisCrowd", "uniform": "Uniform", "global": "Global"}

#: PrisCrowd Sec. 4 / Definition 1: datasets that differ in one user's claim about an object.
CLAIM_NEIGHBOURS = ("two claim sets of an object that differ in one user's claim (PrisCrowd "
                    "Definition 1, per released synthetic claim, Theorem 2)")

#: The audited object's claims (one object; D' replaces its last claim).
AUDIT_OBJECT = np.array([4.1, 4.6, 4.9, 5.0, 5.0, 5.2, 5.4, 5.5, 5.9, 6.3, 4.4, 5.1])  # pragma: no mutate (example data, not logic: any object is as valid an audit input)
#: Where the theorem's-setting cases move the last claim.
AUDIT_MOVED = 9.0  # pragma: no mutate (example data, not logic: any far value is as valid)


def audit_neighbours(claims) -> list[tuple[str, float]]:
    """The replacements of an object's last claim a skeptic tries (App. C: any value of the
    data universe): a data-entry error (×1000), the object's far tail (just beyond Tukey's
    far fence, Q3 + 3 IQR), a sign flip; ``[(description, value)]``."""
    x = np.asarray(claims, dtype=float)
    q1, q3 = np.percentile(x, [25, 75])
    tail = q3 + 3.0 * (q3 - q1) * 1.01
    last = float(x[-1])
    return [(f"replaced by a data-entry error (1000 times it: {last * 1000:g})",
             last * 1000.0),
            (f"moved to the object's far tail (Q3 + 3 IQR: {tail:.4g})", tail),
            (f"sign-flipped ({-last:g})", -last)]


@dataclass(frozen=True)
class Alg1Settings:
    """Algorithm 1 and Theorem 2 (PrisCrowd Sec. 4-5), and the units it runs in.

    ``m`` released claims per object, privacy test ``k``, band ratio ``gamma`` > 1, test
    randomness ``eps0`` (paper: m = 30, k = 5, γ = 4; ε0 is not given, 1 is ours); Theorem 2's
    integer ``t`` (1 ≤ t < k) and the exponent of its δ (``delta_exponent``: ``eps0`` as
    Lemmas 8-9, ``epsilon`` as printed); candidates per round ``batch_size`` and the cap
    ``max_candidates`` (Alg. 1 has none); the units (:data:`crowdpriv.kde.UNITS`) and bandwidth
    rule (:data:`crowdpriv.kde.BANDWIDTH_RULES`, floors ``mad_min``, ``h_min``) it runs in; the
    seed ``weights`` of a release (:data:`WEIGHTINGS`).
    """

    m: int = setting(30, "released claims per object (Sec. 5)")
    k: int = setting(5, "privacy test threshold k (Sec. 5)")
    gamma: float = setting(4.0, "privacy test band ratio γ > 1 (Sec. 5)")
    eps0: float = setting(1.0, "test randomness ε0: k~ = k + Lap(1/ε0) (paper silent)")
    t: int = setting(1, "Theorem 2's integer t, 1 ≤ t < k (paper silent)")
    delta_exponent: str = setting("eps0", "Theorem 2's δ exponent: ε0 (Lemmas 8-9) or ε (as "
                                          "printed)", choices=("eps0", "epsilon"))
    batch_size: int = setting(10, "candidates drawn per object per round")
    max_candidates: int = setting(300, "cap on candidates per object (Alg. 1 has none)")
    units: str = setting("zscore", "claims z-scored per object or only centred",
                         choices=("zscore", "raw"))
    bandwidth: str = setting("mad", "per-object bandwidth rule", choices=("mad", "silverman"))
    mad_min: float = setting(1e-6, "MAD below this falls back to Silverman's rule")
    h_min: float = setting(0.05, "floor of every bandwidth (normalised units)")
    weights: str = setting("uniform", "seed weights: uniform (Theorem 2's ε finite), combined "
                                      "(Eq. 6: a zero weight gives ε = ∞), global (Eq. 2)",
                           choices=("uniform", "combined", "global"))

    def __post_init__(self):
        from .._checks import ParameterError
        from ..kde import BANDWIDTH_RULES, UNITS

        validate_test_params(self.k, self.gamma, self.eps0, self.m)
        t = check_int_at_least("t", self.t, 1)
        if t >= self.k:
            raise ParameterError("t", self.t, f"t must satisfy 1 <= t < k={self.k}, got "
                                              f"{self.t!r}")
        for name, value, allowed in (("delta_exponent", self.delta_exponent, ("eps0", "epsilon")),
                                     ("units", self.units, UNITS),
                                     ("bandwidth", self.bandwidth, BANDWIDTH_RULES),
                                     ("weights", self.weights, tuple(WEIGHTINGS))):
            if value not in allowed:
                raise ParameterError(name, value, f"{name} must be one of {list(allowed)}, got "
                                                  f"{value!r}")
        check_int_at_least("batch_size", self.batch_size, 1)
        check_int_at_least("max_candidates", self.max_candidates, 1)
        check_positive("h_min", self.h_min)


class PrisCrowdAlg1(Mechanism):
    """PrisCrowd Algorithm 1: synthetic claims that pass a randomised privacy test."""

    id = "priscrowd"
    label = "Alg. 1"
    aliases = ("PrisCrowd",)
    paper = "priscrowd"
    summary = ("synthetic claims drawn from weighted kernels that pass a randomised privacy "
               "test (PrisCrowd Alg. 1)")
    answer_type = "continuous"
    Settings = Alg1Settings
    parts = frozenset({"release", "audit", "law"})
    float_safe = False
    fills_nulls = False
    cli_command = "synthesize"

    def law_settings(self):
        return [self.settings(), self.settings(eps0=0.5, k=3)]

    def budget(self, weights, mask, settings):
        """Theorem 2's (ε, δ) per released claim of each object (:func:`theorem2_budget`)."""
        return theorem2_budget(weights, mask, k=settings.k, gamma=settings.gamma,
                               eps0=settings.eps0, t=settings.t,
                               delta_exponent=settings.delta_exponent)

    def claimed(self, settings, epsilon=None, *, domain_size=None, weights=None, mask=None):
        """Theorem 2 for one object of ``weights`` (uniform over ``settings.k`` claims when
        none are given): ε = ε0 + log(1 + (γ/t) max c / min c), δ per released claim."""
        if weights is None:
            weights = np.full((1, settings.k), 1.0 / settings.k)
            mask = np.ones_like(weights, dtype=bool)
        eps, delta = self.budget(weights, mask, settings)
        return Claimed(float(np.nanmax(eps)), float(np.nanmax(delta)),
                       "released synthetic claim of an object",
                       "PrisCrowd Theorem 2 (Alg. 1)", CLAIM_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon=None, *, domain_size=None,
                  weights=None, mask=None):
        claim = self.claimed(settings, weights=weights, mask=mask)
        objects = shape.max_records_per_worker
        ideal_worker = settings.m * objects * claim.epsilon
        return Guarantee(
            record_epsilon=float("inf"), record_delta=claim.delta,
            record_unit="released synthetic claim of an object",
            worker_epsilon=float("inf"), worker_delta=min(settings.m * objects * claim.delta,
                                                          1.0),
            worker_rule=(f"basic composition over the m = {settings.m} released claims of each "
                         f"of the user's {objects} objects: {ideal_worker:.6g} under Theorem "
                         "2's setting"),
            ideal_record_epsilon=claim.epsilon, float_safe=False,
            basis=("Theorem 2 takes the weights, the normalisation and the bandwidth as given; "
                   "as run they are computed from the claims themselves, so one claim moves "
                   "every normalised claim, the bandwidth and the weights (the audit's "
                   "extreme-value neighbours show ε far above the claim), and the released "
                   "Gaussian candidates are float64 samples"),
            caveats=("the weights, the normalisation and the bandwidth are learned from the "
                     "claims themselves, which Theorem 2 takes as fixed",
                     "the m claims of an object compose: m × (ε, δ) by basic composition"))

    def ledger_text(self, settings, epsilon=None, *, domain_size=None):
        return {"theorem": "PrisCrowd Theorem 2: Alg. 1 is (ε, δ)-DP per released claim with "
                           "ε = ε0 + log(1 + (γ/t) max c / min c), δ = |U| max c e^(−ε0 (k − t))",
                "unit": "per released claim of an object (Theorem 2); m claims of an object "
                        "compose",
                "covers": ["one released claim of an object, with the weights, normalisation "
                           "and bandwidth fixed in advance"],
                "not_covered": ["the weights and the normalisation are learned from the claims "
                                "themselves, which Theorem 2 takes as fixed (the audit finds "
                                "the as-run release at the edge of its claimed ε)",
                                "the m claims of an object compose: m × (ε, δ) by basic "
                                "composition"]}

    def units(self, claims, mask, settings):
        """The release's units as run: ``(z, mean, scale, h)`` of each object, computed from
        its own claims (:func:`crowdpriv.kde.normalise_objects`, :func:`crowdpriv.kde.bandwidth`)."""
        from ..kde import bandwidth, normalise_objects

        z, mean, scale = normalise_objects(claims, mask, units=settings.units)
        h = bandwidth(z, mask, rule=settings.bandwidth, mad_min=settings.mad_min,
                      h_min=settings.h_min)
        return z, mean, scale, h

    def sample_release(self, z, mask, h, weights, settings, *, rng, reps=1, m=None,
                       privacy_test=True):
        """Algorithm 1 on normalised claims (:func:`synthesize`) with the settings."""
        return synthesize(z, mask, h, weights, m=settings.m if m is None else m, k=settings.k,
                          gamma=settings.gamma, eps0=settings.eps0, privacy_test=privacy_test,
                          reps=reps, batch_size=settings.batch_size,
                          max_candidates=settings.max_candidates, rng=rng)

    def audit_cases(self, settings, epsilon=None, *, domain_size=None, shape=None):
        """Theorem 2 per released claim, for one object of 12 claims whose last claim is
        replaced (App. C's neighbours): in the theorem's setting (D's normalisation and
        bandwidth for both inputs, the claim moved far out), and as the pipeline runs it (each
        input normalised and its bandwidth chosen from its own claims) with the replacements a
        skeptic tries (:func:`audit_neighbours`: a data-entry error ×1000, the object's far
        tail, a sign flip). The statistic is a released claim in the data's units (−1e9, below
        any claim, where the cap left it unreleased). Uniform and non-uniform (1:3) seed
        weights; the m claims' composition shown beside."""
        from ..audit import Case

        d_claims = AUDIT_OBJECT[None, :]
        mask = np.ones_like(d_claims, dtype=bool)
        z_d, mean_d, scale_d, h_d = self.units(d_claims, mask, settings)
        uniform = np.full(d_claims.shape, 1.0 / d_claims.shape[1])
        eps, delta = (float(v[0]) for v in self.budget(uniform, mask, settings))
        ranked = np.linspace(1.0, 3.0, d_claims.shape[1])[None, :]
        ranked = ranked / ranked.sum()
        eps_w, delta_w = (float(v[0]) for v in self.budget(ranked, mask, settings))

        def release(replaced, weights, *, fixed, which_released="first"):
            d2_claims = d_claims.copy()
            d2_claims[0, -1] = replaced
            m_run = 1 if which_released == "first" else settings.m

            def sample(rng, n, which):
                claims = d_claims if which == "D" else d2_claims
                if fixed:  # the theorem's setting: D's normalisation and bandwidth for both
                    z, mean, scale, h = (claims - mean_d[:, None]) / scale_d[:, None], \
                        mean_d, scale_d, h_d
                else:
                    z, mean, scale, h = self.units(claims, mask, settings)
                out = self.sample_release(z, mask, h, weights, settings, rng=rng, reps=n,
                                          m=m_run).released[:, 0, :]
                values = mean[0] + scale[0] * out  # the released claims, in the data's units
                if which_released == "first":
                    return np.nan_to_num(values[:, 0], nan=-1e9)
                if which_released == "last":
                    return np.nan_to_num(values[:, -1], nan=-1e9)
                return np.nanmax(np.where(np.isnan(values), -1e9, values), axis=1)
            return sample

        def theorem(name, claimed_eps, claimed_delta):
            return (f"Theorem 2 with {name} seed weights: ε = {claimed_eps:.4g}, δ = "
                    f"{claimed_delta:.3g} per released claim (k = {settings.k}, γ = "
                    f"{settings.gamma:g}, ε0 = {settings.eps0:g})")

        family_u = "Alg. 1: Theorem 2 per released claim (uniform weights)"
        family_w = "Alg. 1: Theorem 2 per released claim (PrisCrowd's weights, 1:3)"
        as_run = "as run: each input normalised, its bandwidth chosen, by itself"
        cases = [
            Case("priscrowd", "Alg. 1 (PrisCrowd weights)",
                 "one claim of an object moves far out; one released claim; weights 1:3 across "
                 "the claims; theorem's setting", eps_w, delta_w,
                 release(AUDIT_MOVED, ranked, fixed=True), statistic="one released claim",
                 family=family_w,
                 note=theorem("1:3", eps_w, delta_w) + "; the pipeline learns the weights from "
                      "the claims themselves (not covered by the theorem, which takes them as "
                      "given)"),
            Case("priscrowd", "Alg. 1 (uniform weights)",
                 "one claim of an object moves far out; one released claim; theorem's setting: "
                 "units and bandwidth fixed by D", eps, delta,
                 release(AUDIT_MOVED, uniform, fixed=True), statistic="one released claim",
                 family=family_u, note=theorem("uniform", eps, delta)),
        ]
        for label, value in audit_neighbours(AUDIT_OBJECT):
            cases.append(Case(
                "priscrowd", "Alg. 1 (uniform weights)",
                f"one claim {label}; one released claim; {as_run}", eps, delta,
                release(value, uniform, fixed=False), statistic="one released claim",
                family=family_u,
                note="the normalisation and bandwidth follow the data, which Theorem 2 takes "
                     "as fixed; " + theorem("uniform", eps, delta)))
        label, value = audit_neighbours(AUDIT_OBJECT)[0]
        cases.append(Case(
            "priscrowd", "Alg. 1 (uniform weights)",
            f"one claim {label}; the last of the m = {settings.m} released claims; {as_run}",
            eps, delta, release(value, uniform, fixed=False, which_released="last"),
            statistic="the m-th released claim", family=family_u,
            note="the guarantee is per released claim (Theorem 2); " + theorem("uniform", eps,
                                                                              delta)))
        cases.append(Case(
            "priscrowd", "Alg. 1 (PrisCrowd weights)",
            f"one claim {label}; one released claim; weights 1:3 across the claims; {as_run}",
            eps_w, delta_w, release(value, ranked, fixed=False), statistic="one released claim",
            family=family_w, note=theorem("1:3", eps_w, delta_w)))
        cases.append(Case(
            "priscrowd", "Alg. 1 (uniform weights)",
            f"one claim moves far out; the m = {settings.m} released claims (max); theorem's "
            "setting: units and bandwidth fixed by D", settings.m * eps,
            min(settings.m * delta, 1.0), release(AUDIT_MOVED, uniform, fixed=True,
                                                   which_released="max"),
            statistic=f"the m = {settings.m} released claims (max)", family=family_u,
            claimed=False,
            composition=f"m = {settings.m} released claims × ({eps:.4g}, {delta:.3g}) by basic "
                        f"composition = ({settings.m * eps:.4g}, "
                        f"{min(settings.m * delta, 1.0):.3g})"))
        return cases

    def law(self, settings, epsilon=None, *, domain_size=None):
        """Two statements of Alg. 1's law: without the test, a released claim is a draw from
        the weighted kernel mixture Σ_s c_s N(z_s, h²) (steps 3-4); with it, a candidate whose
        band count is k' passes with probability Pr{k' ≥ k + Lap(1/ε0)} (step 5, Lemma 5):
        checked on an object whose claims are all equal (every candidate has k' = n)."""
        from scipy import stats

        z = np.array([[-1.0, 0.0, 0.5, 2.0]])  # pragma: no mutate  (equivalent: the law's object; the sampler and the declared CDF read the same values)
        mask = np.ones_like(z, dtype=bool)
        w = np.array([[0.1, 0.2, 0.3, 0.4]])
        h = np.array([0.3])  # pragma: no mutate  (equivalent: the law's bandwidth; the sampler and the declared CDF read the same value)

        def mixture_sample(rng, n):
            return self.sample_release(z, mask, h, w, settings, rng=rng, reps=n, m=1,
                                       privacy_test=False).released[:, 0, 0]

        def mixture_cdf(x):
            return sum(w[0, s] * stats.norm.cdf(x, loc=z[0, s], scale=h[0])
                       for s in range(z.shape[1]))

        n_claims = settings.k + 1
        same = np.zeros((1, n_claims))
        same_mask = np.ones_like(same, dtype=bool)
        # Lemma 5 written out: the test passes iff k' >= k + L, L ~ Lap(1/ε0)
        x = n_claims - settings.k
        p_pass = 1.0 - 0.5 * np.exp(-settings.eps0 * x)

        def passes(rng, n):
            one = Alg1Settings(**{**_fields(settings), "m": 1, "max_candidates": 1,
                                  "batch_size": 1})
            res = self.sample_release(same, same_mask, np.array([0.2]),  # pragma: no mutate  (equivalent: every claim equal, so k' = n at any bandwidth)
                                      np.full(same.shape, 1.0 / n_claims), one, rng=rng,  # pragma: no mutate  (equivalent: any equal weights; the seed CDF is normalised)
                                      reps=n)
            return res.n_passed[:, 0].astype(np.int64)

        return [LawCheck("without the test: the weighted kernel mixture Σ c_s N(z_s, h²)",
                         mixture_sample, cdf=mixture_cdf),
                LawCheck(f"the test passes a candidate with k' = {n_claims} with probability "
                         "Pr{k' ≥ k + Lap(1/ε0)}", passes, support=np.array([0, 1]),
                         probabilities=np.array([1.0 - p_pass, p_pass]))]


def _fields(settings) -> dict:
    import dataclasses

    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
