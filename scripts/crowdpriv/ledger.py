"""The privacy ledger of a release: one documented, versioned schema (docs/ledger.md).

Every file :mod:`crowdpriv.api` writes for a user comes with ``<output>.privacy.json``: what was
released (the data's sha256, rows and columns, so a stale or foreign ledger is detected), by
which mechanism and sampler, the headline — the worst case the user's data gets, per record and
over everything one worker releases, with the composition rule named —, the paper's claim as
printed beside the guarantee of the code as it runs, the channel (what inference needs to know
of the randomisation: mechanism, ε per cell and per worker, |Γ|, NULL handling), what is not
covered and the audit's caveats at the user's parameters.

:data:`LEDGER_SCHEMA` is the one owner of the schema (a JSON Schema); ``docs/ledger.md``
shows it and a test proves the two agree. :func:`validate` checks a ledger against it.
"""

from __future__ import annotations

import functools

import hashlib
import json
import math
from pathlib import Path

__all__ = ["SCHEMA_VERSION", "LEDGER_SCHEMA", "validate", "sha256_file", "read_ledger",
           "ledger_path", "LedgerMismatch", "json_ready"]

#: The ledger format's version (``schema`` field); a reader refuses any other.
SCHEMA_VERSION = "crowdpriv-ledger/1"

_EPS = {"description": "ε, or the string \"inf\" (no finite ε holds)",
        "anyOf": [{"type": "number", "minimum": 0}, {"const": "inf"}]}
_DELTA = {"type": "number", "minimum": 0, "maximum": 1}

#: JSON Schema of a ledger (draft 2020-12). Keys beyond those listed are allowed only where
#: ``additionalProperties`` says so (``parameters``, ``spent``).
LEDGER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "crowdpriv privacy ledger",
    "type": "object",
    "required": ["schema", "command", "mechanism", "data", "input", "headline", "randomness",
                 "reproducible", "seed"],
    "properties": {
        "schema": {"const": SCHEMA_VERSION},
        "command": {"enum": ["perturb", "synthesize", "infer", "audit"]},
        "mechanism": {"type": "string", "description": "the id the user asked for"},
        "sampler": {"type": "string", "description": "the id of the sampler that ran"},
        "data": {
            "type": "object", "required": ["file", "sha256", "rows", "columns"],
            "properties": {"file": {"type": "string"},
                           "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                           "rows": {"type": "integer", "minimum": 0},
                           "columns": {"type": "array", "items": {"type": "string"}},
                           "extra": {"type": "object", "additionalProperties": {
                               "type": "object", "required": ["file", "sha256"]}}},
            "additionalProperties": False},
        "input": {
            "type": "object", "required": ["rows"],
            "properties": {"file": {"type": ["string", "null"]},
                           "sha256": {"type": ["string", "null"]},
                           "rows": {"type": "integer", "minimum": 0},
                           "workers": {"type": "integer", "minimum": 0},
                           "tasks": {"type": "integer", "minimum": 0},
                           "max_records_per_worker": {"type": "integer", "minimum": 0}},
            "additionalProperties": False},
        "headline": {
            "type": "object", "required": ["text", "per_record", "per_worker", "float_safe"],
            "properties": {
                "text": {"type": "string"},
                "per_record": {"type": "object", "required": ["epsilon", "delta", "unit"],
                               "properties": {"epsilon": _EPS, "delta": _DELTA,
                                             "unit": {"type": "string"}},
                               "additionalProperties": False},
                "per_worker": {"type": "object", "required": ["epsilon", "delta", "rule"],
                               "properties": {"epsilon": _EPS, "delta": _DELTA,
                                             "rule": {"type": "string"}},
                               "additionalProperties": False},
                "float_safe": {"type": "boolean"},
                "ideal_per_record_epsilon": _EPS},
            "additionalProperties": False},
        "claimed": {"type": "object", "required": ["epsilon", "delta", "unit", "source"],
                    "properties": {"epsilon": _EPS, "delta": _DELTA,
                                   "unit": {"type": "string"}, "source": {"type": "string"},
                                   "neighbours": {"type": "string"}},
                    "additionalProperties": False},
        "channel": {
            "type": "object",
            "required": ["mechanism", "answer_type", "null_handling"],
            "properties": {"mechanism": {"type": "string"},
                           "answer_type": {"enum": ["categorical", "continuous"]},
                           "domain": {"type": ["integer", "null"]},
                           "epsilon_per_cell": _EPS, "epsilon_per_worker": _EPS,
                           "null_handling": {"type": "string"},
                           "parameters": {"type": "object"}},
            "additionalProperties": False},
        "parameters": {"type": "object"},
        "spent": {"type": "object"},
        "guarantee": {"type": "object"},
        "theorem": {"type": "string"},
        "unit": {"type": "string"},
        "not_covered": {"type": "array", "items": {"type": "string"}},
        "audit_caveats": {"type": "array", "items": {"type": "object"}},
        "randomness": {"type": "string"},
        "reproducible": {"type": "boolean"},
        "seed": {"type": ["integer", "null"]},
        "warning": {"type": "string"},
        "pipeline": {"type": "string"},
        "input_ledger": {"type": "object"},
        "known_release": {
            "type": ["object", "null"],
            "description": "infer: what was known of the mechanism behind its input",
            "required": ["mechanism", "epsilon", "source"],
            "properties": {"mechanism": {"type": "string"}, "epsilon": _EPS,
                           "domain": {"type": ["integer", "null"]},
                           "input_type": {"enum": ["categorical", "continuous"]},
                           "source": {"type": "string"},
                           "channel": {"type": ["string", "null"]},
                           "noise_variance": {"type": ["number", "null"]}},
            "additionalProperties": False},
        "notes": {"type": "array", "items": {"type": "string"}},
        "iterations": {"type": "integer", "minimum": 0},
        "converged": {"type": "boolean"},
    },
    "additionalProperties": True,
}


