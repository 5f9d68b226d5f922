"""The mechanism family (crowdpriv.mechanisms): every registered member passes the contract,
each built-in's declared law is the paper's formula, and each guarantee equals a closed form or
a numerical computation written here, independently of the sampler; the ledgers say the same."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from crowdpriv import mechanisms
from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms.contract import ALPHA, check_mechanism, law_pvalue

#: The worked example (crowdpriv.examples) joins the battery, registered inside its test.
EXAMPLE = "crowdpriv.examples:RRAnswersOnly"


@pytest.mark.parametrize("mech_id", [*mechanisms.ids(), EXAMPLE])
def test_every_registered_mechanism_passes_the_contract(mech_id):
    mech = mechanisms.load(mech_id) if mech_id == EXAMPLE else mechanisms.get(mech_id)
    report = check_mechanism(mech, settings=mech.example_settings())
    assert report["guarantee"].worker_epsilon >= report["guarantee"].record_epsilon


def test_the_contract_rejects_a_sampler_that_breaks_its_law():
    """A member whose sampler halves its noise scale (keeping its declared law) fails."""
    from crowdpriv.mechanisms.lp import LP

    class HalfNoise(LP):
        id, label, aliases = "lp-half", "LP-half", ()

        def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
            return super().apply(codes, draws, 2 * epsilon, settings, domain_size=domain_size)

    with pytest.raises(AssertionError, match="does not follow its law"):
        check_mechanism(HalfNoise(), only=["law"])


def test_the_contract_rejects_a_finite_epsilon_from_a_leaking_sampler():
    from crowdpriv.mechanisms.lp import LP

    class Boasting(LP):
        id, label, aliases = "lp-boast", "LP-boast", ()

        def guarantee(self, settings, shape, epsilon, *, domain_size=None):
            g = super().guarantee(settings, shape, epsilon, domain_size=domain_size)
            return type(g)(**{**g.__dict__, "record_epsilon": float(epsilon)})

    with pytest.raises(AssertionError, match="not floating-point safe"):
        check_mechanism(Boasting(), only=["guarantee"])


def test_ids_labels_and_aliases():
    assert mechanisms.ids()[:8] == ["lp", "lp-snapped", "rr", "two-layer", "mf", "pptd",
                                    "priscrowd", "basic"]
    for alias, mech_id in (("LP", "lp"), ("2-Layer", "two-layer"), ("MF", "mf"),
                           ("RR", "rr"), ("PPTD", "pptd")):
        assert mechanisms.resolve(alias) == mech_id
    with pytest.raises(ValueError, match="unknown mechanism 'lpp'"):
        mechanisms.get("lpp")
    with pytest.raises(ValueError, match="mf has no setting 'spread'"):
        mechanisms.get("mf").settings(spread=1.0)


# --- the declared laws are the papers' formulas ---------------------------------------------


def _law(mech_id, eps, k=5, **settings):
    mech = mechanisms.get(mech_id)
    base = mech.example_settings()
    return mech.law(mech.settings({**base.__dict__, **settings}), eps, domain_size=k)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("k", [2, 5, 10])
def test_rr_law_is_eq_8(eps, k):
    e = math.exp(eps)
    for check, code in zip(_law("rr", eps, k), (0, k)):
        want = np.full(k + 1, 1 / (k + e))
        want[code] = e / (k + e)  # Eq. 8: keep e^ε/(|Γ|+e^ε), each other 1/(|Γ|+e^ε)
        np.testing.assert_allclose(check.probabilities, want, rtol=1e-12)


@pytest.mark.parametrize("spread", [0.25, 1.0])
def test_two_layer_law_is_eq_8_at_a_uniform_budget(spread):
    eps, k = 1.5, 5
    budget, cell = _law("two-layer", eps, k, spread=spread)
    x = np.linspace(0, 3, 31)
    np.testing.assert_allclose(budget.cdf(x), np.clip((x - (1 - spread)) / (2 * spread), 0, 1))
    # the cell's channel: Eq. 8 averaged over ε_i ~ U(ε(1−s), ε(1+s)) by the midpoint rule
    grid = eps * (1 - spread) + 2 * eps * spread * (np.arange(20_000) + 0.5) / 20_000
    keep = np.mean(np.exp(grid) / (k + np.exp(grid)))
    other = np.mean(1 / (k + np.exp(grid)))
    np.testing.assert_allclose(cell.probabilities, [keep] + [other] * k, rtol=1e-7)


def test_continuous_laws_are_the_papers_scales():
    x = np.linspace(-20, 20, 41)
    eps, k = 0.7, 5
    lap = stats.laplace(scale=k / eps)  # LDP-sparse Eq. 7 and Eq. 9: Lap(|Γ|/ε)
    np.testing.assert_allclose(_law("lp", eps, k)[0].cdf(x), lap.cdf(x))
    np.testing.assert_allclose(_law("mf", eps, k)[0].cdf(x), lap.cdf(x))
    # PPTD: Theorem 4.10's λ2 (printed Lemma 4.8), one record ~ Laplace(1/√(2λ2)), δ² ~ Exp(λ2)
    lam1, b, eta, delta = 2.0, 2.0, 0.9, 0.1
    gamma2 = b**2 * 2 * math.log(1 / (1 - eta))
    lam2 = 2 * lam1**2 * eps * math.log(1 / (1 - delta)) / gamma2
    noise, variance, _ = _law("pptd", eps, lambda1=lam1, sensitivity="printed")
    np.testing.assert_allclose(noise.cdf(x), stats.laplace(scale=1 / math.sqrt(2 * lam2)).cdf(x))
    y = np.linspace(0, 3, 31)
    np.testing.assert_allclose(variance.cdf(y), 1 - np.exp(-lam2 * y))
    lam2c = 2 * lam1 * eps * math.log(1 / (1 - delta)) / gamma2  # corrected Δ_s = γ/√λ1
    noise_c, _, _ = _law("pptd", eps, lambda1=lam1, sensitivity="corrected")
    np.testing.assert_allclose(noise_c.cdf(x), stats.laplace(scale=1 / math.sqrt(2 * lam2c)).cdf(x))
    # Basic: Lap(range/ε) on the law's object (range 3)
    np.testing.assert_allclose(_law("basic", 2.0)[0].cdf(x), stats.laplace(scale=3 / 2.0).cdf(x))


def test_priscrowd_test_passes_with_lemma_5s_probability():
    mech = mechanisms.get("priscrowd")
    for eps0 in (0.5, 1.0, 2.0):
        settings = mech.settings(eps0=eps0)
        _, passes = mech.law(settings)
        # k' = k + 1 claims in the band: Pr{k + 1 >= k + L} = 1 − e^(−ε0)/2, L ~ Lap(1/ε0)
        assert passes.probabilities[1] == pytest.approx(1 - math.exp(-eps0) / 2)


def test_a_law_check_rejects_the_wrong_law():
    """The goodness-of-fit test the contract runs has power: RR's sampler at ε against the law
    at another ε, and a Laplace sample against a scale 25 % off, are rejected."""
    good = _law("rr", 1.0)[0]
    wrong = _law("rr", 1.3)[0]
    mixed = type(good)("mixed", good.sample, support=good.support,
                       probabilities=wrong.probabilities)
    assert law_pvalue(good, rng=np.random.default_rng(1)) >= ALPHA
    assert law_pvalue(mixed, rng=np.random.default_rng(1)) < ALPHA
    lp = _law("lp", 1.0)[0]
    off = type(lp)("off", lp.sample, cdf=stats.laplace(scale=0.75 * 5).cdf)
    assert law_pvalue(off, rng=np.random.default_rng(2)) < ALPHA


# --- guarantees: closed forms and numbers computed here -------------------------------------

SHAPE = DataShape(workers=40, tasks=300, max_records_per_worker=120)


def _lp_null_ratio_numeric(eps, k, answer):
    """sup over x of |log(mixture density / Laplace density)|, numerically on a wide grid."""
    b = k / eps
    x = np.linspace(-60 * b, 60 * b, 400_001)
    mix = np.mean([stats.laplace.pdf(x, loc=v, scale=b) for v in range(k)], axis=0)
    one = stats.laplace.pdf(x, loc=answer, scale=b)
    ok = (mix > 0) & (one > 0)
    return float(np.max(np.abs(np.log(mix[ok] / one[ok]))))


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("k", [2, 5])
def test_lp_ideal_epsilon_is_the_worst_cell_neighbour(eps, k):
    mech = mechanisms.get("lp")
    g = mech.guarantee(mech.settings(), SHAPE, eps, domain_size=k)
    numeric = max([(k - 1) * eps / k] + [_lp_null_ratio_numeric(eps, k, a) for a in range(k)])
    assert g.ideal_record_epsilon == pytest.approx(numeric, rel=1e-4)
    assert math.isinf(g.record_epsilon)  # the float32 sampler leaks (Mironov 2012)


@pytest.mark.parametrize("eps, k", [(0.5, 5), (1.0, 5), (2.0, 10)])
def test_snapped_lp_epsilon_is_mironovs_theorem_1(eps, k):
    mech = mechanisms.get("lp-snapped")
    g = mech.guarantee(mech.settings(), SHAPE, eps, domain_size=k)
    lam = k / eps  # Mironov's Theorem 1, sensitivity Δ = |Γ| − 1, clamp B = (|Γ|−1)/2 + 10λ
    bound = (k - 1) / 2 + 10 * lam
    want = (k - 1) / lam + 2.0**-49 * bound / lam
    assert g.record_epsilon == pytest.approx(want, rel=1e-12)
    assert g.worker_epsilon == pytest.approx(SHAPE.tasks * want, rel=1e-12)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("spread", [0.0, 0.5, 1.0])
def test_rr_and_two_layer_epsilons_per_record_and_per_worker(eps, spread):
    rr, two = mechanisms.get("rr"), mechanisms.get("two-layer")
    g = rr.guarantee(rr.settings(), SHAPE, eps, domain_size=5)
    assert g.record_epsilon == eps and g.worker_epsilon == pytest.approx(SHAPE.tasks * eps)
    g2 = two.guarantee(two.settings(spread=spread), SHAPE, eps, domain_size=5)
    # the supremum of U(ε(1−s), ε(1+s)): the worst worker's budget, not the mean ε
    assert g2.record_epsilon == pytest.approx(eps * (1 + spread))
    assert g2.worker_epsilon == pytest.approx(SHAPE.tasks * eps * (1 + spread))


def test_two_layer_mixture_epsilon_by_quadrature():
    from crowdpriv.mechanisms.two_layer import two_layer_exact_epsilon

    eps, k = 1.0, 5
    e = np.linspace(0, 2 * eps, 200_001)
    keep = np.trapezoid(np.exp(e) / (k + np.exp(e)), e)
    other = np.trapezoid(1 / (k + np.exp(e)), e)
    assert two_layer_exact_epsilon(eps, k, 1.0) == pytest.approx(math.log(keep / other),
                                                                 rel=1e-8)


@pytest.mark.parametrize("k", [2, 11, 63])
@pytest.mark.parametrize("eps", [1e-6, 0.1, 1.0, 20.0, 100.0, 400.0])
@pytest.mark.parametrize("spread", [1e-7, 0.5, 1.0])
def test_two_layer_mixture_integrals_match_quadrature(k, eps, spread):
    """The closed forms of E[keep] and E[other] over ε_i ~ U(ε(1−s), ε(1+s)) against adaptive
    quadrature at 1e-13: narrow intervals (s = 1e-7), e^ε_i ≫ |Γ| (ε = 100, s = 0.5: other is
    ~e^−50), hi − lo > 700 (ε = 400, s = 1: keep from other) and ε → 0; the channel's rows sum
    to 1."""
    from scipy import integrate

    from crowdpriv.mechanisms.two_layer import (_mixture_integrals, two_layer_channel,
                                                two_layer_exact_epsilon)

    lo, hi = eps * (1 - spread), eps * (1 + spread)
    opts = dict(epsabs=0, epsrel=1e-13, limit=200)
    # the integrands e^x/(k + e^x) and 1/(k + e^x), divided by e^x (no overflow at x = 800)
    keep = integrate.quad(lambda e: 1 / (1 + k * np.exp(-e)), lo, hi, **opts)[0]
    other = integrate.quad(lambda e: np.exp(-e) / (1 + k * np.exp(-e)), lo, hi, **opts)[0]
    got_keep, got_other = _mixture_integrals(lo, hi, float(k))
    assert got_keep == pytest.approx(keep, rel=1e-12)
    assert got_other == pytest.approx(other, rel=1e-12)
    assert two_layer_exact_epsilon(eps, k, spread) == pytest.approx(
        math.log(keep) - math.log(other), rel=1e-12, abs=1e-15)
    assert two_layer_channel(eps, k, spread).sum(axis=1) == pytest.approx(np.ones(k + 1),
                                                                          rel=1e-12)


@pytest.mark.parametrize("eps, k, l1", [(1.0, 5, 1.0), (0.5, 10, 0.6)])
def test_mf_value_change_epsilon(eps, k, l1):
    from crowdpriv.mechanisms.mf import mf_value_epsilon

    assert mf_value_epsilon(eps, k, l1) == pytest.approx(eps * (k - 1) * l1 / k)
    mech = mechanisms.get("mf")
    g = mech.guarantee(mech.settings(l1_norm=l1), SHAPE, eps, domain_size=k)
    assert math.isinf(g.record_epsilon) and math.isinf(g.worker_epsilon)  # NULL ↔ answer


def _pptd_record_epsilon_numeric(lam2, sens):
    """The exponential mixture of normals integrated numerically; the largest log ratio of
    its density at x and x − Δ over a grid of x."""
    def density(x):
        return integrate.quad(lambda y: lam2 * math.exp(-lam2 * y)
                              * math.exp(-x * x / (2 * y)) / math.sqrt(2 * math.pi * y),
                              0, np.inf, limit=200)[0]
    xs = np.linspace(sens + 0.5, sens + 4.0, 8)
    return max(abs(math.log(density(x) / density(x - sens))) for x in xs)


@pytest.mark.parametrize("eps, lam1, reading", [(1.0, 2.0, "printed"), (2.0, 4.0, "corrected")])
def test_pptd_one_record_epsilon_by_numerical_integration(eps, lam1, reading):
    mech = mechanisms.get("pptd")
    settings = mech.settings(lambda1=lam1, sensitivity=reading)
    gamma = 2.0 * math.sqrt(2 * math.log(1 / (1 - 0.9)))
    sens = gamma / lam1 if reading == "printed" else gamma / math.sqrt(lam1)
    lam2 = (2 * (lam1**2 if reading == "printed" else lam1) * eps * math.log(1 / 0.9)
            / gamma**2)
    assert mech.lambda2(settings, eps) == pytest.approx(lam2, rel=1e-12)
    assert mech.record_epsilon(settings, eps) == pytest.approx(
        _pptd_record_epsilon_numeric(lam2, sens), rel=1e-5)
    one = mech.guarantee(settings, DataShape(10, 5, 1), eps)
    assert one.ideal_record_epsilon == pytest.approx(sens * math.sqrt(2 * lam2))
    several = mech.guarantee(settings, DataShape(10, 5, 2), eps)
    assert math.isinf(several.ideal_record_epsilon)  # shared variance: no pure ε


def test_priscrowd_epsilon_is_theorem_2():
    mech = mechanisms.get("priscrowd")
    w = np.array([[0.1, 0.2, 0.3, 0.4, 0.0, 0.0], [0.2, 0.2, 0.2, 0.2, 0.2, 0.0]])
    mask = w > 0
    for k, gamma, eps0, t in ((5, 4.0, 1.0, 1), (3, 2.0, 0.5, 2)):
        settings = mech.settings(k=k, gamma=gamma, eps0=eps0, t=t)
        eps, delta = mech.budget(w, mask, settings)
        for g in range(2):
            c = w[g][mask[g]]
            want = eps0 + math.log(1 + gamma / t * c.max() / c.min())
            want_delta = len(c) * c.max() * math.exp(-eps0 * (k - t))
            if len(c) < k:
                assert np.isnan(eps[g])
            else:
                assert eps[g] == pytest.approx(want) and delta[g] == pytest.approx(want_delta)


# --- ledgers state the guarantee ------------------------------------------------------------


def _answers(rng, workers=12, tasks=9, k=5, share=0.5):
    rows = [(f"t{t}", f"w{w}", int(rng.integers(0, k))) for w in range(workers)
            for t in range(tasks) if rng.random() < share]
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


@pytest.mark.parametrize("mech_id, settings", [
    ("lp", {}), ("rr", {}), ("two-layer", {"spread": 0.5}), ("two-layer", {}),
    ("mf", {"d": 3}), ("mf", {"d": 4, "ridge": 0.5})])
@pytest.mark.parametrize("eps, k", [(0.5, 3), (2.0, 5)])
def test_ledger_states_the_members_guarantee(mech_id, settings, eps, k):
    import crowdpriv

    answers = _answers(np.random.default_rng(3), k=k)
    with pytest.warns(UserWarning, match="NOT private"):
        release = crowdpriv.perturb(answers, mech_id, epsilon=eps, domain=k, seed=1,
                                    audit=False, allow_unsafe=mech_id == "mf", **settings)
    requested = mechanisms.get(mech_id)
    runner = mechanisms.get(requested.release_with or mech_id)
    shape = DataShape.of_table(answers)
    want = runner.guarantee(runner.settings(**settings), shape, eps, domain_size=k).as_dict()
    assert release.ledger["guarantee"] == want
    assert release.ledger["spent"]["epsilon"] == eps and release.ledger["sampler"] == runner.id
    if mech_id == "lp":  # Mironov's Theorem 1 written out
        lam = k / eps
        assert release.ledger["spent"]["exact_epsilon_per_cell"] == pytest.approx(
            (k - 1) / lam + 2.0**-49 * ((k - 1) / 2 + 10 * lam) / lam)


@pytest.mark.parametrize("eps, lam1, reading", [(1.0, 2.0, "printed"), (5.0, 3.0, "printed"),
                                                (1.0, 2.0, "corrected")])
def test_pptd_ledger_per_record_epsilon_is_from_lambda2(eps, lam1, reading):
    import crowdpriv

    rng = np.random.default_rng(4)
    claims = pd.DataFrame({"task": [f"o{i % 7}" for i in range(40)],
                           "worker": [f"u{i}" for i in range(40)],
                           "value": rng.normal(size=40)})
    with pytest.raises(ValueError, match="allow-unsafe"):
        crowdpriv.perturb(claims, "pptd", epsilon=eps, lambda1=lam1, seed=2,
                          sensitivity=reading)
    with pytest.warns(UserWarning):
        release = crowdpriv.perturb(claims, "pptd", epsilon=eps, lambda1=lam1, seed=2,
                                    sensitivity=reading, allow_unsafe=True)
    gamma = 2.0 * math.sqrt(2 * math.log(1 / (1 - 0.9)))  # Lemma 4.8, b = 2, η = 0.9
    sens = gamma / lam1 if reading == "printed" else gamma / math.sqrt(lam1)
    lam2 = 2 * (lam1**2 if reading == "printed" else lam1) * eps * math.log(1 / (1 - 0.1)) \
        / gamma**2  # Theorem 4.10, δ = 0.1
    assert release.ledger["parameters"]["lambda2"] == pytest.approx(lam2)
    assert release.ledger["spent"]["exact_epsilon_per_record"] == pytest.approx(
        sens * math.sqrt(2 * lam2))
    assert release.ledger["spent"]["delta"] == 0.1


@pytest.mark.parametrize("mech_id", mechanisms.ids())
def test_settings_claims_and_guarantees_cannot_change_after_the_fact(mech_id):
    """A ledger's numbers and the settings they come from are frozen values: assigning to one
    raises, and equal values hash alike (they key caches and compare across runs)."""
    import dataclasses

    mech = mechanisms.get(mech_id)
    settings = mech.example_settings()
    shape = DataShape(workers=7, tasks=13, max_records_per_worker=9)
    objects = [settings, shape, mech.claimed(settings, 1.0, domain_size=5),
               mech.guarantee(settings, shape, 1.0, domain_size=5)]
    for obj in objects:
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.anything = 1
    assert hash(settings) == hash(mech.example_settings())


def test_no_settings_channels_and_law_checks_are_frozen_too():
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        mechanisms.NoSettings().anything = 1
    assert hash(mechanisms.NoSettings()) == hash(mechanisms.NoSettings())
    channel = mechanisms.Channel([[[1.0, 0.0], [0.0, 1.0]]], [1.0], observes_null=False)
    for obj in (channel, mechanisms.LawCheck("law", sample=None)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.anything = 1


def test_data_shape_of_answers_and_of_a_table():
    nan = np.nan
    answers = np.array([[1.0, nan, 0.0], [nan, nan, nan], [2.0, 1.0, 1.0], [nan, 0.0, nan]])
    assert DataShape.of_answers(answers) == DataShape(4, 3, 3)
    assert DataShape.of_answers(np.empty((0, 0))) == DataShape(0, 0, 0)
    table = pd.DataFrame({"task": [0, 1, 1, 2], "worker": [5, 5, 6, 5], "value": [1, 2, 3, 4]})
    assert DataShape.of_table(table) == DataShape(2, 3, 3)
    assert DataShape.of_table(table.iloc[:0]) == DataShape(0, 0, 0)


def test_basic_composition_of_no_record_costs_nothing_even_at_an_infinite_epsilon():
    from crowdpriv.mechanisms import basic_composition

    assert basic_composition(math.inf, 0, 0.5) == (0.0, 0.0)
    assert basic_composition(0.5, 3, 0.25) == (1.5, 0.75)
    assert basic_composition(0.5, 1) == (0.5, 0.0)
    assert basic_composition(0.5, 3, 0.5) == (1.5, 1.0)  # δ capped at 1


def test_a_channel_rejects_columns_or_weights_that_do_not_sum_to_one():
    good = [[[0.75, 0.25], [0.25, 0.75]]]
    assert mechanisms.Channel(good, [1.0], observes_null=False).symbols == 2
    with pytest.raises(ValueError, match="sum to 1"):  # a column sums to 1.1, weights to 1
        mechanisms.Channel([[[0.85, 0.25], [0.25, 0.75]]], [1.0], observes_null=False)
    with pytest.raises(ValueError, match="sum to 1"):  # columns sum to 1, weights to 0.5
        mechanisms.Channel(good, [0.5], observes_null=False)
    with pytest.raises(ValueError, match="matrices"):
        mechanisms.Channel([[0.5, 0.5], [0.5, 0.5]], [1.0], observes_null=False)


def test_perturbed_dense_marks_the_null_code_missing_and_forms_factors():
    p = mechanisms.Perturbed(values=np.array([[0, 2], [1, 0]], dtype=np.int8), null_code=2)
    np.testing.assert_array_equal(p.dense(np.float64), [[0.0, np.nan], [1.0, 0.0]])
    lp = mechanisms.Perturbed(values=np.array([[0.5, np.nan]]))  # no null code: NaN = NULL
    np.testing.assert_array_equal(lp.dense(np.float64), [[0.5, np.nan]])
    u, v = np.array([[1.0], [2.0]]), np.array([[3.0, 4.0]])
    mf = mechanisms.Perturbed(factors=(u, v)).dense(np.float64)
    assert mf.dtype == np.float64 and mf.tolist() == [[3.0, 4.0], [6.0, 8.0]]
