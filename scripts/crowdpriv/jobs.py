"""The config values a pipeline job reads, as its Snakemake params, and their key paths.

Each paper's ``JOB_KEYS`` (``crowdpriv.<paper>._readings``) names the keys of its config block
that each of its jobs reads; the paper's ``job_params`` returns them with :func:`select` as a
job's ``params.config``: the values, in the config's own shape (``{"priscrowd": {"m": 30,
"fig4": {"m": [1, 2]}}}``), the keys in the order the paper lists them.

Snakemake re-runs a job when the ``repr`` of one of its params changes, so a job whose params
hold only what it reads re-runs only when one of those values changes, not when another key is
added. Key order matters to ``repr`` too: Snakemake starts from the command-line config and
merges ``config/config.yaml`` into it, so the order of a block depends on which files were
given; ``workflow/rules/common.smk`` therefore puts the config in the order of
``config/config.yaml`` first (:func:`ordered_like`). Inside the job, :func:`key_paths` names the
config key each value came from, so that an error names ``priscrowd.fig4.m[3]``
(:func:`crowdpriv.runtime.start_job`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["select", "key_paths", "ordered_like"]


def select(block: Mapping, keys: Iterable[str], *, omit: Iterable[str] = ()) -> dict:
    """The values of ``keys`` (dotted paths into ``block``) in ``block``'s shape.

    Keys keep the order of ``keys``; a value is copied whole (a mapping keeps its own order).
    ``omit``: dotted paths left out of what ``keys`` took (e.g.
    ``table2.p``, the list of points a rule makes one job each of). Keys the block does not
    have are left out (``datasets.indoor_surrogate`` in a paper's table keys names the datasets
    block, not a key of the paper's own block).
    """
    out: dict = {}
    for key in keys:
        parts = key.split(".")
        node: Any = block
        for part in parts:
            if not isinstance(node, Mapping) or part not in node:
                break
            node = node[part]
        else:
            target = out
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = copy.deepcopy(node)
    for key in omit:
        parts = key.split(".")
        target = out
        for part in parts[:-1]:
            target = target.get(part) if isinstance(target, Mapping) else None
        if isinstance(target, dict):
            target.pop(parts[-1], None)
    return out


def _singular(name: str) -> str | None:
    """``epsilons`` -> ``epsilon``, ``quantities`` -> ``quantity`` (a list key's item name)."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s"):
        return name[:-1]
    return None


def key_paths(tree: Mapping) -> dict[str, str]:
    """{name a parameter may have: dotted config key path} for every key of ``tree``.

    ``tree`` is a job's ``params.config`` (the config's shape, a paper's block at the top). A
    key is known by its path relative to the paper's block (``fig4.m``, ``m``), then by shorter
    tails (``m`` for ``priscrowd.fig4.m``) where no shallower key has that name; a list key
    also by its singular (``epsilons`` -> ``epsilon``). Ties go to the key listed first (a
    job lists its figure's block before the shared ones), so ``lambda1`` in PPTD's Fig. 3 job
    is ``pptd.fig3.lambda1``, not ``pptd.synthetic.lambda1``.
    """
    paths: list[tuple[list[str], Any]] = []

    def walk(node: Mapping, prefix: list[str]) -> None:
        for name, value in node.items():
            path = [*prefix, str(name)]
            paths.append((path, value))
            if isinstance(value, Mapping):
                walk(value, path)

    walk(tree, [])
    out: dict[str, str] = {}
    longest = max((len(p) for p, _ in paths), default=0)
    for dropped in range(longest):
        for path, value in paths:
            if dropped >= len(path):
                continue
            dotted = ".".join(path)
            tail = path[dropped:]
            out.setdefault(".".join(tail), dotted)
            singular = _singular(tail[-1]) if isinstance(value, list) else None
            if singular:
                out.setdefault(".".join([*tail[:-1], singular]), dotted)
    return out


def ordered_like(value: Any, template: Any) -> Any:
    """A copy of ``value`` with each mapping's keys in ``template``'s order, the keys the
    template lacks after them in their own order: the config in the order of
    ``config/config.yaml`` whichever files built it (an ordered mapping such as PrisCrowd's
    ``basic_epsilons`` keeps the order the default config gives it)."""
    if isinstance(value, Mapping):
        template = template if isinstance(template, Mapping) else {}
        first = [key for key in template if key in value]
        rest = [key for key in value if key not in template]
        return {key: ordered_like(value[key], template.get(key)) for key in [*first, *rest]}
    if isinstance(value, list):
        return [ordered_like(v, None) for v in value]
    return copy.deepcopy(value)