class LedgerMismatch(ValueError):
    """A ledger that does not describe the data beside it (stale, foreign or incomplete)."""


def json_ready(value):
    """``value`` with infinite floats as the string ``"inf"`` (JSON has no infinity) and NaN
    as None, recursively."""
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        return json_ready(value.item())
    return value


@functools.cache
def _validator():
    """The schema's validator, the schema checked once per process (``jsonschema.validate``
    checks it against the meta-schema at every call: most of a release job's ledger cost)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(LEDGER_SCHEMA)
    cls.check_schema(LEDGER_SCHEMA)
    return cls(LEDGER_SCHEMA)


def validate(ledger: dict) -> None:
    """Raise ``ValueError`` naming the first field where ``ledger`` breaks the schema (the
    error ``jsonschema.validate`` raises: the best match among the errors)."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator().iter_errors(ledger))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ValueError(f"ledger field {where}: {error.message}") from None


def sha256_file(path: str | Path, *, chunk: int = 1 << 20) -> str:
    """The sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def ledger_path(data_path: str | Path) -> Path:
    """``<data>.privacy.json``."""
    data_path = Path(data_path)
    return data_path.with_name(data_path.name + ".privacy.json")


def read_ledger(data_path: str | Path) -> dict | None:
    """The ledger of ``data_path`` after checking it describes these bytes; None when there is
    no ledger. Raises :class:`LedgerMismatch` for a ledger of another version, or whose
    data sha256 is not the file's (a stale ledger, or data changed after the release)."""
    path = ledger_path(data_path)
    if not path.is_file():
        return None
    try:
        ledger = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise LedgerMismatch(f"{path}: not a readable ledger ({err})") from None
    if not isinstance(ledger, dict) or ledger.get("schema") != SCHEMA_VERSION:
        raise LedgerMismatch(f"{path}: not a {SCHEMA_VERSION} ledger "
                             f"(schema {ledger.get('schema') if isinstance(ledger, dict) else None!r})")
    want = (ledger.get("data") or {}).get("sha256")
    got = sha256_file(data_path)
    if want != got:
        raise LedgerMismatch(f"{path} describes other data than {data_path} (sha256 {want} in "
                             f"the ledger, {got} on disk): a stale ledger, or the data changed "
                             "after the release")
    return ledger
