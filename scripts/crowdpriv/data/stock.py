"""Stock (Li et al., PVLDB 2012) for PrisCrowd: gold values and a labelled surrogate.

The 55-source claims are not available offline (see ``shared/datasets/stock/SOURCE.md``), so the
default is a **surrogate**: the real gold values (majority of 5 providers, 16 attributes per
symbol and day) observed by 55 simulated sources with the error kinds Li et al. describe for
deep-web stock data: mostly small rounding noise, stale values (the previous trading day's value),
unit/scale mistakes and pure errors. A user who holds the upstream clean-stock claim files can
read them with :func:`read_clean_stock_claims` instead.

An object is ``"<day>|<symbol>|<attribute>"``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from .._checks import check_in_interval, check_int_at_least, check_nonnegative
from ..validate import resolve_duplicates

__all__ = [
    "STOCK_ATTRIBUTES",
    "parse_stock_number",
    "read_stock_gold_day",
    "read_clean_stock_claims",
    "simulate_stock_sources",
    "build_stock_dataset",
]

#: The 16 attributes of the clean-data schema, in file order (after Source and Symbol).
STOCK_ATTRIBUTES = (
    "change_pct",
    "last_price",
    "open_price",
    "change_usd",
    "volume",
    "todays_high",
    "todays_low",
    "previous_close",
    "high_52wk",
    "low_52wk",
    "shares_outstanding",
    "pe",
    "market_cap",
    "yield",
    "dividend",
    "eps",
)

_NUMBER_JUNK = re.compile(r"[\s$,%]")


def parse_stock_number(text: str) -> float:
    """Parse a stock field (``"$ 343.26"``, ``"15,447,286"``, ``"1.14E9"``); empty → NaN."""
    cleaned = _NUMBER_JUNK.sub("", text)
    if cleaned in ("", "-", "N/A", "NA"):
        return float("nan")
    return float(cleaned)


def _parse_rows(text: str, n_key_fields: int, origin: str) -> list[tuple]:
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r\n").split("\t")
        # Upstream lines end with a trailing tab: allow one empty extra field.
        if len(fields) == n_key_fields + 17 and fields[-1] == "":
            fields = fields[:-1]
        if len(fields) != n_key_fields + 16:
            raise ValueError(
                f"{origin}:{lineno}: malformed line, expected {n_key_fields + 16} tab-separated "
                f"fields, got {len(fields)}: {line[:80]!r}"
            )
        keys, values = fields[:n_key_fields], fields[n_key_fields:]
        for attribute, raw in zip(STOCK_ATTRIBUTES, values):
            try:
                value = parse_stock_number(raw)
            except ValueError:
                raise ValueError(
                    f"{origin}:{lineno}: non-numeric value {raw!r} for {attribute}"
                ) from None
            if not np.isnan(value):
                rows.append((*[k.strip().lower() for k in keys], attribute, value))
    return rows


def read_stock_gold_day(text: str, day: str, *, origin: str = "<gold>") -> pd.DataFrame:
    """Parse one day's gold file (``symbol`` + 16 attributes, tab separated).

    Returns a truth table (``object``, ``truth``) plus ``symbol``, ``attribute``, ``day``.
    Empty fields (missing attributes) produce no object.
    """
    rows = _parse_rows(text, 1, origin)
    df = pd.DataFrame(rows, columns=["symbol", "attribute", "truth"])
    df.insert(0, "day", day)
    df.insert(0, "task", day + "|" + df["symbol"] + "|" + df["attribute"])
    return df.drop_duplicates("task", keep="last").reset_index(drop=True)


def read_clean_stock_claims(paths: list[str | Path]) -> pd.DataFrame:
    """Read upstream clean-stock claim files (``Source, Symbol, 16 attributes``, tab separated).

    The day is taken from the file name (``stock-2011-07-01.txt`` → ``2011-07-01``), else the
    file's stem. Returns claims (``object``, ``source``, ``value``) with the last claim kept when
    a source repeats an object.
    """
    frames = []
    for path in paths:
        path = Path(path)
        match = re.search(r"\d{4}-\d{2}-\d{2}", path.name)
        day = match.group(0) if match else path.stem
        rows = _parse_rows(path.read_text(encoding="utf-8", errors="replace"), 2, str(path))
        df = pd.DataFrame(rows, columns=["worker", "symbol", "attribute", "value"])
        df["task"] = day + "|" + df["symbol"] + "|" + df["attribute"]
        frames.append(df[["task", "worker", "value"]])
    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["task", "worker", "value"]
    )
    return resolve_duplicates(claims, ["task", "worker"], keep="last",
                              policy="last line of the day's file").reset_index(drop=True)


def simulate_stock_sources(
    gold: pd.DataFrame,
    previous_value: np.ndarray,
    *,
    n_workers: int = 55,
    coverage: tuple[float, float] = (0.3, 1.0),
    rounding_rel_sd: float = 0.002,
    stale_rate: float = 0.05,
    scale_rate: float = 0.02,
    wrong_rate: float = 0.04,
    wrong_log_sd: float = 0.5,
    scale_factors: tuple[float, ...] = (1e3, 1e6, 1e-3),
    quality_shape: float = 1.0,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate ``n_workers`` deep-web sources observing the gold values (the stock surrogate).

    Each source covers a fraction ``coverage`` ~ U(low, high) of the objects and has a quality
    multiplier q_s ~ Gamma(quality_shape, 1/quality_shape) (mean 1) that scales its error rates.
    Each claim is, independently:

    - a *stale* value (the previous trading day's gold value, ``previous_value``; where it is
      unknown, the truth times 1 + N(0, 0.02²)) with probability ``stale_rate · q_s``;
    - a *unit/scale mistake* (truth times a factor drawn from ``scale_factors``) with
      probability ``scale_rate · q_s``;
    - a *pure error* (truth times exp(N(0, wrong_log_sd²))) with probability ``wrong_rate · q_s``;
    - otherwise the truth plus *rounding noise* N(0, (rounding_rel_sd · max(|truth|, 0.01))²).

    (The three error probabilities are capped to sum to at most 0.9.) Every object gets at least
    two claims (extra correct-with-rounding claims are added where coverage left fewer).

    Parameters
    ----------
    gold
        Truth table with columns ``object`` and ``truth``.
    previous_value
        Per gold row, the previous trading day's value of the same symbol and attribute, or NaN.
    rng
        Random generator.

    Returns
    -------
    claims, sources
        Claims (``object``, ``source``, ``value``, ``kind``) and per-source parameters.
    """
    n_sources = check_int_at_least("workers", n_workers, 2)
    low, high = coverage
    check_in_interval("coverage low", low, 0.0, 1.0, closed_low=False, closed_high=True)
    check_in_interval("coverage high", high, low, 1.0, closed_high=True)
    for name, value in (
        ("rounding_rel_sd", rounding_rel_sd),
        ("stale_rate", stale_rate),
        ("scale_rate", scale_rate),
        ("wrong_rate", wrong_rate),
        ("wrong_log_sd", wrong_log_sd),
    ):
        check_nonnegative(name, value)
    if quality_shape <= 0:
        raise ValueError(f"quality_shape must be > 0, got {quality_shape!r}")
    if not scale_factors:
        raise ValueError("scale_factors must list at least one factor")

    truth = gold["truth"].to_numpy(dtype=float)
    previous_value = np.asarray(previous_value, dtype=float)
    n_objects = truth.size
    cover = rng.uniform(low, high, size=n_sources)
    quality = rng.gamma(quality_shape, 1.0 / quality_shape, size=n_sources)
    rates = np.stack([stale_rate * quality, scale_rate * quality, wrong_rate * quality], axis=1)
    total = rates.sum(axis=1, keepdims=True)
    rates = np.where(total > 0.9, rates * 0.9 / np.maximum(total, 1e-300), rates)

    observed = rng.random((n_sources, n_objects)) < cover[:, None]
    short = np.flatnonzero(observed.sum(axis=0) < 2)
    for obj in short:  # rare: only objects that coverage left with fewer than two claims
        missing = np.flatnonzero(~observed[:, obj])
        need = 2 - int(observed[:, obj].sum())
        observed[rng.choice(missing, size=need, replace=False), obj] = True

    src_idx, obj_idx = np.nonzero(observed)
    t = truth[obj_idx]
    u = rng.random(src_idx.size)
    cum = np.cumsum(rates[src_idx], axis=1)
    kind = np.where(u < cum[:, 0], 1, np.where(u < cum[:, 1], 2, np.where(u < cum[:, 2], 3, 0)))
    value = t + rng.normal(0.0, 1.0, t.size) * rounding_rel_sd * np.maximum(np.abs(t), 0.01)
    prev = previous_value[obj_idx]
    stale = np.where(np.isnan(prev), t * (1.0 + rng.normal(0.0, 0.02, t.size)), prev)
    factors = np.asarray(scale_factors, dtype=float)[rng.integers(0, len(scale_factors), t.size)]
    wrong = t * np.exp(rng.normal(0.0, wrong_log_sd, t.size))
    value = np.select([kind == 1, kind == 2, kind == 3], [stale, t * factors, wrong], value)

    width = len(str(n_sources))
    names = np.array([f"s{i + 1:0{width}d}" for i in range(n_sources)])
    kinds = np.array(["rounding", "stale", "scale", "wrong"])
    claims = pd.DataFrame(
        {
            "task": gold["task"].to_numpy()[obj_idx],
            "worker": names[src_idx],
            "value": value,
            "kind": kinds[kind],
        }
    ).sort_values(["task", "worker"], kind="stable", ignore_index=True)
    sources = pd.DataFrame(
        {
            "worker": names,
            "coverage": cover,
            "quality_multiplier": quality,
            "stale_rate": rates[:, 0],
            "scale_rate": rates[:, 1],
            "wrong_rate": rates[:, 2],
        }
    )
    return claims, sources


