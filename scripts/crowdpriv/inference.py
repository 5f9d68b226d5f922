"""Truth inference on answers and on releases: the methods, the answer types each accepts, what
each may know of the mechanism, and the defaults.

The one owner of what ``crowdpriv infer``, :func:`crowdpriv.infer` and the inference benchmark
(:mod:`crowdpriv.benchmark`) run. Answers are long format (task, worker, value) and of one of
two types:

* **categorical**: labels 0..K-1 (a ``label`` column); aggregated as categories
  (:mod:`crowdpriv.categorical`);
* **continuous**: numbers (a ``value`` column); aggregated by weighted means
  (:mod:`crowdpriv.truth`, :func:`crowdpriv.categorical.noise_aware_mean`).

Each method declares the type it accepts (:data:`METHODS`); a mismatch is an error naming the
method, the type and what to use instead. Averaging label codes (LDP-sparse's Alg. 1 judges
its releases by the MAE of codes) is allowed as an explicit ordinal choice (``ordinal=True``,
the CLI's ``--ordinal``), never by default. A release whose values are continuous although the
input was labels (LP, MF) is decoded to labels by rounding to the nearest of 0..K-1 (stated in
the output), the value kept beside.

What inference may know of a release (:class:`KnownRelease`) comes from its ledger's channel
(or the same facts given as flags): the mechanism that ran, ε, K and its settings; the member
owns the channel (:meth:`crowdpriv.mechanisms.Mechanism.channel`) and the noise variance
(:meth:`~crowdpriv.mechanisms.Mechanism.noise_variance`). Mechanism-aware methods use them:
``aware-ds`` and ``aware-one-coin-ds`` fit Dawid-Skene behind the known channel (a release of RR
with NULL lists only its non-NULL cells; the others are NULL observations), ``aware-mean``
weights workers by their variance net of the known noise.

Defaults (:func:`default_method`): without a release, the best method of the type on the
benchmark datasets with no mechanism; after a release, the method the inference benchmark
shows best for that mechanism across its datasets (:data:`DEFAULT_AFTER`; the benchmark's
claims check the choice on every dataset, including datasets kept aside; docs/inference.md shows
the table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from collections.abc import Mapping

import numpy as np

from . import mechanisms
from ._checks import ParameterError

__all__ = ["ANSWER_TYPES", "Method", "METHODS", "KnownRelease", "Inferred", "DEFAULT_PLAIN",
           "DEFAULT_AFTER", "known_release", "release_from_ledger", "default_method",
           "check_method", "infer_long", "method_ids"]

ANSWER_TYPES = ("categorical", "continuous")


@dataclass(frozen=True)
class Method:
    """A truth-inference method: the answer type it accepts and what it needs of a release."""

    id: str
    accepts: str
    summary: str
    needs: str | None = None  # "channel" (a label release's) or "noise" (a value release's)
    ordinal: bool = False  # averages numbers: on labels only as an explicit ordinal choice


METHODS = {m.id: m for m in (
    Method("majority", "categorical",
           "majority vote; ties go to the lowest label (crowd-kit's MajorityVote)"),
    Method("weighted-vote", "categorical",
           "vote weighted by LDP-sparse Alg. 1's worker qualities q_i ∝ 1/σ_i"),
    Method("ds", "categorical",
           "Dawid-Skene: a confusion matrix per worker, EM, crowd-kit's stopping rule"),
    Method("one-coin-ds", "categorical",
           "one-coin Dawid-Skene: one accuracy per worker, errors uniform"),
    Method("aware-ds", "categorical",
           "Dawid-Skene behind the release's known channel (a response matrix per worker)",
           needs="channel"),
    Method("aware-one-coin-ds", "categorical",
           "one-coin Dawid-Skene behind the release's known channel, the class prior from the "
           "inverted channel", needs="channel"),
    Method("sun", "continuous",
           "LDP-sparse Alg. 1: weighted mean, qualities q_i ∝ 1/σ_i", ordinal=True),
    Method("crh", "continuous", "CRH as PPTD Alg. 1 runs it", ordinal=True),
    Method("gtm", "continuous", "GTM (Gaussian truth model, Zhao & Han 2012)", ordinal=True),
    Method("mean", "continuous", "plain mean per task", ordinal=True),
    Method("median", "continuous", "median per task", ordinal=True),
    Method("aware-mean", "continuous",
           "inverse-variance mean, each worker's variance net of the release's known noise "
           "variance", needs="noise"),
)}

#: Default per answer type without a release, from the inference benchmark's answers as
#: collected (results/benchmark/no_privacy.md): Dawid-Skene on labels (product 0.940 against
#: majority vote's 0.897, dog 0.843 against 0.818, web 0.829 against 0.777; crowd-kit's own
#: table agrees), GTM on values (emotion MAE 11.8 against CRH 11.9, mean 12.0, median 13.5).
DEFAULT_PLAIN = {"categorical": "ds", "continuous": "gtm"}
class _DefaultsAfter(Mapping):
    """Default after a release, per mechanism id: each member's ``default_inference`` (the
    registry owns it: the method with the best mean accuracy over product and dog and ε in
    {0.5, 1, 2, 4} in the inference benchmark, results/benchmark/defaults.md,
    docs/inference.md; its claims check each choice per dataset and ε, web kept aside
    included). Read live, so a mechanism registered later has its default too."""

    def __getitem__(self, mechanism: str) -> str:
        try:
            method = mechanisms.get(mechanism).default_inference
        except ParameterError:
            method = None
        if method is None:
            raise KeyError(mechanism)
        return method

    def __iter__(self):
        return (m.id for m in mechanisms.members() if m.default_inference is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


DEFAULT_AFTER = _DefaultsAfter()


def method_ids() -> tuple[str, ...]:
    return tuple(METHODS)


@dataclass(frozen=True)
class KnownRelease:
    """What inference may know of the release its answers came from.

    ``mechanism``: the member that ran; ``input_type``: the type of the answers it released
    (labels for LP, RR, 2-Layer, MF; values for PPTD); ``domain``: K; ``channel``: a label
    release's :class:`crowdpriv.mechanisms.Channel`; ``noise_variance``: a value release's
    public noise mean square; ``source``: where the facts come from (the ledger, or flags).
    """

    mechanism: str
    input_type: str
    epsilon: float
    domain: int | None = None
    channel: object | None = None
    noise_variance: float | None = None
    source: str = ""

    def describe(self) -> dict:
        return {"mechanism": self.mechanism, "epsilon": self.epsilon, "domain": self.domain,
                "input_type": self.input_type, "source": self.source,
                "channel": None if self.channel is None else self.channel.description,
                "noise_variance": self.noise_variance}


def known_release(mechanism, epsilon: float, *, domain: int | None = None,
                  settings=None, source: str = "flags") -> KnownRelease:
    """The channel and noise of a release by ``mechanism`` (an id of the registry,
    :func:`crowdpriv.mechanisms.get`, or a member) at ``epsilon`` (K = ``domain``), from the
    member itself; ``settings``: a mapping of its settings or its Settings object."""
    from . import mechanisms
    from ._checks import check_int_at_least, check_positive

    member = mechanisms.get(mechanism) if isinstance(mechanism, str) else mechanism
    eps = check_positive("epsilon", epsilon)
    chosen = (settings if isinstance(settings, member.Settings)
              else member.settings(**(settings or {})))
    channel = noise = None
    if member.answer_type == "categorical":
        if domain is None:
            raise ParameterError("domain", domain, f"a release by {member.id} is over labels: "
                                 "give its number of labels K (--domain)")
        domain = check_int_at_least("domain", domain, 2)
        channel = member.channel(chosen, eps, domain_size=domain)
        noise = member.noise_variance(chosen, eps, domain_size=domain)
    return KnownRelease(member.id, member.answer_type, eps, domain, channel, noise, source)


def release_from_ledger(ledger: dict, where: str) -> KnownRelease | None:
    """The :class:`KnownRelease` a ledger's ``channel`` describes (None for a ledger without
    one, e.g. of an inference)."""
    channel = ledger.get("channel")
    if not channel:
        return None
    settings = dict(channel.get("parameters") or {})
    return known_release(channel["mechanism"], float(channel["epsilon_per_cell"]),
                         domain=channel.get("domain"), settings=settings,
                         source=f"ledger {where}")


def default_method(answer_type: str, release: KnownRelease | None) -> tuple[str, str]:
    """``(method, why)``: the default for answers of ``answer_type`` (after ``release``)."""
    if release is not None and release.mechanism in DEFAULT_AFTER:
        return (DEFAULT_AFTER[release.mechanism],
                f"the default after a release by {release.mechanism} (the inference "
                "benchmark's best for it across its datasets; docs/inference.md)")
    return (DEFAULT_PLAIN[answer_type],
            f"the default for {answer_type} answers without a known mechanism")


def check_method(method: str, data_type: str, release: KnownRelease | None, *,
                 ordinal: bool = False) -> Method:
    """The :class:`Method` ``method``, after checking it accepts ``data_type`` answers and has
    what it needs of ``release``; otherwise a :class:`ParameterError` saying what to use."""
    if method not in METHODS:
        raise ParameterError("method", method, f"method must be one of {tuple(METHODS)}, got "
                             f"{method!r}")
    m = METHODS[method]
    same = [i for i, x in METHODS.items() if x.accepts == data_type and not x.needs]
    if m.accepts != data_type:
        if data_type == "categorical" and m.ordinal and ordinal:
            pass
        elif data_type == "categorical":
            raise ParameterError("method", method, f"{method} averages numbers, and the answers "
                                 "are categorical labels (a label column): use one of "
                                 f"{same}, or pass --ordinal (ordinal=True) to average the "
                                 "label codes as LDP-sparse's experiments do")
        else:
            raise ParameterError("method", method, f"{method} counts labels, and the answers "
                                 "are continuous values (a value column): use one of "
                                 f"{same}")
    if m.needs == "channel" and (release is None or release.channel is None):
        have = "no known release" if release is None else f"a release by {release.mechanism}"
        raise ParameterError("method", method, f"{method} needs the channel of a label release "
                             f"(RR, 2-Layer, RR on answered cells); there is {have}: keep the "
                             "release's ledger beside it, or give --mechanism, --epsilon and "
                             "--domain")
    if m.needs == "noise" and (release is None or release.noise_variance is None):
        why = ("there is no known release" if release is None else
               f"the noise of a release by {release.mechanism} has no public variance (MF's "
               "and PPTD's depend on what each worker keeps private)")
        raise ParameterError("method", method, f"{method} needs the public noise variance of "
                             f"a value release (LP): {why}; use one of {same}")
    return m


@dataclass
class Inferred:
    """Output of :func:`infer_long`: ``truths`` per task (labels as numbers for categorical
    methods, NaN where a task has none), ``labels`` (int, −1 for none) when the answers are
    labels or a release of labels, ``weights`` per worker, EM or iteration counts, and notes
    on what was done (decoding, NULL handling)."""

    method: str
    truths: np.ndarray
    labels: np.ndarray | None
    weights: np.ndarray
    iterations: int
    converged: bool
    notes: list = field(default_factory=list)


def _median(task, worker, value, n_tasks, n_workers):
    """Median per task (NaN where a task has no value): by selection on the workers x tasks
    matrix when every cell has a value (a release of every cell: LP, MF), else by sorting."""
    if value.size == n_tasks * n_workers:
        grid = np.full((n_workers, n_tasks), np.nan)
        grid[worker, task] = value
        if not np.isnan(grid).any():
            return np.median(grid, axis=0)
    order = np.lexsort((value, task))
    t, v = task[order], value[order]
    counts = np.bincount(t, minlength=n_tasks)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    out = np.full(n_tasks, np.nan)
    has = counts > 0
    lo = start[has] + (counts[has] - 1) // 2
    hi = start[has] + counts[has] // 2
    out[has] = (v[lo] + v[hi]) / 2.0
    return out


def infer_long(method: str, task, worker, value, *, n_tasks: int, n_workers: int,
               data_type: str, domain: int | None = None,
               release: KnownRelease | None = None, ordinal: bool = False,
               options: dict | None = None) -> Inferred:
    """Run ``method`` on long-format answers of ``data_type`` (labels or values).

    ``release``: what is known of the mechanism that produced the answers; ``domain``: K for
    labels (the release's K when known, else the largest label + 1). A label release whose
    channel observes NULL (RR, 2-Layer) lists only its non-NULL cells: naive methods use those,
    aware methods treat every other cell of the n_workers x n_tasks grid as a NULL output.
    """
    from . import categorical as cat

    if data_type not in ANSWER_TYPES:
        raise ParameterError("data_type", data_type, f"must be one of {ANSWER_TYPES}")
    m = check_method(method, data_type, release, ordinal=ordinal)
    options = dict(options or {})
    takes_prior = m.id in ("ds", "one-coin-ds", "aware-ds", "aware-one-coin-ds")
    if "prior" in options and not takes_prior:
        raise ParameterError("prior", options["prior"], f"prior (--prior) applies to the "
                             f"Dawid-Skene methods (ds, one-coin-ds, aware-ds, "
                             f"aware-one-coin-ds), not to {m.id}")
    t = np.asarray(task, dtype=np.int64)
    w = np.asarray(worker, dtype=np.int64)
    x = np.asarray(value, dtype=np.float64)
    notes = []
    labels_of = None  # K when the values stand for labels (decode by rounding)
    if release is not None and release.input_type == "categorical":
        labels_of = release.domain
    if data_type == "categorical":
        if not np.array_equal(x, np.round(x)) or (x < 0).any():
            raise ParameterError("label", x[(x != np.round(x)) | (x < 0)][0],
                                 "labels must be integers 0..K-1")
        k = int(domain) if domain is not None else (
            release.domain if release is not None and release.domain else int(x.max()) + 1)
        if x.max() >= k:
            raise ParameterError("domain", k, f"a label {x.max():g} is outside 0..{k - 1}")
        k = max(k, 2)
        labels_of = k
    if m.accepts == "categorical":
        y = x.astype(np.int64)
        kw = dict(n_tasks=n_tasks, n_workers=n_workers, n_labels=k)
        if m.id == "majority":
            res = cat.majority_vote(t, w, y, **kw, **options)
        elif m.id == "weighted-vote":
            res = cat.sun_weighted_vote(t, w, y, **kw, **options)
        elif m.id == "ds":
            res = cat.dawid_skene(t, w, y, **kw, **options)
        elif m.id == "one-coin-ds":
            res = cat.one_coin_dawid_skene(t, w, y, **kw, **options)
        else:
            channel = release.channel
            if channel.symbols != (k + 1 if channel.observes_null else k):
                raise ParameterError("domain", k, f"the release's channel is over "
                                     f"{channel.symbols} symbols, not K = {k} labels")
            model = "full" if m.id == "aware-ds" else "one_coin"
            prior = options.pop("prior", "estimate" if model == "full" else "moments")
            stack = channel.matrices
            res = cat.channel_dawid_skene(
                t, w, y, **kw, channel=stack if stack.shape[0] > 1 else stack[0],
                grid_weights=channel.weights if stack.shape[0] > 1 else None, model=model,
                prior=prior, implicit_null=channel.observes_null, **options)
            if channel.observes_null:
                notes.append(f"every cell of the {n_workers} x {n_tasks} grid the release does "
                             "not list is a NULL output of its channel")
        truths = np.where(res.truths >= 0, res.truths, np.nan).astype(np.float64)
        return Inferred(m.id, truths, res.truths, np.nan_to_num(res.skill), res.iterations,
                        res.converged, notes)
    # continuous methods (on values, or label codes as numbers when ordinal)
    if data_type == "categorical":
        notes.append("label codes averaged as numbers (ordinal), as LDP-sparse's experiments "
                     "judge them by the MAE of codes")
    if m.id == "aware-mean":
        res = cat.noise_aware_mean(t, w, x, n_tasks=n_tasks, n_workers=n_workers,
                                   noise_variance=release.noise_variance, **options)
        truths, weights, iterations, converged = (res.truths, res.weights, res.iterations,
                                                  res.converged)
    elif m.id in ("mean", "median"):
        counts = np.bincount(t, minlength=n_tasks)
        with np.errstate(invalid="ignore", divide="ignore"):
            truths = (np.bincount(t, weights=x, minlength=n_tasks) / counts
                      if m.id == "mean" else _median(t, w, x, n_tasks, n_workers))
        weights, iterations, converged = np.ones(n_workers), 0, True
    else:
        from . import truth
        from .answers import Answers

        res = getattr(truth, m.id)(Answers(t, w, x, n_tasks, n_workers), **options)
        truths, weights = res.truths, res.weights
        iterations = int(np.asarray(res.iterations).ravel()[0])
        converged = bool(np.asarray(res.converged).ravel()[0])
    labels = None
    if labels_of is not None:
        labels = cat.round_to_labels(truths, labels_of)
        if data_type == "continuous":
            notes.append(f"values of a release of labels decoded to the nearest label "
                         f"0..{labels_of - 1}")
    return Inferred(m.id, np.asarray(truths, dtype=np.float64), labels,
                    np.asarray(weights, dtype=np.float64), iterations, converged, notes)
