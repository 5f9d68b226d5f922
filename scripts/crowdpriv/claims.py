"""One claims engine for the three papers: claim records, one status vocabulary, one evaluator.

A reproduction exists to say which of a paper's statements hold on the data it produced. Each
paper keeps a small ``_claims.py`` of :class:`Claim` records: the paper's sentence with its
figure or table, the *reading* that turns the words into a test, and a check function. This
module evaluates them all the same way and writes ``results/<paper>/claims.csv``.

Statuses (:data:`STATUSES`):

``holds``
    the data support the statement at the configured level (or exactly, where nothing is random);
``fails``
    the data contradict it;
``inconclusive``
    a statistical check that the repetitions cannot decide either way (too few, or too noisy);
``not testable``
    this run has no data for it (a method or sweep point left out of the config), with the reason.

Categories (:data:`CATEGORIES`): ``paper`` (a claim of the paper about its method), ``erratum`` (a
check of the paper's own consistency: its printed numbers against its own formulas; listed apart
and not counted as a failed paper claim), ``privacy`` (privacy guarantees, checked by audit) and
``ours`` (a claim of this project, not of a paper: the inference benchmark's; counted apart).
A privacy claim has a status of its own words (:data:`PRIVACY_STATUSES`: violated, not refuted,
proved, not auditable; :mod:`crowdpriv.audits`), never holds or fails: an audit that finds
nothing has not shown that a guarantee holds.

Nothing here reads the clock: a verdict is a function of the result tables and the config only.
Comparative checks go through :mod:`crowdpriv.significance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .runtime import write_csv, write_markdown

__all__ = [
    "STATUSES",
    "PRIVACY_STATUSES",
    "statuses_of",
    "CATEGORIES",
    "COLUMNS",
    "Claim",
    "Context",
    "NotTestable",
    "Verdict",
    "evaluate",
    "exact",
    "surrogate_scope",
    "write_claims",
]

STATUSES = ("holds", "fails", "inconclusive", "not testable")
#: Statuses of a privacy claim (category ``privacy``): the audit's words.
PRIVACY_STATUSES = ("violated", "not refuted", "proved", "not auditable")
CATEGORIES = ("paper", "erratum", "privacy", "ours")


def statuses_of(category: str) -> tuple[str, ...]:
    """The status vocabulary of a claim category."""
    return PRIVACY_STATUSES if category == "privacy" else STATUSES
#: Columns of every ``claims.csv``, in order.
COLUMNS = (
    "claim_id",
    "claim",
    "figure",
    "category",
    "reading",
    "status",
    "basis",
    "evidence",
    "data",
)
#: What every exact (non-statistical) verdict states as its basis unless told otherwise.
EXACT_BASIS = "exact: computed from the result tables, nothing sampled to decide it"


class NotTestable(Exception):
    """Raised by a check that cannot decide its claim; the message says why.

    ``basis`` says what kind of reason it is: no data in this run (the default), or e.g. that
    the only deterministic measure available makes the claim true by construction.
    """

    def __init__(self, reason: str, *, basis: str = "no data in this run"):
        super().__init__(reason)
        self.basis = basis


@dataclass(frozen=True)
class Verdict:
    """What a check returns: the status, the statistical basis and the evidence.

    ``data`` names the surrogate datasets the verdict rests on (empty when it rests on real or
    simulated data as the paper used); see :func:`surrogate_scope`.
    """

    status: str
    basis: str
    evidence: str
    data: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")


@dataclass(frozen=True)
class Context:
    """What a check may read: result tables by name, the paper's thresholds and the test."""

    tables: Mapping[str, pd.DataFrame]
    thresholds: Mapping[str, Any]
    significance: Any  # crowdpriv.significance.Significance
    #: Tables deliberately left out, with the reason (e.g. not re-run under a reading).
    absent: Mapping[str, str] = field(default_factory=dict)

    def table(self, name: str) -> pd.DataFrame:
        """The result table ``name``; :class:`NotTestable` if this run did not produce it."""
        if name in self.absent:
            raise NotTestable(f"{name}: {self.absent[name]}", basis="table left out")
        df = self.tables.get(name)
        if df is None or len(df) == 0:
            raise NotTestable(f"this run has no {name} results")
        return df

    def optional_table(self, name: str) -> pd.DataFrame | None:
        """``name`` if this run has it (None if the config left it out); :class:`NotTestable`
        if it was deliberately left out (a check over several tables must not silently
        narrow to the others)."""
        if name in self.absent:
            raise NotTestable(f"{name}: {self.absent[name]}", basis="table left out")
        return self.tables.get(name)

    def threshold(self, key: str) -> Any:
        """A threshold of the paper's ``claims`` config block (error if it is not configured)."""
        if key not in self.thresholds:
            raise ValueError(f"claims threshold {key!r} is not set in the paper's claims config")
        return self.thresholds[key]