def _day_of(path: str | Path) -> str:
    match = re.search(r"\d{4}-\d{2}-\d{2}", Path(path).name)
    if match is None:
        raise ValueError(f"{path}: cannot tell the day from the file name")
    return match.group(0)


def build_stock_dataset(
    gold_paths: list[str | Path],
    cfg: dict,
    *,
    real_claims_files: list[str | Path] = (),
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Build the stock dataset from gold files and either simulated or real claims.

    Objects are the non-empty gold values of ``cfg["gold_days"]``; each day's previous trading
    day (when its file is among ``gold_paths``) supplies the stale values. With
    ``cfg["claims_from"] == "surrogate"`` the claims come from :func:`simulate_stock_sources`;
    with ``"real_claims"`` they are read from ``real_claims_files`` and the truth is restricted to
    claimed objects.

    Returns
    -------
    claims, truth, sources
    """
    by_day = {_day_of(p): Path(p) for p in gold_paths}
    days = sorted(by_day)
    gold_frames = {}
    for day in days:
        gold_frames[day] = read_stock_gold_day(
            by_day[day].read_text(encoding="utf-8"), day, origin=str(by_day[day])
        )
    wanted = list(cfg["gold_days"])
    missing = [d for d in wanted if d not in gold_frames]
    if missing:
        raise ValueError(f"gold_days {missing} have no gold file among the inputs")
    frames = []
    for day in wanted:
        gold = gold_frames[day].copy()
        position = days.index(day)
        if position > 0:
            prev = gold_frames[days[position - 1]].set_index(["symbol", "attribute"])["truth"]
            keys = pd.MultiIndex.from_frame(gold[["symbol", "attribute"]])
            gold["previous"] = prev.reindex(keys).to_numpy()
        else:
            gold["previous"] = np.nan
        frames.append(gold)
    gold = pd.concat(frames, ignore_index=True)
    truth = gold[["task", "truth"]]
    if cfg.get("claims_from", "surrogate") == "real_claims":
        claims = read_clean_stock_claims(list(real_claims_files))
        claims = claims.loc[claims["task"].isin(set(truth["task"]))]
        truth = truth.loc[truth["task"].isin(set(claims["task"]))]
        sources = pd.DataFrame({"worker": sorted(claims["worker"].unique())})
        return claims.reset_index(drop=True), truth.reset_index(drop=True), sources
    claims, sources = simulate_stock_sources(
        truth,
        gold["previous"].to_numpy(),
        n_workers=cfg["workers"],
        coverage=tuple(cfg["coverage"]),
        rounding_rel_sd=cfg["rounding_rel_sd"],
        stale_rate=cfg["stale_rate"],
        scale_rate=cfg["scale_rate"],
        wrong_rate=cfg["wrong_rate"],
        wrong_log_sd=cfg["wrong_log_sd"],
        scale_factors=tuple(cfg["scale_factors"]),
        quality_shape=cfg["quality_shape"],
        rng=rng,
    )
    return claims, truth.reset_index(drop=True), sources
