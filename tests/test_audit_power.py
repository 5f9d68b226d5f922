"""Planted violations are found (issue 25): for each neighbour family whose correct mechanism
the audit does not refute, the same mechanism with its noise scale halved (or its keep
odds doubled) but its claim unchanged is ``violated`` at the same sample size, from the
lower bound alone (the closed forms are removed, so only the statistics speak)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from crowdpriv import audits, mechanisms

SAMPLES, SEARCH = 100_000, 20_000


def _blind(case, claimed):
    """The case judged against ``claimed`` by its lower bound only."""
    return dataclasses.replace(case, claimed_epsilon=claimed, exact_epsilon=float("nan"),
                               exact_delta=float("nan"), float_safe=False)


def _verdict(case):
    table = audits.run_audit([case], seed=7, samples=SAMPLES, search_samples=SEARCH,
                             confidence=0.99)
    return table["verdict"].iloc[0], float(table["epsilon_lower_bound"].iloc[0])


def _pick(cases, words):
    return next(c for c in cases if words in c.neighbours)


def _families():
    """(family, correct case, planted case) for every family the correct mechanism passes."""
    eps, k = 1.0, 5
    out = []
    lp = mechanisms.get("lp")
    lp_cases = lp.audit_cases(lp.settings(), eps, domain_size=k)
    # Lap scale halved; for a NULL (whose exact ε is 0.44 at ε = 1, 0.88 at 2ε) quartered
    for words, factor in (("one answered cell", 2), ("NULL vs answered 0", 4)):
        planted = lp.audit_cases(lp.settings(), factor * eps, domain_size=k)
        out.append((f"LP {words}", _pick(lp_cases, words), _pick(planted, words)))
    rr = mechanisms.get("rr")
    rr_cases = rr.audit_cases(rr.settings(), eps, domain_size=k)
    rr_planted = rr.audit_cases(rr.settings(), eps + math.log(2), domain_size=k)  # odds × 2
    for words in ("one answered cell", "NULL vs answered 0"):
        out.append((f"RR {words}", _pick(rr_cases, words), _pick(rr_planted, words)))
    mf = mechanisms.get("mf")
    words = ">= d (likelihood ratio)"
    out.append(("MF answered cell (likelihood ratio)",
                _pick(mf.audit_cases(mf.settings(), eps, domain_size=k), words),
                _pick(mf.audit_cases(mf.settings(), 2 * eps, domain_size=k), words)))
    pptd = mechanisms.get("pptd")
    # the record's Laplace scale 1/√(2λ2) halves when λ2 (∝ ε) is four times larger
    for lam1, words in ((2.0, "one record at Lemma 4.8's Δ_s (printed)"),
                        (1.0, "one record of a user with 30")):
        settings = pptd.settings(lambda1=lam1, sensitivity="printed")  # as the pipeline runs
        out.append((f"PPTD {words}, λ1 = {lam1:g}",
                    _pick(pptd.audit_cases(settings, eps), words),
                    _pick(pptd.audit_cases(settings, 4 * eps), words)))
    basic = mechanisms.get("basic")
    words = "within the object's range"
    out.append(("Basic(Normal) within the range",
                _pick(basic.audit_cases(basic.settings(), eps, name="Normal"), words),
                _pick(basic.audit_cases(basic.settings(), 2 * eps, name="Normal"), words)))
    return out


@pytest.mark.parametrize("family, correct, planted", _families(),
                         ids=[f for f, _, _ in _families()])
def test_a_planted_violation_is_found_and_the_correct_mechanism_is_not(family, correct,
                                                                        planted):
    claimed = correct.claimed_epsilon
    ok, ok_lb = _verdict(_blind(correct, claimed))
    bad, bad_lb = _verdict(_blind(planted, claimed))
    assert ok == "not refuted", (family, ok, ok_lb)
    assert bad == "violated", (family, bad, bad_lb)
    assert bad_lb > claimed >= ok_lb


def test_the_as_run_families_are_violated_by_the_correct_mechanism_itself():
    """Where the mechanism as run is already violated, a planted one adds nothing: those
    families are the extreme-value neighbours of PrisCrowd's Alg. 1 and Basic as run."""
    import yaml

    from conftest import ROOT

    cfg = yaml.safe_load((ROOT / "config/config.yaml").read_text())["priscrowd"]
    cases = [c for c in audits.priscrowd_cases(cfg)
             if "data-entry error" in c.neighbours and "Basic(Normal)" in c.mechanism]
    verdict, lb = _verdict(cases[0])
    assert verdict == "violated" and lb > 1.0