@dataclass(frozen=True)
class Claim:
    """One statement of a paper and how it is checked.

    Parameters
    ----------
    claim_id : str
        Stable identifier (``<paper>.<short-name>``), the key of the claim across runs.
    text : str
        The paper's sentence, quoted (or closely paraphrased) with where it stands.
    figure : tuple of str
        Labels of the paper's figures/tables the claim is read from, as the paper's registry
        names them (``"Fig. 3"``, ``"Table 1"``).
    reading : str
        How the words become a test (which cells, which measure, which threshold key).
    check : callable
        ``check(context) -> Verdict``; raises :class:`NotTestable` when the data are absent.
    category : str
        One of :data:`CATEGORIES`.
    """

    claim_id: str
    text: str
    figure: tuple[str, ...]
    reading: str
    check: Callable[[Context], Verdict] = field(repr=False)
    category: str = "paper"

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(
                f"claim {self.claim_id}: category must be one of {CATEGORIES}, "
                f"got {self.category!r}"
            )
        if isinstance(self.figure, str) or not self.figure:
            raise ValueError(
                f"claim {self.claim_id}: figure must be a non-empty tuple of labels, "
                f"got {self.figure!r}"
            )


def exact(ok: bool, evidence: str, *, basis: str = EXACT_BASIS, data: str = "") -> Verdict:
    """Verdict of a check with nothing random in it: ``holds`` if ``ok`` else ``fails``."""
    return Verdict("holds" if ok else "fails", basis, evidence, data)


def surrogate_scope(datasets: Sequence[str]) -> str:
    """The ``data`` note for a verdict resting on ``datasets``: names the surrogates among them.

    ``"surrogate only: x"`` when every dataset is a surrogate, ``"partly surrogate: x"`` when
    some are, ``""`` when none is. Surrogates are the datasets named ``*_surrogate``.
    """
    names = list(dict.fromkeys(str(d) for d in datasets))
    surrogates = [d for d in names if d.endswith("_surrogate")]
    if not surrogates:
        return ""
    scope = "surrogate only" if len(surrogates) == len(names) else "partly surrogate"
    return f"{scope}: {', '.join(surrogates)}"


def evaluate(
    claims: Sequence[Claim],
    tables: Mapping[str, pd.DataFrame],
    *,
    thresholds: Mapping[str, Any],
    significance: Any,
    figures: Sequence[str] | None = None,
    absent: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Check every claim on the result tables; one row per claim with :data:`COLUMNS`.

    Parameters
    ----------
    claims : sequence of Claim
    tables : mapping of str to DataFrame
        Result tables by name (absent or empty tables make the claims that read them
        ``not testable``).
    thresholds : mapping
        The paper's ``claims`` config block.
    significance : crowdpriv.significance.Significance
        Test and level for the comparative claims.
    figures : sequence of str, optional
        The paper's registered figure/table labels; a claim naming another label is an error
        (so the summary can attach every claim to its figure).
    absent : mapping of str to str, optional
        Tables deliberately left out, with the reason; claims reading them are ``not testable``
        with that reason.
    """
    ids = [c.claim_id for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"duplicate claim ids: {dup}")
    known = None if figures is None else set(figures)
    ctx = Context(tables, thresholds, significance, dict(absent or {}))
    rows = []
    for claim in claims:
        unknown = [] if known is None else [f for f in claim.figure if f not in known]
        if unknown:
            raise ValueError(
                f"claim {claim.claim_id} names figure(s) {unknown}, not in the paper's "
                f"registry {sorted(known)}"
            )
        try:
            verdict = claim.check(ctx)
        except NotTestable as reason:
            verdict = Verdict("not testable", reason.basis, str(reason))
        rows.append(
            {
                "claim_id": claim.claim_id,
                "claim": claim.text,
                "figure": "; ".join(claim.figure),
                "category": claim.category,
                "reading": claim.reading,
                "status": verdict.status,
                "basis": verdict.basis,
                "evidence": verdict.evidence,
                "data": verdict.data,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def write_claims(claims: pd.DataFrame, csv_path: str | Path, md_path: str | Path | None = None,
                 *, title: str = "", notes: str = "") -> None:
    """Write a claims table as CSV (and Markdown: figure, claim, status, data, evidence)."""
    write_csv(claims, csv_path)
    if md_path is not None:
        shown = claims[["figure", "category", "claim", "status", "data", "evidence"]]
        write_markdown(shown, md_path, title=title, notes=notes)
