"""PrisCrowd experiments: Table 1 / Fig. 3 / Fig. 4 on claim tables, Table 2 on simulated data,
Fig. 5 timings. Each returns tidy ``pandas`` tables that the adapter scripts write as CSV.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from ..validate import DataError
from ._flat import fit_flat, flat_claims
from .._checks import ParameterError, check_int_at_least, check_positive
from ._kde import (BANDWIDTH_RULES, UNITS, ObjectBatch, far_from_others, gaussian_density,
                   pack_objects)
from ._metrics import prefix_ise
from ..mechanisms.basic import BASIC_SENSITIVITIES, BasicSettings, basic_release
from ..mechanisms.priscrowd import Alg1Settings, synthesize, theorem2_budget, validate_test_params
from ._synthetic import simulate_claims
from ._weights import global_only_weights, uniform_weights

__all__ = [
    "Params",
    "check_ms",
    "Fitted",
    "SYNTH_METHODS",
    "fit_weights",
    "fit_claims_table",
    "drop_single_claim_objects",
    "usable_claims",
    "evaluate_release",
    "run_real_dataset",
    "run_simulated",
    "time_phase2",
    "MIN_TIMING_CALLS",
]

SYNTH_METHODS = ("PrisCrowd", "Uniform")


#: Readings of App. D's SISE (config ``priscrowd.sise``): ``squared`` Σ_i ISE_i² as printed;
#: ``sqrt`` Σ_i √ISE_i (by Cauchy-Schwarz SISE²/ISE ≤ number of objects under it; check
#: against the printed tables).
SISE_DEFINITIONS = ("squared", "sqrt")


#: Algorithm 1's defaults (the one place they live).
_ALG1 = Alg1Settings()


@dataclass(frozen=True)
class Params:
    """PrisCrowd's algorithm parameters (config ``priscrowd``), validated.

    Algorithm 1's and Theorem 2's defaults (the paper's m = 30, k = 5, γ = 4; ε0 = 1, t = 1
    and the rest ours where the paper is silent) are those of the mechanism's settings
    (:class:`crowdpriv.mechanisms.priscrowd.Alg1Settings`, :class:`~crowdpriv.mechanisms.basic.
    BasicSettings`): they live there only. The fitting parameters (Hampel, iterations) are
    phase 1's. Figure settings (Fig. 3's case studies, Fig. 4's and Fig. 5's values of m) are
    arguments of the experiment functions, so that a job reads only its own figure's block.
    """

    m: int = _ALG1.m
    k: int = _ALG1.k
    gamma: float = _ALG1.gamma
    eps0: float = _ALG1.eps0
    t: int = _ALG1.t
    delta_exponent: str = _ALG1.delta_exponent
    bandwidth: str = _ALG1.bandwidth
    mad_min: float = _ALG1.mad_min
    h_min: float = _ALG1.h_min
    hampel_quantiles: tuple = (0.5, 0.75, 0.85)
    hampel_update: bool = False
    max_iter: int = 100
    tol: float = 1e-8
    batch_size: int = _ALG1.batch_size
    max_candidates: int = _ALG1.max_candidates
    sise: str = "squared"
    units: str = _ALG1.units
    basic_sensitivity: str = BasicSettings().sensitivity
    uniform_test: bool = True
    basic_epsilons: dict = field(
        default_factory=lambda: {"Strong": 0.1, "Normal": 1.0, "Weak": 10.0}
    )
    repetitions: int = 10

    def __post_init__(self):
        validate_test_params(self.k, self.gamma, self.eps0, self.m)
        t = check_int_at_least("t", self.t, 1)
        if t >= self.k:
            raise ParameterError("t", self.t, f"t must satisfy 1 <= t < k={self.k} (Theorem 2), "
                                 f"got {self.t!r}")
        qs = tuple(self.hampel_quantiles)
        if len(qs) != 3 or not all(isinstance(q, (int, float)) for q in qs) or not (
                0 < qs[0] < qs[1] < qs[2] <= 1):
            raise ParameterError("hampel_quantiles", list(qs), "hampel_quantiles must be 3 "
                                 f"increasing numbers in (0, 1], got {list(qs)}")
        if self.bandwidth not in BANDWIDTH_RULES:
            raise ValueError(f"bandwidth must be one of {BANDWIDTH_RULES}, got {self.bandwidth!r}")
        check_positive("h_min", self.h_min)
        if self.units not in UNITS:
            raise ValueError(f"units must be one of {UNITS}, got {self.units!r}")
        if self.sise not in SISE_DEFINITIONS:
            raise ValueError(f"sise must be one of {SISE_DEFINITIONS}, got {self.sise!r}")
        if self.basic_sensitivity not in BASIC_SENSITIVITIES:
            raise ValueError(f"basic_sensitivity must be one of {BASIC_SENSITIVITIES}, "
                             f"got {self.basic_sensitivity!r}")
        for name in ("max_iter", "batch_size", "max_candidates", "repetitions"):
            check_int_at_least(name, getattr(self, name), 1)
        for name, eps in self.basic_epsilons.items():
            check_positive(f"basic_epsilons.{name}", eps)

    @classmethod
    def from_mapping(cls, mapping):
        """Build from a config mapping, ignoring keys that are not parameters (only the
        parameters are read: a job's params hold the keys it reads, priscrowd.JOB_KEYS)."""
        kw = {f.name: mapping[f.name] for f in fields(cls) if f.name in mapping}
        if "hampel_quantiles" in kw:
            kw["hampel_quantiles"] = tuple(kw["hampel_quantiles"])
        if "basic_epsilons" in kw:
            kw["basic_epsilons"] = dict(kw["basic_epsilons"])
        return cls(**kw)


def check_ms(name: str, ms, m: int) -> np.ndarray:
    """A list of release sizes m' in [1, m] (Fig. 4's and Fig. 5's sweeps)."""
    ms = [check_int_at_least(name, v, 1) for v in ms]
    if not ms:
        raise ParameterError(name, ms, f"{name} must list at least one release size")
    too_big = [v for v in ms if v > m]
    if too_big:
        raise ParameterError(name, too_big[0], f"{name} must be integers in [1, m={m}] (the "
                             f"release size m' cannot exceed m), got {too_big[0]!r}")
    return np.asarray(ms, dtype=int)


@dataclass
class Fitted:
    """Phase 1 of PrisCrowd on one dataset: batches and all weights (Eq. 1-6)."""

    objects: np.ndarray
    sources: np.ndarray
    batches: list
    g: np.ndarray
    local: list
    combined: list
    n_iter_global: int

    def weights(self, i: int, method: str) -> np.ndarray:
        """Seed weights of batch ``i`` for a synthesis method (or "Global" for Fig. 3)."""
        b = self.batches[i]
        if method == "PrisCrowd":
            return self.combined[i]
        if method == "Uniform":
            return uniform_weights(b)
        if method == "Global":
            return global_only_weights(b, self.g)
        raise ValueError(f"method must be PrisCrowd, Uniform or Global, got {method!r}")


def fit_weights(obj_codes, src_codes, values, *, objects, sources, params: Params, groups=None,
                learn=True):
    """Normalise, choose bandwidths and learn global, local and combined weights.

    PrisCrowd Sec. 4.2 (Eq. 1-6) on the flat claim layout (:mod:`._flat`: segment sums, sorted
    medians, each object's local weights iterated to its own convergence); the weights are then
    scattered into the padded :class:`ObjectBatch` es the release phase uses. ``groups`` (per
    source) keeps stacked independent datasets apart in Eq. 2's normalisation. ``learn=False``
    stops after the units and bandwidths (what Uniform and Basic read; phase 1 uses no random
    numbers): the learned weights are then ``None`` and ``n_iter_global`` 0.
    """
    fc = flat_claims(obj_codes, src_codes, values, n_objects=len(objects), object_names=objects,
                     rule=params.bandwidth, mad_min=params.mad_min, h_min=params.h_min,
                     units=params.units, gram=learn)
    batches = pack_objects(obj_codes, src_codes, values, n_objects=len(objects),
                           object_names=objects, h=fc.h, units=params.units)
    if not learn:
        return Fitted(np.asarray(objects), np.asarray(sources), batches, None, None, None, 0)
    g, local_flat, combined_flat, n_iter, _ = fit_flat(
        fc, len(sources), quantiles=params.hampel_quantiles,
        update_thresholds=params.hampel_update, max_iter=params.max_iter, tol=params.tol,
        groups=groups)

    def scatter(flat, b):
        idx = fc.start[b.index][:, None] + np.arange(b.mask.shape[1])[None, :]
        return np.where(b.mask, flat[np.minimum(idx, len(flat) - 1)], 0.0)

    local = [scatter(local_flat, b) for b in batches]
    combined = [scatter(combined_flat, b) for b in batches]
    return Fitted(np.asarray(objects), np.asarray(sources), batches, g, local, combined, n_iter)


def drop_single_claim_objects(claims: pd.DataFrame):
    """Remove objects with fewer than two claims (they cannot be normalised).

    Returns the filtered table and the number of objects removed.
    """
    counts = claims.groupby("task")["value"].transform("size")
    keep = counts >= 2
    dropped = claims.loc[~keep, "task"].nunique()
    return claims.loc[keep].reset_index(drop=True), int(dropped)


def usable_claims(claims: pd.DataFrame, truth: pd.DataFrame, *, claims_path, truth_path):
    """PrisCrowd's filtering of a validated dataset, refusing one it leaves empty.

    Drops single-claim objects (:func:`drop_single_claim_objects`); raises
    :class:`crowdpriv.validate.DataError` when no object is left or none of those left has a
    truth row (accuracy could not be measured). Returns ``(claims, dropped)``.
    """
    kept, dropped = drop_single_claim_objects(claims)
    if kept.empty:
        raise DataError(claims_path, f"every one of the {dropped} objects has a single claim; "
                        "PrisCrowd drops those (its normalisation needs two, Sec. 5), so nothing "
                        "is left", remedy="Use a dataset where objects get two or more claims")
    if not truth["task"].isin(kept["task"]).any():
        raise DataError(truth_path, "no object with two or more claims has a truth row, so "
                        "accuracy cannot be measured",
                        remedy="Give truth rows for the claimed objects")
    return kept, dropped


def fit_claims_table(claims: pd.DataFrame, params: Params, *, learn=True):
    """:func:`fit_weights` on a tidy claims table (object, source, value)."""
    obj_codes, objects = pd.factorize(claims["task"], sort=True)
    src_codes, sources = pd.factorize(claims["worker"], sort=True)
    return fit_weights(
        obj_codes, src_codes, claims["value"].to_numpy(float),
        objects=np.asarray(objects), sources=np.asarray(sources), params=params, learn=learn,
    )


#: The tables of :func:`run_real_dataset` that read the learned weights (phase 1's output)
#: whichever methods are released.
_WEIGHT_TABLES = ("budget", "fig3_curves", "fig3_claims", "info")


def _needs_weights(methods, tables) -> bool:
    """Whether phase 1's learned weights are read: by PrisCrowd's release, or by a table of
    :data:`_WEIGHT_TABLES` (``tables`` None: every table)."""
    return (methods is None or "PrisCrowd" in methods or tables is None
            or any(t in _WEIGHT_TABLES for t in tables))


def _subset(b: ObjectBatch, rows) -> ObjectBatch:
    return ObjectBatch(
        b.index[rows], b.values[rows], b.z[rows], b.mask[rows], b.src[rows], b.mean[rows],
        b.scale[rows], b.h[rows],
    )


def _reference(b: ObjectBatch, ref_mu, ref_sd):
    """Reference density of each object of ``b`` in its normalised units, as (w, mu, sd) (G, 1).

    ``ref_mu`` (per object, original units); ``ref_sd`` (per object, original units) or None
    for the kernel reference ``K_h(. - truth)`` (sd = h in normalised units).
    """
    mu = (ref_mu[b.index] - b.mean) / b.scale
    sd = b.h if ref_sd is None else ref_sd[b.index] / b.scale
    return np.ones((len(b.index), 1)), mu[:, None], sd[:, None]


def evaluate_release(fitted: Fitted, ref_mu, ref_sd, params: Params, *, rng, reps=None,
                     ms=(), methods=None):
    """Release every object that has a reference with each method and score it (Table 1/2, Fig. 4).

    PrisCrowd and Uniform: Algorithm 1 with ``m`` claims per object, scored for every prefix
    length in ``ms`` and ``m`` (the first m' claims released by Alg. 1 are distributed exactly
    as a run with m = m'). Basic: Laplace noise at each level of ``basic_epsilons``, scored once.
    For PrisCrowd it also records Fig. 5's deterministic work measure: the candidates Alg. 1
    tests to release m' claims, for every m' = 1 ... m.

    Parameters
    ----------
    fitted : Fitted
    ref_mu : ndarray (N,)
        Reference centre per object (original units), NaN where the object has none.
    ref_sd : ndarray (N,) or None
        Reference sd (original units); None = the object's kernel (truth reference).
    params : Params
    rng : numpy.random.Generator
        Split into one independent stream per method.
    reps : int, optional
        Defaults to ``params.repetitions``.
    ms : sequence of int
        Release sizes to score (Fig. 4); ``m`` is always scored.
    methods : sequence of str, optional
        Only these methods (``PrisCrowd``, ``Uniform``, ``Basic(<level>)``); the others are
        skipped but keep their random streams, so a method's numbers never depend on which
        others run.

    Returns
    -------
    dict
        ``objects`` (N_t,) indices of the scored objects; ``ise[method]`` (R, N_t, len(ms))
        per-object ISE (Basic methods have len(ms) = 1, at their own release size); ``ms``;
        ``release[method]`` dict of (R, N_t) counts (n_released, n_candidates, n_passed);
        ``candidates`` (R, N_t, m): PrisCrowd's candidates tested to release 1 ... m claims;
        ``n_claims`` (N_t,): claims per scored object.
    """
    reps = params.repetitions if reps is None else check_int_at_least("reps", reps, 1)
    ms = np.asarray(list(ms), dtype=int)
    if params.m not in ms:
        ms = np.append(ms, params.m)
    ref_mu = np.asarray(ref_mu, dtype=float)
    basic_names = [f"Basic({name})" for name in params.basic_epsilons]
    names = [*SYNTH_METHODS, *basic_names]
    streams = dict(zip(names, rng.spawn(len(names))))
    if methods is not None:
        unknown = [x for x in methods if x not in names]
        if unknown:
            raise ValueError(f"methods must be among {names}, got {unknown}")
        names = [x for x in names if x in methods]
        basic_names = [x for x in basic_names if x in methods]
    synth = [x for x in SYNTH_METHODS if x in names]
    ise = {name: [] for name in names}
    rel = {name: {"n_released": [], "n_candidates": [], "n_passed": []} for name in synth}
    obj_idx, candidates, n_claims = [], [], []
    for i, b in enumerate(fitted.batches):
        rows = np.flatnonzero(np.isfinite(ref_mu[b.index]))
        if rows.size == 0:
            continue
        sub = _subset(b, rows)
        obj_idx.append(sub.index)
        w_ref, mu_ref, sd_ref = _reference(sub, ref_mu, ref_sd)
        for method in synth:
            res = synthesize(
                sub.z, sub.mask, sub.h, fitted.weights(i, method)[rows], m=params.m, k=params.k,
                gamma=params.gamma, eps0=params.eps0, reps=reps, batch_size=params.batch_size,
                max_candidates=params.max_candidates, rng=streams[method],
                privacy_test=method != "Uniform" or bool(params.uniform_test),
            )
            ise[method].append(prefix_ise(res.released, sub.h, w_ref, mu_ref, sd_ref, ms))
            for key in rel[method]:
                rel[method][key].append(getattr(res, key))
            if method == "PrisCrowd":
                candidates.append(np.stack(
                    [res.candidates_for(j) for j in range(1, params.m + 1)], axis=2))
                n_claims.append(sub.counts)
        for name, eps in params.basic_epsilons.items():
            name = f"Basic({name})"
            if name not in basic_names:
                continue
            pts = basic_release(sub.z, sub.mask, eps, reps=reps, rng=streams[name],
                                sensitivity=params.basic_sensitivity)
            ise[name].append(prefix_ise(pts, sub.h, w_ref, mu_ref, sd_ref, [pts.shape[2]]))
    objects = np.concatenate(obj_idx) if obj_idx else np.zeros(0, dtype=int)
    cat = {
        name: (np.concatenate(v, axis=1) if v else np.zeros((reps, 0, 1))) for name, v in ise.items()
    }
    release = {
        meth: {key: np.concatenate(v, axis=1) if v else np.zeros((reps, 0), dtype=int)
               for key, v in d.items()}
        for meth, d in rel.items()
    }
    work = (np.concatenate(candidates, axis=1) if candidates
            else np.zeros((reps, 0, params.m), dtype=int))
    return {"objects": objects, "ise": cat, "ms": ms, "release": release,
            "candidates": work, "n_claims": np.concatenate(n_claims) if n_claims
            else np.zeros(0, dtype=int)}


def _score_rows(ise, ms, m, group_of_object=None, reps_label=None, sise="squared"):
    """Sum per-object ISE into rows of (method, rep, m, ISE, SISE).

    SISE (App. D) is Σ_i ISE_i² (``sise="squared"``, as printed) or Σ_i √ISE_i (``"sqrt"``;
    :data:`SISE_DEFINITIONS`); both are also given as ``SISE_squared`` and ``SISE_sqrt``, so a
    reading of the SISE needs no re-run (:data:`crowdpriv.priscrowd.DERIVED_KEYS`)."""
    rows_t, rows_f = [], []
    for method, arr in ise.items():
        R, N, _ = arr.shape
        if group_of_object is None:
            groups = np.zeros(N, dtype=int)
        else:
            groups = np.asarray(group_of_object)
        n_groups = groups.max() + 1 if N else 1
        for r in range(R):
            for j in range(arr.shape[2]):
                tot = np.bincount(groups, weights=arr[r, :, j], minlength=n_groups)
                by_definition = {
                    "squared": np.bincount(groups, weights=arr[r, :, j] ** 2, minlength=n_groups),
                    "sqrt": np.bincount(groups, weights=np.sqrt(arr[r, :, j]), minlength=n_groups),
                }
                sq = by_definition[sise]
                for gidx in range(n_groups):
                    rep = r if group_of_object is None else gidx
                    rec = {"method": method, "rep": rep, "ISE": tot[gidx], "SISE": sq[gidx],
                           **{f"SISE_{name}": v[gidx] for name, v in by_definition.items()}}
                    is_basic = arr.shape[2] == 1 and method.startswith("Basic")
                    if is_basic or ms[j] == m:
                        rows_t.append(rec)
                    if not is_basic:
                        rows_f.append({**rec, "m": int(ms[j])})
    return pd.DataFrame(rows_t), pd.DataFrame(rows_f)


def _work_rows(candidates, n_claims):
    """PrisCrowd Fig. 5's deterministic work per repetition and m' = 1 ... m (long table).

    With the privacy test: candidates Alg. 1 tests (summed over the scored objects) and kernel
    evaluations of the test (|U_i| per candidate). Without it: exactly m' candidates per object
    and no kernel evaluation, by construction.
    """
    R, N, M = candidates.shape
    with_test = candidates.sum(axis=1)  # (R, M)
    kernels = np.einsum("rnm,n->rm", candidates, np.asarray(n_claims, dtype=np.int64))
    rep = np.repeat(np.arange(R), M)
    m = np.tile(np.arange(1, M + 1), R)
    tested = pd.DataFrame({"rep": rep, "m": m, "privacy_test": True,
                           "candidates": with_test.ravel(), "kernel_evaluations": kernels.ravel()})
    untested = pd.DataFrame({"rep": rep, "m": m, "privacy_test": False, "candidates": m * N,
                             "kernel_evaluations": 0})
    return pd.concat([tested, untested], ignore_index=True)


def _release_rows(release, m, group_of_object=None):
    rows = []
    for method, d in release.items():
        n_rel, n_cand, n_pass = d["n_released"], d["n_candidates"], d["n_passed"]
        R, N = n_rel.shape
        groups = np.zeros(N, dtype=int) if group_of_object is None else np.asarray(group_of_object)
        for r in range(R):
            for gidx in np.unique(groups) if N else []:
                sel = groups == gidx
                nr = n_rel[r, sel]
                rows.append({
                    "method": method,
                    "rep": r if group_of_object is None else int(gidx),
                    "tasks": int(sel.sum()),
                    "fully": int((nr >= m).sum()),
                    "partly": int(((nr > 0) & (nr < m)).sum()),
                    "never": int((nr == 0).sum()),
                    "candidates": int(n_cand[r, sel].sum()),
                    "passed": int(n_pass[r, sel].sum()),
                })
    return pd.DataFrame(rows)


def _budget_rows(fitted: Fitted, has_ref, params: Params):
    rows = []
    for i, b in enumerate(fitted.batches):
        for method in SYNTH_METHODS:
            eps, delta = theorem2_budget(
                fitted.weights(i, method), b.mask, k=params.k, gamma=params.gamma,
                eps0=params.eps0, t=params.t, delta_exponent=params.delta_exponent,
            )
            rows.append(pd.DataFrame({
                "method": method, "task": fitted.objects[b.index], "n_claims": b.counts,
                "has_reference": has_ref[b.index], "epsilon": eps, "delta": delta,
            }))
    return pd.concat(rows, ignore_index=True).sort_values(["method", "task"], kind="stable")


def uniform_ise_to_reference(z, mask, h, mu_ref):
    """Closed-form ISE between each object's uniform-weight KDE and its reference ``K_h(. - mu)``
    (normalised units; PrisCrowd Sec. 5's ISE): with φ_s the N(0, s²) density,
    ``ISE = Σ_ij φ_{√2h}(z_i - z_j) / n² - 2 Σ_i φ_{√2h}(z_i - mu) / n + φ_{√2h}(0)``.

    ``z`` (G, n) claims, ``mask`` (G, n) valid, ``h`` (G,) bandwidths, ``mu_ref`` (G,)."""
    z = np.where(mask, z, 0.0)
    n = mask.sum(1).astype(float)
    var = 2.0 * h[:, None] ** 2

    def phi(d, v):
        return np.exp(-0.5 * d * d / v) / np.sqrt(2 * np.pi * v)

    pair = phi(z[:, :, None] - z[:, None, :], var[:, :, None]) * (mask[:, :, None] & mask[:, None, :])
    cross = phi(z - mu_ref[:, None], var) * mask
    return pair.sum((1, 2)) / n**2 - 2 * cross.sum(1) / n + phi(0.0, var[:, 0])


def choose_case_studies(fitted: Fitted, ref_mu, *, quantiles, min_claims: int, min_distinct: int):
    """Fig. 3's case-study objects by a documented rule (config ``priscrowd.fig3``), no seed.

    Candidates: objects with a reference, at least ``min_claims`` claims and at least
    ``min_distinct`` distinct claim values (objects whose claims all agree show nothing of the
    weights). They are ranked by how far the *uniform*-weight density is from the reference
    (:func:`uniform_ise_to_reference`: the difficulty of the object, not the method's own
    success), and the objects at the given ``quantiles`` of that ranking are chosen (ties by
    object name; a quantile that hits an already chosen object takes the next one).

    Returns a list of (batch index, row) pairs in the order of ``quantiles``.
    """
    cands, score, names = [], [], []
    for i, b in enumerate(fitted.batches):
        vals = np.where(b.mask, b.values, np.nan)
        srt = np.sort(vals, axis=1)
        distinct = 1 + (np.diff(srt, axis=1) > 0).sum(1)
        mu = (ref_mu[b.index] - b.mean) / b.scale
        ok = np.isfinite(mu) & (b.counts >= min_claims) & (distinct >= min_distinct)
        rows = np.flatnonzero(ok)
        if rows.size:
            ise = uniform_ise_to_reference(b.z[rows], b.mask[rows], b.h[rows], mu[rows])
            cands += [(i, int(r)) for r in rows]
            score.append(ise)
            names += [str(fitted.objects[b.index[r]]) for r in rows]
    if not cands:
        return []
    score = np.concatenate(score)
    order = np.lexsort((np.array(names), score))
    picked: list[int] = []
    for q in quantiles:
        pos = int(round(float(q) * (len(order) - 1)))
        while pos < len(order) and order[pos] in picked:
            pos += 1
        if pos < len(order):
            picked.append(int(order[pos]))
    return [cands[p] for p in picked]


def _fig3_tables(fitted: Fitted, ref_mu, ref_sd, *, quantiles, min_claims: int,
                 min_distinct: int, grid: int):
    """Case-study densities (PrisCrowd Fig. 3) for the objects :func:`choose_case_studies`
    picks, on ``grid`` points over the full range of the claims plus ``grid`` points over the
    view (the claims inside Tukey's far fences, Q1 − 3 IQR .. Q3 + 3 IQR with the IQR at least
    two bandwidths, and the reference, ± 4 bandwidths), so the ISE sees every claim and the plot
    is not flattened by outliers (``view_lo``/``view_hi``)."""
    min_claims = check_int_at_least("fig3.min_claims", min_claims, 2)
    min_distinct = check_int_at_least("fig3.min_distinct", min_distinct, 1)
    grid = check_int_at_least("fig3.grid", grid, 2)
    for q in quantiles:
        if not 0.0 <= float(q) <= 1.0:
            raise ParameterError("fig3.quantiles", q, f"fig3.quantiles must lie in [0, 1], got {q!r}")
    picks = choose_case_studies(fitted, ref_mu, quantiles=quantiles, min_claims=min_claims,
                                min_distinct=min_distinct)
    curves, claims = [], []
    for case, (i, r) in enumerate(picks):
        b = fitted.batches[i]
        valid = b.mask[r]
        z, h = b.z[r, valid], b.h[r]
        w_ref, mu_ref, sd_ref = _reference(_subset(b, [r]), ref_mu, ref_sd)
        pad = 4 * max(h, sd_ref.max())
        lo = min(z.min(), mu_ref.min()) - pad
        hi = max(z.max(), mu_ref.max()) + pad
        # the view: the claims not far from the others, and the reference, ± 4 bandwidths
        inside = z[~far_from_others(z, h)]
        view_lo = min(inside.min(), mu_ref.min()) - pad
        view_hi = max(inside.max(), mu_ref.max()) + pad
        x = np.union1d(np.linspace(lo, hi, grid), np.linspace(view_lo, view_hi, grid))
        dens = {}
        for label, method in (("combined", "PrisCrowd"), ("global", "Global"),
                              ("uniform", "Uniform")):
            w = fitted.weights(i, method)[r, valid]
            dens[label] = (w[None, :] * gaussian_density(x[:, None] - z[None, :], h * h)).sum(1)
        dens["reference"] = (w_ref[0][None, :] * gaussian_density(
            x[:, None] - mu_ref[0][None, :], sd_ref[0][None, :] ** 2)).sum(1)
        name = fitted.objects[b.index[r]]
        scale, mean = b.scale[r], b.mean[r]
        for label, d in dens.items():
            curves.append(pd.DataFrame({
                "case": case, "task": name, "curve": label, "x_normalised": x,
                "x": mean + scale * x, "density_normalised": d, "density": d / scale,
                "view_lo": view_lo, "view_hi": view_hi,
            }))
        src = b.src[r, valid]
        claims.append(pd.DataFrame({
            "case": case, "task": name, "worker": fitted.sources[src], "x_normalised": z,
            "x": b.values[r, valid], "combined_weight": fitted.combined[i][r, valid],
            "local_weight": fitted.local[i][r, valid], "global_weight": fitted.g[src],
            "bandwidth_normalised": h,
        }))
    cols_c = ["case", "task", "curve", "x_normalised", "x", "density_normalised", "density",
              "view_lo", "view_hi"]
    return (pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(columns=cols_c),
            pd.concat(claims, ignore_index=True) if claims else pd.DataFrame())


def run_real_dataset(claims: pd.DataFrame, truth: pd.DataFrame, params: Params, *, fig3: dict,
                     fig4_m, rng, progress=None, methods=None, tables=None):
    """Table 1, Figs. 3-5, release and privacy-budget data for one claims table.

    Reference density of object i: ``K_h(. - truth_i)`` (docs/results.md, PrisCrowd: our defaults); only objects
    with a truth are released and scored (the paper: "objects whose ground truths can be
    achieved"). ``claims`` must have no single-claim objects (see
    :func:`drop_single_claim_objects`). ``fig3`` holds Fig. 3's ``quantiles``, ``min_claims``,
    ``min_distinct`` and ``grid`` (:func:`choose_case_studies`); ``fig4_m`` the release sizes of Fig. 4. ``progress(label)`` is called after
    each phase (fit, release, case study), for the job's log. ``tables``: compute only these
    of the returned tables (default all; the others are left out), e.g. a reading's re-run that
    reads neither Fig. 3 nor the budget; phase 1 then learns no weights unless PrisCrowd is
    released (the tables computed are the same: no random number is drawn outside the release).

    Returns
    -------
    dict of DataFrame
        ``table`` (method, rep, ISE, SISE at m), ``fig4`` (+ m), ``work`` (Fig. 5's work per
        rep, m' and privacy_test), ``release`` (per method and rep), ``budget`` (per method and
        object), ``fig3_curves``, ``fig3_claims``, ``info``.
    """
    ms = check_ms("fig4.m", fig4_m, params.m)  # before any work: a bad sweep fails at once
    rng_release, _ = rng.spawn(2)  # the second stream was Fig. 3's; its cases need no seed now
    step = progress or (lambda label: None)
    fitted = fit_claims_table(claims, params, learn=_needs_weights(methods, tables))
    step(f"phase 1 (weights) fitted, {fitted.n_iter_global} global iterations")
    t = truth.drop_duplicates("task").set_index("task")["truth"]
    ref_mu = t.reindex(fitted.objects).to_numpy(float)
    ev = evaluate_release(fitted, ref_mu, None, params, rng=rng_release, ms=ms, methods=methods)
    step("releases (PrisCrowd, Uniform, Basic) scored")
    table, fig4 = _score_rows(ev["ise"], ev["ms"], params.m, sise=params.sise)
    work = _work_rows(ev["candidates"], ev["n_claims"])
    release = _release_rows(ev["release"], params.m)
    out = {"table": table, "fig4": fig4, "work": work, "release": release}

    def wanted(*names):  # a table left out of ``tables`` is not computed
        return tables is None or any(name in tables for name in names)

    if wanted("budget"):
        out["budget"] = _budget_rows(fitted, np.isfinite(ref_mu), params)
    if wanted("fig3_curves", "fig3_claims"):
        out["fig3_curves"], out["fig3_claims"] = _fig3_tables(fitted, ref_mu, None, **fig3)
        step("Fig. 3 case studies drawn")
    if wanted("info"):
        out["info"] = pd.DataFrame([{
            "tasks": len(fitted.objects), "workers": len(fitted.sources),
            "claims": int(len(claims)), "tasks_with_truth": int(np.isfinite(ref_mu).sum()),
            "objects_below_k": int(sum((b.counts < params.k).sum() for b in fitted.batches)),
            "objects_below_k_with_truth": int(sum(
                ((b.counts < params.k) & np.isfinite(ref_mu[b.index])).sum()
                for b in fitted.batches)),
            "global_iterations": fitted.n_iter_global,
        }])
    return out if tables is None else {name: out[name] for name in tables if name in out}


def run_simulated(p, params: Params, *, n_users=30, n_objects=50, mu=5.0, sigma=0.5, low=0.0,
                  high=10.0, rng, methods=None):
    """Table 2 for one fraction ``p`` of unreliable users (PrisCrowd App. E).

    ``params.repetitions`` independent datasets are simulated (:func:`simulate_claims`) and stacked
    into one problem with the users of each repetition kept apart (``groups``), which is
    exact because weights never couple two repetitions. Reference density: the reliable
    users' generating density ``N(mu, sigma^2)``.

    Returns
    -------
    dict of DataFrame
        ``table`` (method, rep, ISE, SISE) and ``release``.
    """
    reps = params.repetitions
    rng_data, rng_release = rng.spawn(2)
    data = [simulate_claims(n_users, n_objects, p, mu=mu, sigma=sigma, low=low, high=high,
                            rng=r) for r in rng_data.spawn(reps)]
    values = np.concatenate([v for v, _ in data], axis=0)  # (reps*n_objects, n_users)
    n_obj = reps * n_objects
    obj_codes = np.repeat(np.arange(n_obj), n_users)
    rep_of_obj = np.arange(n_obj) // n_objects
    src_codes = (rep_of_obj[:, None] * n_users + np.arange(n_users)[None, :]).ravel()
    groups = np.repeat(np.arange(reps), n_users)
    objects = np.array([f"r{r}_o{o}" for r in range(reps) for o in range(n_objects)])
    sources = np.array([f"r{r}_u{u}" for r in range(reps) for u in range(n_users)])
    fitted = fit_weights(obj_codes, src_codes, values.ravel(), objects=objects, sources=sources,
                         params=params, groups=groups, learn=_needs_weights(methods, ()))
    ev = evaluate_release(fitted, np.full(n_obj, mu), np.full(n_obj, sigma), params,
                          rng=rng_release, reps=1, methods=methods)
    group = rep_of_obj[ev["objects"]]
    table, _ = _score_rows(ev["ise"], ev["ms"], params.m, group_of_object=group,
                           sise=params.sise)
    release = _release_rows(ev["release"], params.m, group_of_object=group)
    return {"table": table, "release": release}


#: Fewest timed calls whose median is reported as a wall-clock time (after one warm-up call).
MIN_TIMING_CALLS = 5


def time_phase2(claims: pd.DataFrame, truth: pd.DataFrame, params: Params, *, ms, calls=5,
                rng):
    """Wall-clock time of phase 2 (Alg. 1) vs m, with and without the privacy test (Fig. 5).

    Weights are fitted once (phase 1, not timed); one warm-up release is run, then every
    (m, test) release of the objects with a truth is timed ``calls`` times, the conditions
    interleaved so that drifts in machine load hit all alike, and the median is reported.
    Times depend on the machine and its load: they are plotted, written to
    ``fig5_timings.csv`` and never decide a verdict (the claims use :func:`_work_rows`).

    Returns
    -------
    DataFrame
        m, privacy_test, calls, seconds (median), min_seconds, max_seconds.
    """
    calls = check_int_at_least("fig5.timing_calls", calls, MIN_TIMING_CALLS)
    ms = check_ms("fig5.m", ms, max(max(ms), 1))
    fitted = fit_claims_table(claims, params)
    t = truth.drop_duplicates("task").set_index("task")["truth"]
    has = np.isfinite(t.reindex(fitted.objects).to_numpy(float))
    subs = [(i, np.flatnonzero(has[b.index])) for i, b in enumerate(fitted.batches)]
    subs = [(i, r) for i, r in subs if r.size]

    def release(m, test):
        t0 = time.perf_counter()
        for i, r in subs:
            b = fitted.batches[i]
            synthesize(b.z[r], b.mask[r], b.h[r], fitted.combined[i][r], m=m, k=params.k,
                       gamma=params.gamma, eps0=params.eps0, privacy_test=test,
                       batch_size=params.batch_size,
                       max_candidates=max(params.max_candidates, m), rng=rng)
        return time.perf_counter() - t0

    release(int(ms[0]), True)  # warm-up: imports and cold caches
    conditions = [(int(m), test) for m in ms for test in (True, False)]
    seconds = np.array([[release(m, test) for m, test in conditions] for _ in range(calls)])
    return pd.DataFrame({
        "m": [m for m, _ in conditions], "privacy_test": [test for _, test in conditions],
        "calls": calls, "seconds": np.median(seconds, axis=0),
        "min_seconds": seconds.min(axis=0), "max_seconds": seconds.max(axis=0),
    })
