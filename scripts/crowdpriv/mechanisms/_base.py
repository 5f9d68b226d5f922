"""The mechanism family: one public signature, each member writes only what is its own.

In the manner of ``scipy.stats``' distribution families (``rv_continuous`` fixes ``pdf``,
``rvs``, ``fit``; ``laplace_gen`` writes ``_pdf`` and ``_rvs``), :class:`Mechanism` fixes what
every privacy mechanism of this project offers and each member (LP, RR, 2-Layer, MF, ...)
fills in its part:

* identity: one ``id`` (the only spelling in code, config and CLI), a display ``label`` (the
  ``method`` column of the result files and the key of its random streams), ``aliases``
  accepted at the edge (old config spellings);
* settings: a frozen dataclass ``Settings`` with the defaults (the one place a default lives);
* the sampler, split into ε-free ``draws`` and a cheap ``apply`` at each ε (a sweep draws once
  and applies every ε: common random numbers), used by the dense experiments, the block-streamed
  path and the API alike;
* ``claimed``: the paper's guarantee as printed (ε, δ, unit, theorem, neighbours);
* ``guarantee``: what the implementation as it runs guarantees, per record and for everything
  one worker releases (composition named), worst case over workers, ∞ where the floating-point
  sampler leaks or a neighbour the paper's definition admits is not covered;
* ``ledger_text``: what a release's ledger says it covers and does not;
* ``audit_cases``: the privacy audit's cases (:class:`crowdpriv.audit.Case`);
* ``law``: the sampler's law as checkable statements (:mod:`crowdpriv.mechanisms.contract`);
* ``channel`` / ``noise_variance``: what truth inference may know of the mechanism (the
  randomisation channel of a label release, the variance of the noise added to a value),
  which the contract checks against the sampler that runs.

``parts`` says which of these a member has (PrisCrowd's Alg. 1 has no ε sweep over label
codes; PPTD has no streamed path); :func:`crowdpriv.mechanisms.contract.check_mechanism` checks
every part a member declares.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import ParameterError

__all__ = [
    "PARTS",
    "Channel",
    "Claimed",
    "Guarantee",
    "DataShape",
    "Perturbed",
    "Mechanism",
    "NoSettings",
    "LawCheck",
    "basic_composition",
    "setting",
]

#: Parts of the contract a member may have: ``sweep`` (draws/apply on label codes in the
#: dense experiments), ``stream`` (worker blocks, :mod:`crowdpriv.streaming`), ``release``
#: (the API/CLI on a user's table), ``audit`` (privacy audit cases), ``law`` (checkable law).
PARTS = ("sweep", "stream", "release", "audit", "law")


@dataclass(frozen=True)
class NoSettings:
    """A mechanism without settings of its own."""


@dataclass(frozen=True)
class Claimed:
    """A paper's privacy guarantee as printed.

    ``unit`` is what one ε protects (an answered cell, a record, a released claim);
    ``neighbours`` the paper's definition of neighbouring inputs; ``source`` the theorem or
    equation.
    """

    epsilon: float
    delta: float
    unit: str
    source: str
    neighbours: str


@dataclass(frozen=True)
class DataShape:
    """What a guarantee depends on in the data: workers, tasks, and the most records one
    worker holds (answered cells, claims)."""

    workers: int
    tasks: int
    max_records_per_worker: int

    @classmethod
    def of_answers(cls, answers) -> "DataShape":
        """Of a (workers × tasks) matrix with ``NaN`` = NULL."""
        a = np.asarray(answers, dtype=np.float64)
        return cls(int(a.shape[-2]), int(a.shape[-1]),
                   int((~np.isnan(a)).sum(-1).max()) if a.size else 0)

    @classmethod
    def of_table(cls, table, *, task="task", worker="worker") -> "DataShape":
        """Of a long table (one row per record)."""
        per_worker = table.groupby(worker, sort=False).size()  # pragma: no mutate (equivalent: the order of the groups; only their largest size is used)
        return cls(int(table[worker].nunique()), int(table[task].nunique()),
                   int(per_worker.max()) if len(per_worker) else 0)


@dataclass(frozen=True)
class Guarantee:
    """What the implementation, as it runs, guarantees.

    ``record_epsilon``/``record_delta``: per record (``record_unit``), worst case over workers
    and over the neighbours the paper's definition admits; ``inf`` where the sampler's
    floating point leaks (Mironov 2012) or an admitted neighbour is not covered.
    ``worker_epsilon``/``worker_delta``: over everything one worker releases (every cell of
    his row, NULL fills included), by the rule named in ``worker_rule``.
    ``ideal_record_epsilon``: the same per-record value in exact arithmetic (the law of the
    mechanism, for the neighbours it covers), for comparison; ``float_safe``: whether the
    sampler's floating point is safe (only then is a finite ``record_epsilon`` exact);
    ``basis``: the derivation; ``caveats``: what the guarantee does not cover;
    ``rounding_excess``: for a sampler whose outputs both neighbours can produce but whose
    probabilities are rounded (a float uniform against a float threshold), an estimate of how
    far rounding moves ε (NaN: not applicable or unknown).
    """

    record_epsilon: float
    record_delta: float
    record_unit: str
    worker_epsilon: float
    worker_delta: float
    worker_rule: str
    ideal_record_epsilon: float
    float_safe: bool
    basis: str
    caveats: tuple[str, ...] = ()
    rounding_excess: float = float("nan")

    def as_dict(self) -> dict:
        """JSON-ready: an infinite ε is the string ``"inf"`` (JSON has no infinity)."""
        out = dataclasses.asdict(self)
        out["caveats"] = list(self.caveats)
        return {k: ("inf" if isinstance(v, float) and math.isinf(v) else v)
                for k, v in out.items()}


def basic_composition(per_record: float, records: int, delta: float = 0.0) -> tuple[float, float]:
    """Basic (sequential) composition of ``records`` mechanisms of (ε, δ) each: (kε, kδ)."""
    if records <= 0:
        return 0.0, 0.0
    return float(per_record) * records, min(float(delta) * records, 1.0)


@dataclass(frozen=True)
class LawCheck:
    """One checkable statement of a sampler's law: ``sample(rng, n)`` runs the member's own
    sampler (the code that runs) and returns ``n`` values of a statistic whose distribution
    the member declares independently of the sampler: a continuous ``cdf`` (tested by
    Kolmogorov-Smirnov) or discrete ``probabilities`` over ``support`` (tested by a G-test).
    :func:`crowdpriv.mechanisms.contract.check_law` runs it."""

    name: str
    sample: Any
    cdf: Any = None
    support: Any = None
    probabilities: Any = None


@dataclass(frozen=True)
class Channel:
    """A label release's randomisation channel, as mechanism-aware inference uses it
    (:func:`crowdpriv.categorical.channel_dawid_skene`).

    ``matrices[g, o, r]`` = P(released symbol o | the worker's response r) under the g-th
    channel of a hidden per-worker mixture with prior ``weights`` (one channel, weight 1, for
    a mechanism without hidden per-worker randomness). Symbols are label codes 0..K-1 and, when
    ``observes_null`` (the release shows every cell, NULL cells included), K for NULL: then a
    cell the release does not list is the symbol K. Without it, only answered cells are
    released and perturbed, and a missing cell is not an observation.
    """

    matrices: np.ndarray
    weights: np.ndarray
    observes_null: bool
    description: str = ""

    def __post_init__(self):
        m = np.asarray(self.matrices, dtype=np.float64)
        w = np.asarray(self.weights, dtype=np.float64)
        if m.ndim != 3 or m.shape[1] != m.shape[2] or w.shape != (m.shape[0],):
            raise ValueError(f"a channel is (G, S, S) matrices with G weights, got "
                             f"{m.shape} and {w.shape}")
        # within 1e-12 absolutely (numpy's default relative 1e-5 would pass a column off by
        # that much); the members' channels sum to 1 within 6e-16
        if not np.allclose(m.sum(axis=1), 1.0, rtol=0.0, atol=1e-12) or \
                not np.isclose(w.sum(), 1.0, rtol=0.0, atol=1e-12):
            raise ValueError("every column of a channel and its weights must sum to 1")
        object.__setattr__(self, "matrices", m)
        object.__setattr__(self, "weights", w)

    @property
    def symbols(self) -> int:
        return int(self.matrices.shape[1])


@dataclass
class Perturbed:
    """A mechanism's output on label codes (the sweep and streamed paths).

    ``values``: RR-like members give int8 codes with ``null_code`` for NULL; LP-like members a
    dense float matrix (``null_code`` None, ``NaN`` = NULL); MF gives ``factors`` (U, V)
    instead, its output U·V never formed.
    """

    values: np.ndarray | None = None
    null_code: int | None = None
    factors: tuple[np.ndarray, np.ndarray] | None = None

    def dense(self, dtype=np.float32) -> np.ndarray:
        """The output as a float matrix with ``NaN`` = NULL (formed: workers × tasks)."""
        if self.factors is not None:
            u, v = self.factors
            return (u.astype(dtype) @ v.astype(dtype)).astype(dtype, copy=False)  # pragma: no mutate (equivalent: the product is a new array, so copying it or not gives the same values and no alias)
        out = np.asarray(self.values).astype(dtype)
        if self.null_code is not None:
            out[np.asarray(self.values) == self.null_code] = np.nan
        return out


class Mechanism:
    """A privacy mechanism of the family (see the module docstring).

    Subclasses set the class attributes and override the methods of the parts they have;
    everything else raises :class:`NotImplementedError` naming the member and the part.
    """

    #: The one spelling (config, CLI, code), e.g. ``"two-layer"``.
    id: str = ""
    #: Display label: ``method`` column of result files and the key of its random streams.
    label: str = ""
    #: Other accepted spellings (old config values); resolved at the edge only.
    aliases: tuple[str, ...] = ()
    #: Paper key (``ldp_sparse``, ``pptd``, ``priscrowd``) or ``""`` for a user's mechanism.
    paper: str = ""
    #: One line: what the mechanism does.
    summary: str = ""
    #: ``categorical`` (labels 0..K-1) or ``continuous`` (values) input.
    answer_type: str = "categorical"
    #: The settings dataclass (defaults live there only).
    Settings: type = NoSettings
    #: Keys of its paper's config block that set it: config key -> settings field (LDP-sparse's
    #: flat ``ldp_sparse.mechanisms`` keys, e.g. ``two_layer_spread`` -> ``spread``).
    config_keys: dict = {}
    #: Parts of the contract this member has (:data:`PARTS`).
    parts: frozenset = frozenset()
    #: True: ``draws`` are ε-free and shared by every ε of a sweep; False: each ε draws anew.
    common_draws: bool = True
    #: The member a release (API/CLI) runs instead, when it is another sampler (LP -> snapped).
    release_with: str | None = None
    #: Whether the sampler's floating point is safe (outputs both neighbours can produce).
    float_safe: bool = False
    #: Whether the output of a NULL cell is released (LP, RR, 2-Layer fill NULLs; MF releases
    #: a dense vector).
    fills_nulls: bool = True
    #: Whether a release's outputs are labels (RR-like) rather than values (LP, MF).
    releases_labels: bool = False
    #: The CLI subcommand that releases with this member (``perturb`` or ``synthesize``).
    cli_command: str = "perturb"
    #: What a release does with NULL cells (the ledger's channel; inference reads it).
    null_handling: str = "only the records given are released"
    #: The inference method (``crowdpriv.inference``) run by default on this member's releases:
    #: the inference benchmark's best after it (docs/inference.md, Table B3); None: the plain
    #: default of the answers' type.
    default_inference: str | None = None

    # --- identity and settings ----------------------------------------------------------

    def __repr__(self) -> str:
        return f"<mechanism {self.id!r} ({self.label})>"

    def settings(self, mapping: dict | None = None, /, **values: Any):
        """Validated settings from a mapping and/or keywords; an unknown key is an error
        naming it and the known ones."""
        given = {**(mapping or {}), **values}
        names = [f.name for f in dataclasses.fields(self.Settings)]
        unknown = [k for k in given if k not in names]
        if unknown:
            raise ParameterError(unknown[0], given[unknown[0]],
                                 f"{self.id} has no setting {unknown[0]!r} (settings: "
                                 f"{', '.join(names) or 'none'})")
        return self.Settings(**given)

    def defaults(self) -> dict:
        """The settings' defaults, by name."""
        return dataclasses.asdict(self.Settings())

    def example_settings(self):
        """Settings to exercise the member with (the contract, the audit of a release): the
        defaults, unless a setting has none (PPTD's λ1, prior knowledge)."""
        return self.settings()

    def law_settings(self) -> list:
        """Settings the contract checks the law at (several where a parameter could be
        confused with its inverse at the default, e.g. ε0 = 1)."""
        return [self.example_settings()]

    def _missing(self, part: str):
        return NotImplementedError(f"mechanism {self.id!r} has no {part} part "
                                   f"(its parts: {sorted(self.parts)})")

    # --- the sampler on label codes (sweep, stream) -------------------------------------

    def prepare(self, codes, settings, *, domain_size: int, rng=None, **public):
        """Per-dataset state the draws need (MF: V and each worker's solve); None by default.
        ``rng`` draws data-independent public parameters (MF's V), unless the caller gives
        them in ``public`` (MF: ``profiles``)."""
        return None

    def draw_spec(self, shape: tuple, settings, dtype) -> tuple | None:
        """Shapes and dtypes of the ε-free draws for codes of ``shape``, so a caller can
        allocate them stacked over repetitions; None when they cannot be allocated ahead."""
        return None

    def draws(self, codes, settings, *, rng, domain_size: int, state=None, dtype=np.float32,
              out=None):
        """The ε-free draws for ``codes`` (workers × tasks), optionally into ``out``."""
        raise self._missing("sweep")

    def apply(self, codes, draws, epsilon, settings, *, domain_size: int, state=None
              ) -> Perturbed:
        """The output at ``epsilon`` from :meth:`draws` (leading axes: repetitions)."""
        raise self._missing("sweep")

    def perturb(self, codes, epsilon, settings, *, rng, domain_size: int, state=None,
                dtype=np.float64) -> Perturbed:
        """:meth:`draws` then :meth:`apply` (one repetition)."""
        d = self.draws(codes, settings, rng=rng, domain_size=domain_size, state=state,
                       dtype=dtype)
        return self.apply(codes, d, epsilon, settings, domain_size=domain_size, state=state)

    def draws_stacked(self, codes, settings, *, rngs, domain_size: int, states=None,
                      dtype=np.float32):
        """Each repetition's draws from its own generator (``codes``: (B, m, n), one
        repetition per ``rngs`` entry), stacked over the repetitions: written straight into
        arrays allocated once when :meth:`draw_spec` gives their shapes."""
        spec = self.draw_spec(codes.shape[1:], settings, dtype)
        states = states if states is not None else [None] * len(rngs)
        if spec is None:
            return [self.draws(codes[b], settings, rng=rng, domain_size=domain_size,
                               state=states[b], dtype=dtype) for b, rng in enumerate(rngs)]
        arrays = tuple(np.empty((len(rngs),) + tuple(s), dt) for s, dt in spec)
        for b, rng in enumerate(rngs):
            self.draws(codes[b], settings, rng=rng, domain_size=domain_size, state=states[b],
                       dtype=dtype, out=tuple(a[b] for a in arrays))
        return arrays[0] if len(arrays) == 1 else arrays

    # --- privacy ------------------------------------------------------------------------

    def claimed(self, settings, epsilon: float, *, domain_size: int | None = None) -> Claimed:
        """The paper's guarantee as printed."""
        raise self._missing("claimed")

    def guarantee(self, settings, shape: DataShape, epsilon: float, *,
                  domain_size: int | None = None) -> Guarantee:
        """The guarantee of the implementation as it runs (see :class:`Guarantee`)."""
        raise self._missing("guarantee")

    def ledger_text(self, settings, epsilon: float, *, domain_size: int | None = None
                    ) -> dict:
        """``{"theorem", "unit", "covers", "not_covered"}`` for a release's ledger."""
        claim = self.claimed(settings, epsilon, domain_size=domain_size)
        return {"theorem": claim.source, "unit": claim.unit, "covers": [], "not_covered": []}

    def ledger_extra(self, settings, epsilon: float, *, domain_size: int | None = None
                     ) -> dict:
        """``{"parameters": {...}, "spent": {...}}``: what a release's ledger adds beside the
        settings and the claimed (ε, δ) (derived parameters, exact values)."""
        return {}

    def check_epsilon(self, settings, epsilon: float, *, domain_size: int | None = None
                      ) -> None:
        """Refuse (a :class:`ParameterError` naming ε) an ε this member cannot release at;
        every finite ε > 0 by default."""

    def audit_cases(self, settings, epsilon: float, *, domain_size: int | None = None,
                    shape: DataShape | None = None) -> list:
        """The privacy audit's cases (:class:`crowdpriv.audit.Case`) at ``epsilon``; cases of
        a whole worker use ``shape`` (a user's data) when given."""
        raise self._missing("audit")

    def law(self, settings, epsilon: float, *, domain_size: int | None = None) -> list:
        """The sampler's law as checkable statements (:mod:`.contract`)."""
        raise self._missing("law")

    # --- what inference may know ---------------------------------------------------------

    def channel(self, settings, epsilon: float, *, domain_size: int) -> Channel | None:
        """The release's channel over label symbols (:class:`Channel`), for a member whose
        outputs are labels; None when the output is not a channel on labels."""
        return None

    def noise_variance(self, settings, epsilon: float, *, domain_size: int | None = None
                       ) -> float | None:
        """Mean square of the noise added to an answered cell's value (output − answer),
        averaged over the labels, when it is public and the same for every worker (LP:
        2(|Γ|/ε)²); None when it is not (no additive noise, or it depends on what the worker
        keeps private, as MF's and PPTD's do)."""
        return None

    # --- release (API / CLI) ------------------------------------------------------------

    def release(self, answers, epsilon, settings, *, rng, domain_size: int | None = None):
        """Perturb a user's (workers × tasks) matrix (``NaN`` = NULL) for a release: returns
        a float matrix with ``NaN`` for an output NULL."""
        if "sweep" not in self.parts:
            raise self._missing("release")
        from ._codes import answer_codes

        codes = answer_codes(answers, domain_size)
        state = self.prepare(codes, settings, domain_size=domain_size, rng=rng)
        return self.perturb(codes, epsilon, settings, rng=rng, domain_size=domain_size,
                            state=state).dense(np.float64)


def setting(default: Any, help: str, *, choices=None, type=None):
    """A settings field with its help text (and ``choices``, a value ``type``) for the CLI and
    the docs: ``d: int = setting(10, "factorisation parameter")``."""
    return field(default=default, metadata={"help": help, "choices": choices, "type": type})
