"""Truth inference for categorical labels, plain and through a known randomisation channel.

:mod:`crowdpriv.truth` averages label codes (LDP-sparse Alg. 1, CRH, GTM), which suits
continuous answers; on labels it mixes classes (a 2.14 is neither 2 nor 3). This module treats a
label as a category. Everything works on long format, three integer arrays ``task``,
``worker``, ``label`` of one length (one entry per observed answer) with the sizes
``n_tasks``, ``n_workers``, ``n_labels`` (K); every pass over the answers is an
``np.bincount``, the only Python loops run over labels, grid points and EM iterations.

Aggregators (all return :class:`CategoricalResult`):

* :func:`majority_vote`: counts per task and label; ties broken at random (``ties="random"``,
  with an ``rng``) or by the lowest label (``ties="lowest"``, the default: crowd-kit's
  ``MajorityVote`` rule, whose ``probas_.idxmax`` returns the first of the label columns,
  sorted ascending).
* :func:`sun_weighted_vote`: the same vote, each worker weighted by LDP-sparse Alg. 1's
  quality q_i ∝ 1/σ_i as :func:`crowdpriv.truth.sun` computes it on the label codes.
* :func:`dawid_skene`: Dawid & Skene (1979), one K x K confusion matrix per worker, EM.
* :func:`one_coin_dawid_skene`: one accuracy per worker, errors uniform over the other labels.
* :func:`channel_dawid_skene`: Dawid-Skene whose observed symbol is the worker's response
  passed through a known channel (LDP-sparse's RR with NULL as a symbol, RR on answered cells,
  the 2-Layer baseline's RR with a hidden per-worker ε_i); :func:`rr_null_channel`,
  :func:`rr_answers_channel`, :func:`two_layer_channels` build the channels.

For continuous releases (LP, PPTD, MF) :func:`noise_aware_mean` weights each worker by the
inverse of his own error variance plus the known added noise variance, and
:func:`round_to_labels` decodes to labels.

What inverting a symmetric RR channel can and cannot do (docs/inference.md): alone it never
changes a vote's argmax. RR maps every label count by one increasing affine map, so the
"de-biased" counts n̂ = (o − q·N)/(p − q) rank the labels as the raw counts do. A gain must come
from modelling workers (who is reliable, who answered at all), the class prior, and the
channel's bound on how informative one observation can be (log(p/q)), which is what
:func:`channel_dawid_skene` uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import (
    ParameterError,
    check_in_interval,
    check_int_at_least,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "CategoricalResult",
    "ContinuousResult",
    "cells_from_matrix",
    "majority_vote",
    "sun_weighted_vote",
    "dawid_skene",
    "one_coin_dawid_skene",
    "channel_dawid_skene",
    "CHANNEL_MODELS",
    "PRIORS",
    "identity_channel",
    "rr_null_channel",
    "rr_answers_channel",
    "two_layer_channels",
    "noise_aware_mean",
    "laplace_noise_variance",
    "mf_noise_variance",
    "round_to_labels",
    "accuracy",
    "METHODS",
]

TIES = ("lowest", "random")
#: Class-prior rules of the EM models (or pass K fixed probabilities).
PRIORS = ("estimate", "uniform", "moments")
#: Stopping rules of the EM models: the objective's rise per answered task ("task") or per
#: answer with the prior counted once per answer, as crowd-kit's DawidSkene ("answer").
STOPPING_RULES = ("answer", "task")


@dataclass(frozen=True)
class CategoricalResult:
    """Output of every categorical aggregator.

    Attributes
    ----------
    truths : ndarray of int64, shape (n_tasks,)
        Estimated label per task; ``-1`` for a task without any observation.
    posterior : ndarray, shape (n_tasks, K)
        Votes: the (weighted) vote shares. EM models: the posterior P(z_j = c | data); for a
        task without observations, the estimated class prior. Rows sum to 1 (uniform rows for
        unanswered tasks in the votes).
    prior : ndarray, shape (K,)
        EM models: the estimated class prior. Votes: the mean vote share.
    skill : ndarray, shape (n_workers,)
        Votes: the worker's agreement rate with the outcome (majority vote) or his weight
        (Sun's q_i). EM models: Σ_c prior_c θ_w[c, c], the probability that the worker's
        response (before any channel) is the true label. NaN for a worker without answers.
    confusion : ndarray, shape (n_workers, R, K), or None
        EM models: θ_w[r, c] = P(response r | true label c); R = K, or more when the response
        alphabet has extra symbols (R = K + 1: "did not answer"). None for votes.
    iterations : int
        EM iterations run (0 for votes; Sun's own iterations for the weighted vote).
    converged : bool
        The stopping rule held before ``max_iter`` (True for votes).
    objective : float
        EM models: the final evidence lower bound per answered task (see :func:`dawid_skene`);
        NaN for votes.
    epsilon_posterior : ndarray, shape (n_workers, G), or None
        :func:`channel_dawid_skene` with a grid of channels: each worker's posterior over it.
    """

    truths: np.ndarray
    posterior: np.ndarray
    prior: np.ndarray
    skill: np.ndarray
    confusion: np.ndarray | None
    iterations: int
    converged: bool
    objective: float
    epsilon_posterior: np.ndarray | None = None


# -- inputs ------------------------------------------------------------------------------------
def _index_array(name, values, size, size_name):
    a = np.asarray(values)
    if a.ndim != 1:
        raise ParameterError(name, a.shape, f"{name} must be 1-d, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        if a.dtype.kind != "f" or not np.array_equal(a, np.round(a)):
            bad = (a.ravel()[0] if a.dtype.kind != "f" else a[a != np.round(a)][0]).item()
            raise ParameterError(name, bad, f"{name} must hold integers, found {bad!r}")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= size):
        bad = int(a.min() if a.min() < 0 else a.max())
        raise ParameterError(name, bad, f"{name} must lie in [0, {size}) ({size_name}={size}), "
                                        f"found {bad}")
    return a


def _long(task, worker, label, n_tasks, n_workers, n_symbols, label_name="label"):
    n_tasks = check_int_at_least("n_tasks", n_tasks, 1)
    n_workers = check_int_at_least("n_workers", n_workers, 1)
    t = _index_array("task", task, n_tasks, "n_tasks")
    w = _index_array("worker", worker, n_workers, "n_workers")
    y = _index_array(label_name, label, n_symbols, "n_symbols" if label_name != "label"
                     else "n_labels")
    if not (t.shape == w.shape == y.shape):
        raise ParameterError("task", t.shape, f"task, worker and {label_name} must have one "
                             f"length, got {t.size}, {w.size}, {y.size}")
    return t, w, y, n_tasks, n_workers


def cells_from_matrix(matrix, *, null_symbol: int | None = None):
    """Long-format ``(task, worker, label)`` of a workers x tasks matrix (``NaN`` = NULL).

    ``null_symbol=None`` drops NULL cells (answers only); an integer codes them as that symbol
    (K, for the channel models in which "did not answer" is one more symbol). The order is
    worker-major, as ``np.nonzero`` returns it.
    """
    a = np.asarray(matrix, dtype=np.float64)
    if a.ndim != 2:
        raise ParameterError("matrix", a.shape, f"matrix must be workers x tasks (2-d), got "
                             f"shape {a.shape}")
    if null_symbol is None:
        w, t = np.nonzero(~np.isnan(a))
        return t, w, a[w, t].astype(np.int64)
    null_symbol = check_int_at_least("null_symbol", null_symbol, 0)
    w, t = np.indices(a.shape).reshape(2, -1)
    v = a.ravel()
    return t, w, np.where(np.isnan(v), null_symbol, v).astype(np.int64)


# -- votes -------------------------------------------------------------------------------------
def _scores(t, y, weight, n_tasks, k):
    return np.bincount(t * k + y, weights=weight, minlength=n_tasks * k).reshape(n_tasks, k)


def _argmax(scores, ties, rng, rtol=0.0):
    """Row-wise argmax; ``ties="lowest"``: first maximum, ``"random"``: uniform among them."""
    top = scores.max(axis=1, keepdims=True)
    at_top = scores >= top - rtol * np.abs(top)
    if ties == "lowest":
        return np.argmax(at_top, axis=1)
    keys = rng.random(scores.shape)
    return np.argmax(np.where(at_top, keys, -1.0), axis=1)


def _check_ties(ties, rng):
    if ties not in TIES:
        raise ParameterError("ties", ties, f"ties must be one of {TIES}, got {ties!r}")
    if ties == "random" and not isinstance(rng, np.random.Generator):
        raise ParameterError("rng", rng, "ties='random' needs rng=np.random.Generator, got "
                             f"{type(rng).__name__}")


def _vote_result(t, w, y, scores, truths, n_workers):
    total = scores.sum(axis=1, keepdims=True)
    answered = total[:, 0] > 0
    k = scores.shape[1]
    shares = np.where(answered[:, None], scores / np.where(answered, total[:, 0], 1.0)[:, None],
                      1.0 / k)
    truths = np.where(answered, truths, -1)
    # each worker's agreement with the outcome (crowd-kit's MajorityVote.skills_)
    n = np.bincount(w, minlength=n_workers)
    agree = np.bincount(w, weights=(y == truths[t]), minlength=n_workers)
    with np.errstate(invalid="ignore", divide="ignore"):
        skill = np.where(n > 0, agree / n, np.nan)
    prior = shares[answered].mean(axis=0) if answered.any() else np.full(k, 1.0 / k)
    return CategoricalResult(truths.astype(np.int64), shares, prior, skill, None, 0, True,
                             float("nan"))


def majority_vote(task, worker, label, *, n_tasks: int, n_workers: int, n_labels: int,
                  weights=None, ties: str = "lowest", rng: np.random.Generator | None = None
                  ) -> CategoricalResult:
    """(Weighted) majority vote per task.

    Label c's score on task j is Σ over the workers i who answered j with c of ``weights[i]``
    (1 by default). Ties: ``"lowest"`` returns the lowest tied label (deterministic; this is
    exactly crowd-kit's ``MajorityVote``, see the module docstring), ``"random"`` one of the
    tied labels uniformly, drawn from ``rng``. Weighted scores count as tied within a relative
    1e-12 (float sums of equal weights in another order). A task without answers (or whose
    answers all weigh 0) gets label ``-1`` and uniform shares.

    Parameters
    ----------
    task, worker, label : array_like of int, shape (n_answers,)
        Long format; labels in 0..n_labels-1.
    n_tasks, n_workers, n_labels : int
    weights : array_like, shape (n_workers,), optional
        Non-negative worker weights.
    ties : {"lowest", "random"}
    rng : numpy.random.Generator
        Required with ``ties="random"``.
    """
    k = check_int_at_least("n_labels", n_labels, 2)
    t, w, y, n_tasks, n_workers = _long(task, worker, label, n_tasks, n_workers, k)
    _check_ties(ties, rng)
    if weights is None:
        weight, rtol = None, 0.0
    else:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (n_workers,) or not np.isfinite(weights).all() or (weights < 0).any():
            raise ParameterError("weights", weights, f"weights must be {n_workers} finite "
                                 f"numbers >= 0 (one per worker), got shape {weights.shape}")
        weight, rtol = weights[w], 1e-12
    scores = _scores(t, y, weight, n_tasks, k)
    return _vote_result(t, w, y, scores, _argmax(scores, ties, rng, rtol), n_workers)


def sun_weighted_vote(task, worker, label, *, n_tasks: int, n_workers: int, n_labels: int,
                      ties: str = "lowest", rng: np.random.Generator | None = None,
                      **sun_kwargs) -> CategoricalResult:
    """Majority vote weighted by LDP-sparse Alg. 1's worker qualities.

    The qualities q_i ∝ 1/σ_i (LDP-sparse Eq. 2, summing to 1) are those of
    :func:`crowdpriv.truth.sun` run on the label codes as numbers (``sun_kwargs`` go to it);
    the vote then counts them per label (:func:`majority_vote` with ``weights=q``). Only the
    weights come from Alg. 1, not its averaged "truth". ``skill`` holds q; ``iterations`` and
    ``converged`` are Alg. 1's.
    """
    from .answers import Answers
    from .truth import sun

    k = check_int_at_least("n_labels", n_labels, 2)
    t, w, y, n_tasks, n_workers = _long(task, worker, label, n_tasks, n_workers, k)
    res = sun(Answers(t, w, y.astype(np.float64), n_tasks, n_workers), **sun_kwargs)
    q = np.nan_to_num(np.asarray(res.weights, dtype=np.float64))
    vote = majority_vote(t, w, y, n_tasks=n_tasks, n_workers=n_workers, n_labels=k, weights=q,
                         ties=ties, rng=rng)
    return CategoricalResult(vote.truths, vote.posterior, vote.prior, q, None,
                             int(res.iterations[0]), bool(res.converged[0]), float("nan"))


# -- EM ----------------------------------------------------------------------------------------
def _per_label_bincount(index, columns, size):
    """Σ over entries with index i of each column: (size, columns.shape[1]); one bincount per
    column (K or R of them), never a loop over entries."""
    return np.stack([np.bincount(index, weights=columns[:, c], minlength=size)
                     for c in range(columns.shape[1])], axis=1)


def _normalise_columns(theta):
    """Columns of each worker's (R, K) matrix to sum 1; an all-zero column becomes uniform."""
    total = theta.sum(axis=1, keepdims=True)
    r = theta.shape[1]
    return np.where(total > 0, theta / np.where(total > 0, total, 1.0), 1.0 / r)


class _EM:
    """The data side of every Dawid-Skene variant: observation index worker·S + symbol, the
    task of each observation, and the two passes over the observations per EM iteration (the
    E-step's sum per task, the expected counts per worker and symbol), each one sparse
    matrix product with the tasks x (worker, symbol) incidence matrix built once."""

    def __init__(self, t, w, y, n_tasks, n_workers, n_symbols, n_labels, stopping="task",
                 implicit_null=False):
        if stopping not in STOPPING_RULES:
            raise ParameterError("stopping", stopping, f"stopping must be one of "
                                 f"{STOPPING_RULES}, got {stopping!r}")
        self.stopping = stopping
        self.t, self.w, self.y = t, w, y
        self.n_tasks, self.m, self.s, self.k = n_tasks, n_workers, n_symbols, n_labels
        self.cell = w * n_symbols + y
        self.counts = np.bincount(self.cell, minlength=n_workers * n_symbols).reshape(
            n_workers, n_symbols)
        from scipy import sparse

        self.by_task = sparse.csr_matrix((np.ones(t.size), (t, self.cell)),
                                         shape=(n_tasks, n_workers * n_symbols))
        self.by_cell = self.by_task.T.tocsr()
        # implicit NULL: every (worker, task) cell not listed shows the last symbol; nothing
        # per NULL cell is stored or visited (a dense release is mostly NULL outputs)
        self.null = n_symbols - 1 if implicit_null else None
        if implicit_null:
            if self.counts[:, self.null].any():
                raise ParameterError("symbol", self.null, "with implicit_null, list only the "
                                     f"non-NULL cells (symbols < {self.null})")
            self.counts[:, self.null] = n_tasks - self.counts.sum(axis=1)
            if (self.counts[:, self.null] < 0).any():
                raise ParameterError("task", int(n_tasks), "with implicit_null, a worker "
                                     "lists each task at most once")
        per_task = (np.full(n_tasks, n_workers) if implicit_null  # every cell is observed
                    else np.bincount(t, minlength=n_tasks))
        self.answered = per_task > 0
        if stopping == "answer":  # crowd-kit: the prior term once per answer, / answers
            self.prior_weight = per_task[self.answered].astype(np.float64)
            self.n_scale = max(int(per_task.sum()), 1)
        else:
            self.prior_weight = np.ones(int(self.answered.sum()))
            self.n_scale = max(int(self.answered.sum()), 1)

    def initial_posterior(self):
        """Soft majority vote over the label symbols (< K): vote shares; uniform where a task
        has no label observation (crowd-kit's DawidSkene starts from the same shares)."""
        is_label = self.y < self.k
        scores = _scores(self.t[is_label], self.y[is_label], None, self.n_tasks, self.k)
        total = scores.sum(axis=1, keepdims=True)
        return np.where(total > 0, scores / np.where(total > 0, total, 1.0), 1.0 / self.k)

    def expected_counts(self, post):
        """N[w, o, c] = Σ over w's observations of symbol o of P(z_task = c); for implicit
        NULL cells, Σ_j T_jc over all tasks less the listed ones."""
        n = np.asarray(self.by_cell @ post).reshape(self.m, self.s, self.k)
        if self.null is not None:
            n[:, self.null, :] = post.sum(axis=0) - n.sum(axis=1)
        return n

    fixed_prior = None

    def prior(self, post, floor):
        """The class prior: fixed (``prior`` other than "estimate"), or the M-step's mean
        posterior over answered tasks; floored at ``floor`` and renormalised."""
        if self.fixed_prior is not None:
            p = self.fixed_prior
        elif self.answered.any():
            p = post[self.answered].mean(axis=0)
        else:
            p = np.full(self.k, 1.0 / self.k)
        p = np.maximum(p, floor)
        return p / p.sum()

    def set_prior(self, spec, inverse=None):
        """Resolve ``prior``: "estimate" (EM updates it), "uniform", "moments" (the label
        responses' frequencies over all observations, the channel inverted on them when
        ``inverse`` (R, S) is given, negatives clipped: a fixed, EM-free estimate), or K
        probabilities."""
        k = self.k
        if isinstance(spec, str):
            if spec not in PRIORS:
                raise ParameterError("prior", spec, f"prior must be one of {PRIORS} or {k} "
                                     f"probabilities, got {spec!r}")
            if spec == "uniform":
                self.fixed_prior = np.full(k, 1.0 / k)
            elif spec == "moments":
                freq = self.counts.sum(axis=0).astype(np.float64)
                resp = freq if inverse is None else inverse @ freq
                p = np.maximum(resp[:k], 0.0)
                self.fixed_prior = p / p.sum() if p.sum() > 0 else np.full(k, 1.0 / k)
            return
        p = np.asarray(spec, dtype=np.float64)
        if p.shape != (k,) or not np.isfinite(p).all() or (p < 0).any() or not np.isclose(
                p.sum(), 1.0):
            raise ParameterError("prior", spec, f"prior must be one of {PRIORS} or {k} "
                                 f"probabilities summing to 1, got {spec!r}")
        self.fixed_prior = p

    def e_step(self, log_obs, prior):
        """Posterior of each task's label from log P(symbol o | c) per worker, (m, S, K)."""
        with np.errstate(divide="ignore"):
            log_prior = np.log(prior)
        if self.null is None:
            score = np.asarray(self.by_task @ log_obs.reshape(-1, self.k))
        else:  # Σ_w log P(NULL | c) on every task, corrected where w's cell is listed
            has_null = self.counts[:, self.null] > 0
            log_null = np.where(has_null[:, None], log_obs[:, self.null, :], 0.0)
            listed = (log_obs - log_null[:, None, :]).reshape(-1, self.k)
            score = np.asarray(self.by_task @ listed)
            score += log_null.sum(axis=0)
        score += log_prior
        score -= score.max(axis=1, keepdims=True)
        post = np.exp(score)
        post /= post.sum(axis=1, keepdims=True)
        return post

    def elbo(self, post, prior, data, theta, smoothing):
        """Objective of the stopping rule. ``stopping="task"``: per answered task,
        Σ_j Σ_c T_jc log prior_c + ``data`` + H(T) over answered tasks, plus the log-density of
        θ's symmetric Dirichlet prior, ``smoothing`` · Σ log θ (the M-steps are MAP for it; 0
        without smoothing). ``stopping="answer"``: crowd-kit's ``_evidence_lower_bound`` /
        ``len(data)``, the prior term counted once per answer (n_j Σ_c T_jc log prior_c) and
        the sum divided by the number of answers. ``data`` is the expected log-likelihood of
        the observations (Σ_{w,o,c} N[w, o, c] log P(o | c), plus the ε-grid terms for a
        stack of channels)."""
        tp = post[self.answered]
        with np.errstate(divide="ignore", invalid="ignore"):
            ent = -np.where(tp > 0, tp * np.log(np.where(tp > 0, tp, 1.0)), 0.0).sum()
            penalty = (smoothing * np.log(np.where(theta > 0, theta, 1.0)).sum()
                       if smoothing > 0 else 0.0)
        return float(self.prior_weight @ (tp @ np.log(prior)) + data + ent + penalty
                     ) / self.n_scale

    @staticmethod
    def data_term(n_counts, log_obs):
        """Σ_{w,o,c} N[w, o, c] log P(o | c) over entries with N > 0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.where(n_counts > 0, n_counts * log_obs, 0.0).sum())

    def result(self, post, prior, theta, it, converged, objective, eps_post=None):
        truths = np.where(self.answered, np.argmax(post, axis=1), -1).astype(np.int64)
        post = np.where(self.answered[:, None], post, prior)
        k = self.k
        diag = theta[:, np.arange(k), np.arange(k)]
        n_w = self.counts.sum(axis=1)
        skill = np.where(n_w > 0, diag @ prior, np.nan)
        return CategoricalResult(truths, post, prior, skill, theta, int(it), bool(converged),
                                 float(objective), eps_post)


def _check_em(tol, max_iter, smoothing, floor):
    return (check_nonnegative("tol", tol), check_int_at_least("max_iter", max_iter, 1),
            check_nonnegative("smoothing", smoothing),
            check_in_interval("floor", floor, 0.0, 1e-3, closed_low=False, closed_high=True))


def _ds_m_step(em, n_counts, smoothing, floor):
    """θ_w[o, c] ∝ N[w, o, c] + smoothing, each entry a worker has observed floored at
    ``floor`` (crowd-kit's clip at 1e-10), unobserved symbols 0 when ``smoothing = 0``."""
    seen = (em.counts > 0)[:, :, None]
    theta = np.where(seen, np.maximum(n_counts + smoothing, floor), smoothing)
    return _normalise_columns(theta)


def _run(theta0, prior0, sweep, tol, max_iter):
    """EM loop: ``sweep(theta, prior, state)`` returns (post, theta', prior', state', F);
    stop when F (ELBO per answered task) rises by less than ``tol``."""
    theta, prior, state = theta0, prior0, None
    objective, converged, it = -np.inf, False, 0
    post = None
    for it in range(1, max_iter + 1):
        post, theta, prior, state, f = sweep(theta, prior, state)
        if f - objective < tol:
            objective, converged = f, True
            break
        objective = f
    return post, theta, prior, state, it, converged, objective


def dawid_skene(task, worker, label, *, n_tasks: int, n_workers: int, n_labels: int,
                n_symbols: int | None = None, prior="estimate", tol: float = 1e-5,
                max_iter: int = 100, smoothing: float = 0.0, floor: float = 1e-10,
                stopping: str = "answer", implicit_null: bool = False) -> CategoricalResult:
    """Dawid-Skene (Dawid & Skene, JRSS C 28(1), 1979) by EM, one confusion matrix per worker.

    Model: task j's label z_j ~ prior π; worker w answers symbol o with probability
    θ_w[o, z_j], independently across answers. Observed symbols 0..S-1 (``n_symbols``,
    default K; S = K + 1 codes "did not answer" as symbol K when NULL cells are data).

    Initialisation: the posterior T is the majority-vote share of each label (soft, as
    crowd-kit's ``DawidSkene``), π and θ from it by one M-step. Each iteration: E-step
    T_jc ∝ π_c Π_{answers} θ_w[o, c] (in logs); M-step π = mean of T over answered tasks
    (floored at ``floor``), θ_w[o, c] ∝ Σ_{w's answers with symbol o} T_jc + ``smoothing``
    (a symmetric Dirichlet pseudo-count; 0 = maximum likelihood), entries of observed symbols
    floored at ``floor`` = 1e-10 as crowd-kit clips them. Stopping rule (computed after each
    M-step; at most ``max_iter`` iterations): ``stopping="answer"`` (default) is crowd-kit's,
    the evidence lower bound Σ_answers Σ_c T_jc (log π_c + log θ_w[o, c]) + H(T) divided by
    the number of answers rises by less than ``tol``; ``stopping="task"`` is the bound
    F = Σ_j Σ_c T_jc (log π_c + Σ log θ_w[o, c]) + H(T) divided by the number of answered
    tasks, which runs EM closer to convergence (≈ answers per task times stricter). The
    default agrees with the field's reference labels; the stopping rule is also what decides
    the gain over majority vote after RR on answered cells (docs/inference.md: crowd-kit's
    rule +3.0 points on product at ε = 1, run to convergence −0.3).
    Returns T of the last E-step and θ, π of the M-step after it. Ties of the posterior go to
    the lowest label.

    ``implicit_null``: the answers list only non-NULL cells and every other cell of the
    n_workers x n_tasks grid is the symbol K ("did not answer", S = K + 1): the same fit as
    listing every cell with :func:`cells_from_matrix` (``null_symbol=K``), in time and memory
    of the listed cells only (a test).

    ``prior``: "estimate" (the M-step above, crowd-kit's choice), "uniform", "moments" (the
    observed label frequencies, fixed; behind a channel, :func:`channel_dawid_skene` inverts
    the channel on them first) or K fixed probabilities. A fixed prior keeps EM from
    drifting to one class when the answers carry little information (heavy noise).
    """
    k = check_int_at_least("n_labels", n_labels, 2)
    default_symbols = k + 1 if implicit_null else k
    s = default_symbols if n_symbols is None else check_int_at_least("n_symbols", n_symbols, k)
    if implicit_null and s != k + 1:
        raise ParameterError("n_symbols", s, f"implicit_null codes NULL as symbol K: n_symbols "
                             f"must be {k + 1}, got {s}")
    t, w, y, n_tasks, n_workers = _long(task, worker, label, n_tasks, n_workers, s)
    tol, max_iter, smoothing, floor = _check_em(tol, max_iter, smoothing, floor)
    em = _EM(t, w, y, n_tasks, n_workers, s, k, stopping, implicit_null)
    em.set_prior(prior)
    post0 = em.initial_posterior()
    theta0 = _ds_m_step(em, em.expected_counts(post0), smoothing, floor)

    def sweep(theta, prior, state):
        with np.errstate(divide="ignore"):
            log_theta = np.log(theta)
        post = em.e_step(log_theta, prior)
        n_counts = em.expected_counts(post)
        prior = em.prior(post, floor)
        theta = _ds_m_step(em, n_counts, smoothing, floor)
        with np.errstate(divide="ignore"):
            f = em.elbo(post, prior, em.data_term(n_counts, np.log(theta)), theta, smoothing)
        return post, theta, prior, None, f

    post, theta, prior, _, it, conv, f = _run(theta0, em.prior(post0, floor), sweep, tol,
                                              max_iter)
    return em.result(post, prior, theta, it, conv, f)


def _one_coin_theta(skill, k, floor):
    off = (1.0 - skill) / (k - 1)
    theta = np.repeat(off[:, None, None], k, axis=1).repeat(k, axis=2)
    theta[:, np.arange(k), np.arange(k)] = skill[:, None]
    return np.clip(theta, floor, 1.0 - floor)


def one_coin_dawid_skene(task, worker, label, *, n_tasks: int, n_workers: int, n_labels: int,
                         prior="estimate", tol: float = 1e-5, max_iter: int = 100,
                         smoothing: float = 0.0, floor: float = 1e-10,
                         stopping: str = "answer") -> CategoricalResult:
    """One-coin Dawid-Skene: worker w answers the true label with probability s_w, else one of
    the other K - 1 labels uniformly (θ_w = s_w on the diagonal, (1 - s_w)/(K - 1) off it).

    EM as :func:`dawid_skene` (same initialisation, E-step, prior, stopping rules); the M-step is
    s_w = (Σ_{w's answers} T_{j, o} + K·smoothing) / (n_w + K²·smoothing), the expected
    fraction of his answers that are correct (the maximum-likelihood update; ``smoothing`` is
    a pseudo-count on each of the K² cells of his confusion matrix, pulling s_w to 1/K), and
    θ's entries are clipped to [floor, 1 - floor] as crowd-kit's ``OneCoinDawidSkene`` clips
    them.
    """
    k = check_int_at_least("n_labels", n_labels, 2)
    t, w, y, n_tasks, n_workers = _long(task, worker, label, n_tasks, n_workers, k)
    tol, max_iter, smoothing, floor = _check_em(tol, max_iter, smoothing, floor)
    em = _EM(t, w, y, n_tasks, n_workers, k, k, stopping)
    em.set_prior(prior)
    n_w = em.counts.sum(axis=1)

    def m_step(post):
        correct = np.bincount(w, weights=post[t, y], minlength=n_workers)
        den = n_w + k * k * smoothing
        skill = np.where(den > 0, (correct + k * smoothing) / np.where(den > 0, den, 1.0),
                         1.0 / k)
        return _one_coin_theta(skill, k, floor)

    post0 = em.initial_posterior()

    def sweep(theta, prior, state):
        post = em.e_step(np.log(theta), prior)
        n_counts = em.expected_counts(post)
        prior = em.prior(post, floor)
        theta = m_step(post)
        f = em.elbo(post, prior, em.data_term(n_counts, np.log(theta)), theta, smoothing)
        return post, theta, prior, None, f

    post, theta, prior, _, it, conv, f = _run(m_step(post0), em.prior(post0, floor), sweep,
                                              tol, max_iter)
    return em.result(post, prior, theta, it, conv, f)


# -- channels ----------------------------------------------------------------------------------
#: Worker models of :func:`channel_dawid_skene`: a full response matrix, or one coin.
CHANNEL_MODELS = ("full", "one_coin")


def _one_coin_response(counts, k, smoothing, floor):
    """One-coin response law from expected response counts M (m, R, K), R in {K, K + 1}:
    with R = K + 1 the worker answers at all with probability a (symbol K = "did not answer"
    otherwise), and an answer is the true label with probability s, each other label with
    (1 - s)/(K - 1). Maximum likelihood given M, with ``smoothing`` pseudo-counts on every
    cell: a = answered mass / total mass, s = diagonal mass / answered mass."""
    m, r, _ = counts.shape
    idx = np.arange(k)
    answered = counts[:, :k, :].sum(axis=(1, 2)) + k * k * smoothing
    correct = counts[:, idx, idx].sum(axis=1) + k * smoothing
    s = np.where(answered > 0, correct / np.where(answered > 0, answered, 1.0), 1.0 / k)
    theta = np.empty((m, r, k))
    theta[:, :k, :] = ((1.0 - s) / (k - 1))[:, None, None]
    theta[:, idx, idx] = s[:, None]
    if r > k:
        total = answered + counts[:, k:, :].sum(axis=(1, 2)) + (r - k) * k * smoothing
        a = np.where(total > 0, answered / np.where(total > 0, total, 1.0), 1.0)
        theta[:, :k, :] *= a[:, None, None]
        theta[:, k:, :] = ((1.0 - a) / (r - k))[:, None, None]
    return np.clip(theta, floor, 1.0 - floor)

def identity_channel(n_symbols: int) -> np.ndarray:
    """The channel that passes every symbol unchanged (no mechanism): ``eye(n_symbols)``."""
    return np.eye(check_int_at_least("n_symbols", n_symbols, 2))


def rr_null_channel(epsilon: float, n_labels: int) -> np.ndarray:
    """LDP-sparse's RR (Eq. 8) as a channel over Γ ∪ {NULL}: (K+1) x (K+1), column r is the
    output law of response r (NULL = symbol K); e^ε/(K + e^ε) on the diagonal, 1/(K + e^ε)
    elsewhere. The mechanism owns it: ``crowdpriv.mechanisms.get("rr").channel``."""
    from .mechanisms import get

    k = check_int_at_least("n_labels", n_labels, 2)
    rr = get("rr")
    return rr.channel(rr.settings(), check_positive("epsilon", epsilon), domain_size=k
                      ).matrices[0]


def rr_answers_channel(epsilon: float, n_labels: int) -> np.ndarray:
    """RR over Γ on answered cells (:class:`crowdpriv.examples.RRAnswersOnly`, which owns
    it): K x K, keep e^ε/(K - 1 + e^ε), each other label 1/(K - 1 + e^ε); NULL cells are not
    observed."""
    from .examples import RRAnswersOnly

    k = check_int_at_least("n_labels", n_labels, 2)
    member = RRAnswersOnly()
    return member.channel(member.settings(), check_positive("epsilon", epsilon),
                          domain_size=k).matrices[0]


def two_layer_channels(epsilon: float, n_labels: int, *, spread: float = 1.0,
                       n_grid: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """The 2-Layer baseline's channel family: RR with NULL (:func:`rr_null_channel`) at a
    hidden per-worker ε_i ~ U(ε(1 - spread), ε(1 + spread)) (LDP-sparse Sec. VI-D), replaced
    by ``n_grid`` equally weighted midpoints
    (:func:`crowdpriv.mechanisms.two_layer.two_layer_epsilon_grid`; the member's ``channel``
    uses 16). Returns ``(channels, weights)`` of shapes (G, K+1, K+1) and (G,).
    """
    from .mechanisms.two_layer import two_layer_epsilon_grid

    eps = check_positive("epsilon", epsilon)
    spread = check_in_interval("spread", spread, 0.0, 1.0, closed_high=True)
    g = check_int_at_least("n_grid", n_grid, 1)
    k = check_int_at_least("n_labels", n_labels, 2)
    nodes = two_layer_epsilon_grid(eps, spread, g)
    return np.stack([rr_null_channel(e, k) for e in nodes]), np.full(g, 1.0 / g)


def _check_channel(channel, grid_weights):
    c = np.asarray(channel, dtype=np.float64)
    if c.ndim == 2:
        c = c[None]
    if c.ndim != 3 or not np.isfinite(c).all() or (c < 0).any():
        raise ParameterError("channel", np.shape(channel), "channel must be an (S, R) matrix "
                             f"or a (G, S, R) stack of them with entries >= 0, got shape "
                             f"{np.shape(channel)}")
    if not np.allclose(c.sum(axis=1), 1.0, atol=1e-9):
        raise ParameterError("channel", c.sum(axis=1).ravel()[0],
                             "every column of a channel must sum to 1 (P(observed | response))")
    g = c.shape[0]
    if grid_weights is None:
        if g > 1:
            raise ParameterError("grid_weights", None, f"a stack of {g} channels needs "
                                 "grid_weights (the prior over them)")
        wts = np.ones(1)
    else:
        wts = np.asarray(grid_weights, dtype=np.float64)
        if wts.shape != (g,) or (wts < 0).any() or not np.isclose(wts.sum(), 1.0):
            raise ParameterError("grid_weights", wts, f"grid_weights must be {g} numbers >= 0 "
                                 f"summing to 1, got {wts!r}")
    return c, wts


def channel_dawid_skene(task, worker, symbol, *, n_tasks: int, n_workers: int, n_labels: int,
                        channel, grid_weights=None, model: str = "full", prior="estimate",
                        tol: float = 1e-5, max_iter: int = 100, smoothing: float = 0.0,
                        floor: float = 1e-10, stopping: str = "task",
                        implicit_null: bool = False) -> CategoricalResult:
    """Dawid-Skene through a known randomisation channel (mechanism-aware truth inference).

    Model: task j's label z_j ~ π; worker w's latent response r ∈ {0..R-1} has law
    θ_w[r, z_j] (labels 0..K-1, and for R = K + 1 the symbol K "did not answer"); what the
    release shows is o ~ C[o, r], a known channel, so P(o | z = c) = (C θ_w)[o, c].
    Channels: :func:`rr_null_channel` (LDP-sparse Eq. 8 on every cell: pass every cell, NULL
    cells as symbol K, e.g. :func:`cells_from_matrix` with ``null_symbol=K``),
    :func:`rr_answers_channel` (answered cells only, NULLs absent), :func:`identity_channel`
    (no mechanism: this is :func:`dawid_skene`), or a stack (G, S, R) with ``grid_weights``,
    a discrete prior over a hidden per-worker channel (:func:`two_layer_channels`).

    EM on the worker parameters with the channel fixed, latent (z, r). Initialisation: T from
    the majority vote over label symbols (as :func:`dawid_skene`), θ from the channel inverted
    on the expected counts, θ_w ∝ max(C̄⁺ N_w, floor) with C̄ = Σ_g w_g C_g. Each iteration:
    E-step over z, T_jc ∝ π_c exp Σ_{i∈j} Σ_g q_ig log (C_g θ_i)[o_ij, c]; for a stack, each
    worker's posterior over the grid, q_ig ∝ w_g exp Σ_{o,c} N_i[o, c] log (C_g θ_i)[o, c]
    (mean-field: q(z) q(g) factorised; with thousands of cells per worker q_i is sharp and the
    factorisation costs little); M-step, one EM step for the response r:
    θ_i[r, c] ∝ θ_i[r, c] Σ_g q_ig Σ_o C_g[o, r] N_i[o, c] / (C_g θ_i)[o, c] + smoothing,
    floored at ``floor`` where the worker observed a symbol r can produce; π as in
    :func:`dawid_skene`. ``model="one_coin"`` replaces the free θ_i by two numbers
    (:func:`one_coin_dawid_skene` behind the channel): the worker answers with probability
    a_i ("did not answer" = symbol K otherwise, when R = K + 1) and an answer is right with
    probability s_i, wrong labels uniform; its M-step is the maximum-likelihood (a_i, s_i) of
    the same expected response counts. Stopping rule: the evidence lower bound per answered
    task (for a stack with the grid terms Σ_g q (log w_g - log q)) rises by less than ``tol``
    (``stopping="task"``, the default here: on a release that shows every cell most
    observations are noise, and crowd-kit's per-answer rule, ``"answer"``, stops after two
    iterations).

    With the identity channel the M-step is θ ∝ θ·N/θ = N: :func:`dawid_skene` up to rounding
    (a test: same iterations and labels, posteriors to 1e-12). What the channel adds: it bounds each observed confusion entry below by the
    channel's off-diagonal probability, so one observation can never count for more than
    log(p/q) nats; it lets NULL outputs be evidence (through θ's NULL row). It cannot separate a
    worker's own noise from the channel's beyond that bound: C θ is all the data identify,
    so with a grid of channels the posterior over ε_i is informative only where θ would turn
    negative (docs/inference.md).

    Parameters
    ----------
    task, worker, symbol : array_like of int, shape (n_obs,)
        One entry per observed cell; symbols 0..S-1. With ``implicit_null`` only the non-NULL
        cells (symbols < K), every other cell of the grid being NULL (symbol K): what a
        release of RR with NULL lists, fitted in the time of the listed cells
        (:func:`dawid_skene`).
    channel : array_like, shape (S, R) or (G, S, R)
        Columns sum to 1: P(observed o | response r). R >= K.
    grid_weights : array_like, shape (G,), optional
        Prior over a stack of channels.
    model : {"full", "one_coin"}
        Worker model behind the channel: R x K free columns, or (answer rate, accuracy).
    """
    k = check_int_at_least("n_labels", n_labels, 2)
    if model not in CHANNEL_MODELS:
        raise ParameterError("model", model, f"model must be one of {CHANNEL_MODELS}, got "
                             f"{model!r}")
    chans, wts = _check_channel(channel, grid_weights)
    g, s, r = chans.shape
    if r < k:
        raise ParameterError("channel", chans.shape, f"channel must have R >= n_labels={k} "
                             f"response columns, got shape {chans.shape[1:]}")
    t, w, y, n_tasks, n_workers = _long(task, worker, symbol, n_tasks, n_workers, s, "symbol")
    tol, max_iter, smoothing, floor = _check_em(tol, max_iter, smoothing, floor)
    if implicit_null and s != k + 1:
        raise ParameterError("channel", chans.shape, f"implicit_null needs a channel over "
                             f"K + 1 = {k + 1} symbols (NULL observed), got {s}")
    em = _EM(t, w, y, n_tasks, n_workers, s, k, stopping, implicit_null)
    # response r is reachable when the worker observed a symbol it can produce
    support = ((em.counts > 0).astype(float) @ (chans.sum(axis=0) > 0)) > 0  # (m, R)
    with np.errstate(divide="ignore"):
        log_w = np.log(wts)

    def finish(counts):
        """θ from expected response counts M[w, r, c] (the M-step proper)."""
        if model == "one_coin":
            return _one_coin_response(counts, k, smoothing, floor)
        theta = np.where(support[:, :, None], np.maximum(counts + smoothing, floor), smoothing)
        return _normalise_columns(theta)

    def observed(theta):
        """P(o | c) through each channel, (m, G, S, K), and its log (-1e300 for 0, so that a
        grid weight of 0 times it stays finite; such entries are never observed)."""
        phi = np.einsum("gor,wrc->wgoc", chans, theta)
        with np.errstate(divide="ignore"):
            return phi, np.where(phi > 0, np.log(np.where(phi > 0, phi, 1.0)), -1e300)

    def grid_loglik(log_phi, n_counts):
        """ll_ig = Σ_{o,c} N_i[o, c] log (C_g θ_i)[o, c], (m, G)."""
        return np.einsum("woc,wgoc->wg", n_counts, np.where(n_counts[:, None] > 0, log_phi, 0.0))

    post0 = em.initial_posterior()
    n0 = em.expected_counts(post0)
    inverse = np.linalg.pinv(np.tensordot(wts, chans, axes=1))  # (R, S)
    em.set_prior(prior, inverse)
    theta0 = finish(np.maximum(np.einsum("ro,woc->wrc", inverse, n0), 0.0))
    q0 = np.broadcast_to(wts, (n_workers, g)).copy()

    def sweep(theta, prior, q):
        q = q0 if q is None else q
        phi, log_phi = observed(theta)
        post = em.e_step(np.einsum("wg,wgoc->woc", q, log_phi), prior)
        n_counts = em.expected_counts(post)
        if g > 1:  # each worker's posterior over the grid, given T and θ
            score = log_w + grid_loglik(log_phi, n_counts)
            score -= score.max(axis=1, keepdims=True)
            q = np.exp(score)
            q /= q.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(n_counts[:, None] > 0, n_counts[:, None] / phi, 0.0)
        theta = finish(theta * np.einsum("wg,gor,wgoc->wrc", q, chans, ratio))
        prior = em.prior(post, floor)
        ll = grid_loglik(observed(theta)[1], n_counts)
        with np.errstate(divide="ignore", invalid="ignore"):
            grid = np.where(q > 0, q * (log_w - np.log(np.where(q > 0, q, 1.0))), 0.0).sum()
        f = em.elbo(post, prior, float((q * ll).sum() + grid), theta, smoothing)
        return post, theta, prior, q, f

    post, theta, prior, q, it, conv, f = _run(theta0, em.prior(post0, floor), sweep, tol,
                                              max_iter)
    return em.result(post, prior, theta, it, conv, f, q if g > 1 else None)


# -- continuous releases -----------------------------------------------------------------------
@dataclass(frozen=True)
class ContinuousResult:
    """Output of :func:`noise_aware_mean`.

    Attributes
    ----------
    truths : ndarray, shape (n_tasks,)
        Weighted mean per task (NaN for a task without values).
    labels : ndarray of int64, shape (n_tasks,)
        ``truths`` rounded to the nearest label 0..K-1 (-1 where NaN), when ``n_labels`` given.
    weights : ndarray, shape (n_workers,)
        1 / (worker variance + mean added noise variance of his cells); 0 without values.
    worker_variance : ndarray, shape (n_workers,)
        Estimated own error variance σ_i² (after removing the added noise, floored).
    iterations : int
    converged : bool
    """

    truths: np.ndarray
    labels: np.ndarray | None
    weights: np.ndarray
    worker_variance: np.ndarray
    iterations: int
    converged: bool


def laplace_noise_variance(epsilon: float, n_labels: int) -> float:
    """Variance 2 (K/ε)² of LDP-sparse LP's noise Lap(K/ε) (Eq. 6-7) added to every cell."""
    eps = check_positive("epsilon", epsilon)
    k = check_int_at_least("n_labels", n_labels, 2)
    return 2.0 * (k / eps) ** 2


def mf_noise_variance(prepared, epsilon: float) -> np.ndarray:
    """Per-cell variance of the noise MF adds (LDP-sparse Eq. 9-10), shape (m, n).

    Worker i sends u_iᵀV with u_i = S_i (b_i - η_i), η_i ~ Lap(K/ε)^d i.i.d., S_i the solver of
    :class:`crowdpriv.mechanisms.mf.MFPrepared`; the noise in cell j is -v_jᵀ S_i η_i, of variance
    2 (K/ε)² ‖S_i v_j‖² (S_i symmetric). The factorisation's own misfit is not noise: it is
    part of the worker's error that :func:`noise_aware_mean` estimates.
    """
    eps = check_positive("epsilon", epsilon)
    sv = np.einsum("wab,bn->wan", prepared.solver, prepared.profiles)
    return 2.0 * (prepared.domain_size / eps) ** 2 * np.einsum("wan,wan->wn", sv, sv)


def round_to_labels(values, n_labels: int) -> np.ndarray:
    """Nearest label 0..K-1 of each value (clipped at the ends); -1 for NaN."""
    k = check_int_at_least("n_labels", n_labels, 2)
    v = np.asarray(values, dtype=np.float64)
    out = np.clip(np.rint(np.nan_to_num(v, nan=0.0)), 0, k - 1).astype(np.int64)
    return np.where(np.isnan(v), -1, out)


def noise_aware_mean(task, worker, value, *, n_tasks: int, n_workers: int, noise_variance=0.0,
                     n_labels: int | None = None, variance_floor: float = 1e-2,
                     tol: float = 1e-6, max_iter: int = 100) -> ContinuousResult:
    """Weighted mean per task with worker variances net of a known added noise.

    A released value is x_ij = a_ij + ξ_ij, the worker's answer (error variance σ_i²) plus
    mechanism noise of known variance ν_ij (``noise_variance``: a scalar, one per worker, or
    one per value; LP: :func:`laplace_noise_variance` on every cell incl. filled NULLs; MF:
    :func:`mf_noise_variance`). From the plain mean per task it iterates, like CRH and
    LDP-sparse Alg. 1,

    * σ_i² = max(mean over i's values of ((x_ij - μ_j)² - ν_ij), ``variance_floor``): the
      observed residual variance minus the known noise variance, floored (the difference is
      noisy and may be negative; the floor also stops one worker from taking all the weight);
    * μ_j = Σ_i w_ij x_ij / Σ_i w_ij with w_ij = 1 / (σ_i² + ν_ij), the inverse-variance weights,

    until max_j |Δμ_j| < ``tol``. The residuals are taken about an estimate that contains the
    worker's own value, so σ_i² is biased low for tasks with few values; no correction is made.
    With ``noise_variance = 0`` it is a GTM-like inverse-variance mean on total residuals.
    PPTD draws each worker's variance δ_i² ~ Exp(λ2) privately: only its law is known, the
    total σ_i² + δ_i² is what the residuals measure and what the ideal weight inverts, so pass
    0 there (subtracting E δ² = 1/λ2 would only move the floor).
    ``n_labels`` also decodes to labels (:func:`round_to_labels`).
    """
    n_tasks = check_int_at_least("n_tasks", n_tasks, 1)
    n_workers = check_int_at_least("n_workers", n_workers, 1)
    t = _index_array("task", task, n_tasks, "n_tasks")
    w = _index_array("worker", worker, n_workers, "n_workers")
    x = np.asarray(value, dtype=np.float64)
    if not (t.shape == w.shape == x.shape):
        raise ParameterError("value", x.shape, f"task, worker and value must have one length, "
                             f"got {t.size}, {w.size}, {x.size}")
    if not np.isfinite(x).all():
        raise ParameterError("value", x[~np.isfinite(x)][0], "value must be finite (a NULL is "
                             "an absent value)")
    nu = np.asarray(noise_variance, dtype=np.float64)
    if nu.ndim == 0:
        nu = np.full(x.shape, float(nu))
    elif nu.shape == (n_workers,):
        nu = nu[w]
    elif nu.shape != x.shape:
        raise ParameterError("noise_variance", nu.shape, "noise_variance must be a scalar, one "
                             f"per worker ({n_workers}) or one per value ({x.size}), got shape "
                             f"{nu.shape}")
    if not np.isfinite(nu).all() or (nu < 0).any():
        raise ParameterError("noise_variance", nu.min(), "noise_variance must be finite >= 0")
    floor = check_positive("variance_floor", variance_floor)
    tol = check_nonnegative("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    n_w = np.bincount(w, minlength=n_workers)
    has = n_w > 0
    den = np.bincount(t, minlength=n_tasks)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.bincount(t, weights=x, minlength=n_tasks) / den
    var = np.full(n_workers, np.nan)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        resid = x - mu[t]
        excess = np.bincount(w, weights=resid * resid - nu, minlength=n_workers)
        var = np.where(has, np.maximum(excess / np.maximum(n_w, 1), floor), np.nan)
        wt = 1.0 / (var[w] + nu)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = (np.bincount(t, weights=wt * x, minlength=n_tasks)
                   / np.bincount(t, weights=wt, minlength=n_tasks))
        change = np.nanmax(np.abs(new - mu)) if (den > 0).any() else 0.0
        mu = new
        if change < tol:
            converged = True
            break
    mean_nu = np.bincount(w, weights=nu, minlength=n_workers) / np.maximum(n_w, 1)
    weights = np.where(has, 1.0 / (np.nan_to_num(var) + mean_nu), 0.0)
    labels = None if n_labels is None else round_to_labels(mu, n_labels)
    return ContinuousResult(mu, labels, weights, var, it, converged)


def accuracy(truths, reference) -> float:
    """Fraction of tasks whose estimated label equals the reference (unanswered tasks, -1,
    count as wrong)."""
    a, b = np.asarray(truths), np.asarray(reference)
    if a.shape != b.shape:
        raise ParameterError("truths", a.shape, f"truths and reference must have one shape, got "
                             f"{a.shape} and {b.shape}")
    return float((a == b).mean())


#: Categorical aggregators with one signature ``(task, worker, label, *, n_tasks, n_workers,
#: n_labels, **options)``; the channel model also needs ``channel``.
METHODS = {
    "majority_vote": majority_vote,
    "sun_weighted_vote": sun_weighted_vote,
    "dawid_skene": dawid_skene,
    "one_coin_dawid_skene": one_coin_dawid_skene,
    "channel_dawid_skene": channel_dawid_skene,
}
