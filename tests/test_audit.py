"""The privacy auditor (crowdpriv.audit): exact-ish on randomized response and Laplace, never
above their true ε, and bounded by what the sample size can resolve."""

from __future__ import annotations

import numpy as np
import pytest

from crowdpriv.audit import audit, choose_event, clopper_pearson, resolvable_epsilon


def _rr(eps, k=4):
    keep = np.exp(eps) / (k - 1 + np.exp(eps))

    def sample(rng, n, which):
        truth = 0 if which == "D" else 1
        flip = rng.random(n) >= keep
        other = (truth + rng.integers(1, k, n)) % k
        return np.where(flip, other, truth).astype(float)
    return sample


def _laplace(eps, sensitivity=1.0):
    def sample(rng, n, which):
        centre = 0.0 if which == "D" else sensitivity
        return centre + rng.laplace(0.0, sensitivity / eps, n)
    return sample


def test_clopper_pearson_bounds_and_resolvable_epsilon():
    lo, hi = clopper_pearson(50, 100, 0.995)
    assert 0.35 < lo < 0.5 < hi < 0.65
    assert clopper_pearson(0, 100, 0.995)[0] == 0 and clopper_pearson(100, 100, 0.995)[1] == 1
    assert resolvable_epsilon(100_000, 0.99) == pytest.approx(np.log(100_000 / 5.3), abs=0.2)


@pytest.mark.parametrize("n", [10, 2000, 20_000, 100_000])
def test_clopper_pearson_is_scipy_stats_beta_ppf_bit_for_bit(n):
    # clopper_pearson calls scipy.special.betaincinv (no scipy.stats import): the same bits
    # as the beta.ppf it replaced, at every count of the sample sizes the audit runs
    from scipy.stats import beta

    k = np.arange(n + 1, dtype=np.float64)
    for c in (0.995, 0.9975, 0.99):
        lo, hi = clopper_pearson(k, n, c)
        with np.errstate(invalid="ignore"):
            ref_lo = np.where(k > 0, beta.ppf(1.0 - c, k, n - k + 1), 0.0)
            ref_hi = np.where(k < n, beta.ppf(c, k + 1, n - k), 1.0)
        assert lo.tobytes() == ref_lo.tobytes() and hi.tobytes() == ref_hi.tobytes()


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_audit_recovers_randomized_response_and_never_exceeds_it(eps):
    res = audit(_rr(eps), rng=np.random.default_rng(7), samples=100_000, discrete=True)
    assert res.epsilon_lower_bound <= eps
    assert res.epsilon_lower_bound >= eps - 0.1  # the event {y = D's symbol} is optimal


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_audit_recovers_laplace_and_never_exceeds_it(eps):
    res = audit(_laplace(eps), rng=np.random.default_rng(8), samples=200_000)
    assert res.epsilon_lower_bound <= eps
    assert res.epsilon_lower_bound >= 0.7 * eps  # the tail events approach e^eps


def test_audit_refutes_an_understated_epsilon_and_not_a_true_one():
    """Laplace with scale 1/2 is 2-DP, not 0.5-DP: the audit sees it; the same audit of a
    0.5-DP Laplace stays below 0.5 (a test that can fail)."""
    loose = audit(_laplace(2.0), rng=np.random.default_rng(1), samples=100_000)
    assert loose.epsilon_lower_bound > 0.5
    tight = audit(_laplace(0.5), rng=np.random.default_rng(1), samples=100_000)
    assert tight.epsilon_lower_bound <= 0.5


def test_identical_mechanisms_give_zero_and_the_event_is_reported():
    same = audit(lambda rng, n, which: rng.normal(size=n), rng=np.random.default_rng(2),
                 samples=20_000)
    assert same.epsilon_lower_bound < 0.1
    assert "samples per side" in same.evidence and same.samples == 20_000


def test_choose_event_finds_a_separating_tail():
    rng = np.random.default_rng(3)
    event, score = choose_event(rng.normal(2, 1, 5000), rng.normal(0, 1, 5000))
    # either tail separates two shifted Gaussians; the event must favour the right input
    assert score > 1
    assert (event.kind, event.first) in {(">", "D"), ("<", "D'")}
    event, _ = choose_event(rng.integers(0, 2, 5000), np.zeros(5000), discrete=True)
    assert event.kind == "=" and event.value == 1 and event.first == "D"


def test_every_mechanism_audits_at_small_size_with_the_closed_forms_where_they_exist():
    import yaml

    from conftest import ROOT
    from crowdpriv import audits

    cfg = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    cases = (audits.ldp_sparse_cases(cfg["ldp_sparse"], 1.0)
             + audits.pptd_cases(cfg["pptd"], 1.0, 2.0) + audits.priscrowd_cases(cfg["priscrowd"]))
    table = audits.run_audit(cases, seed=1, samples=2000, search_samples=1000, confidence=0.99)
    assert set(table["verdict"]) <= set(audits.VERDICTS)
    assert {"ldp_sparse", "pptd", "priscrowd"} == set(table["paper"])
    mechanisms = set(table["mechanism"])
    assert {"LP", "RR", "MF", "2-Layer", "Alg. 2", "Alg. 1 (uniform weights)",
            "Basic(Strong)", "Basic(Normal)", "Basic(Weak)"} <= mechanisms
    exact = table.dropna(subset=["exact_epsilon"])
    # the audit's lower bound never exceeds a closed-form epsilon (small sample, same seeds)
    assert (exact["epsilon_lower_bound"] <= exact["exact_epsilon"] + 1e-9).all()
    # with fewer than 1e5 samples a bound above the claim is not enough to call it violated
    lb_only = table.loc[table["exact_epsilon"].isna()]
    assert not (lb_only["verdict"] == "violated").any()
    claims = audits.privacy_claims(table, "ldp_sparse", confidence=0.99)
    assert (claims["category"] == "privacy").all() and claims["claim_id"].is_unique
    assert "not claimed" not in set(table.loc[table["paper"] == "ldp_sparse", "verdict"]) or \
        len(claims) < (table["paper"] == "ldp_sparse").sum()


def test_closed_forms():
    from crowdpriv.mechanisms.lp import lp_null_exact_epsilon
    from crowdpriv.mechanisms.two_layer import two_layer_exact_epsilon

    # NULL -> uniform fill in {0..4} vs answer 0 under Lap(5/eps): the tail ratio
    eps, k = 1.0, 5
    b = k / eps
    expect = np.log(np.mean(np.exp(np.arange(k) / b)))
    assert lp_null_exact_epsilon(eps, k, 0) == pytest.approx(expect)
    assert two_layer_exact_epsilon(1.0, 5, spread=0.0) == pytest.approx(1.0)
    # ε_i ~ U(0, 2ε): ∫ e^x/(k+e^x) dx = ln(k+e^x) and ∫ 1/(k+e^x) dx = (x − ln(k+e^x))/k,
    # the antiderivatives written here apart from the member's log1p/expm1 forms
    keep = np.log((k + np.exp(2.0)) / (k + 1.0))
    other = (2.0 - keep) / k
    assert two_layer_exact_epsilon(1.0, 5, spread=1.0) == pytest.approx(np.log(keep / other),
                                                                         rel=1e-9)


def _neighbours_reachable(y, other, dtype):
    """The few-neighbours lemma, written here independently of crowdpriv.audit: y = fl(x' + t)
    for some float t iff one of the floats around the float nearest to y − x' works (the
    nearest computed exactly with fractions; two neighbours each side allow for the double
    rounding of Fraction -> float64 -> float32)."""
    from fractions import Fraction

    dt = np.dtype(dtype).type
    out = []
    for value in np.asarray(y, dtype=dtype):
        t0 = dt(float(Fraction(float(value)) - Fraction(float(other))))
        cands = [t0]
        for direction in (-np.inf, np.inf):
            t = t0
            for _ in range(2):
                t = np.nextafter(t, dt(direction))
                cands.append(t)
        out.append(any(dt(dt(other) + c) == value for c in cands))
    return np.array(out)


@pytest.mark.parametrize("dtype, other", [(np.float32, 4.0), (np.float64, 0.7), (np.float32, 0.0)])
def test_bisection_agrees_with_the_few_neighbours_lemma(dtype, other):
    from crowdpriv.audit import reachable

    rng = np.random.default_rng(5)
    y = (rng.laplace(0.0, 5.0, 3000) * rng.choice([1.0, 1e-6, 1e3], 3000)).astype(dtype)
    got = reachable(y, lambda t: t + dtype(other), dtype=dtype)
    np.testing.assert_array_equal(got, _neighbours_reachable(y, other, dtype))
    assert got.all() if other == 0.0 else (~got).any()  # each side of the check happens


def test_float_keys_are_the_order_of_the_floats():
    from crowdpriv.audit import float_keys, keys_to_floats

    for dtype in (np.float32, np.float64):
        x = np.array([-np.inf, -3.5, -1e-30, -0.0, 0.0, 1e-300 if dtype == np.float64 else 1e-40,
                      2.0, np.inf], dtype=dtype)
        k = float_keys(x, dtype)
        assert (np.diff(k) >= 0).all() and k[3] == k[4] == 0
        np.testing.assert_array_equal(keys_to_floats(k, dtype), x)
        assert keys_to_floats(float_keys(np.array([1.0], dtype), dtype) + 1, dtype)[0] == \
            np.nextafter(dtype(1.0), dtype(2.0))


def test_key_zero_is_plus_zero_and_the_bisection_reaches_minus_infinity():
    """Key 0 is +0 (not −0, which has the same key); a sampler already at y for the lowest
    draw has −inf as its first draw (the sentinel lies below −inf's key), one never at y +inf."""
    from crowdpriv.audit import first_draw_at_least, keys_to_floats

    for dtype in (np.float32, np.float64):
        zero = keys_to_floats(np.array([0]), dtype)
        assert zero[0] == 0.0 and not np.signbit(zero[0])
        y = np.array([5.0, 5.0, 7.0], dtype=dtype)
        first = first_draw_at_least(lambda t: np.full(t.shape, 5.0, dtype=dtype), y, dtype)
        assert first[0] == first[1] == -np.inf and first[2] == np.inf
        step = first_draw_at_least(lambda t: np.where(t >= 2.5, 1.0, 0.0), np.array([1.0]),
                                   dtype)
        assert step[0] == dtype(2.5)


def test_support_share_counts_a_row_unreachable_when_one_coordinate_is():
    """Rows of coordinates: a row counts once, when any coordinate is out of the neighbour's
    reach; one coordinate per row is the 1-D case."""
    from crowdpriv.audit import support_share

    def even(t):  # the neighbour reaches the even integers only (non-decreasing in t)
        return 2.0 * np.floor(t)

    rows = np.array([[0.0, 2.0, 4.0], [0.0, 3.0, 4.0], [1.0, 3.0, 5.0], [6.0, 8.0, 8.0]])
    got = support_share(rows, even, dtype=np.float64)
    assert (got.unreachable, got.samples) == (2, 4)
    single = support_share(rows[:, :1], even, dtype=np.float64)
    assert (single.unreachable, single.samples) == (1, 4)
    flat = support_share(rows[:, 1], even, dtype=np.float64)
    assert (flat.unreachable, flat.samples) == (2, 4)


def test_textbook_laplace_reaches_its_own_outputs_and_leaks_to_another_input():
    """loc + scale·L against itself: every output reachable (the reference sampler is modelled
    as it computes, y = fl(other + fl(scale·t))); against another input it leaks."""
    from crowdpriv.audit import laplace_float64_support

    same = laplace_float64_support(1.5, 1.5, 5.0, samples=300, rng=np.random.default_rng(2))
    assert (same.unreachable, same.samples) == (0, 300)
    other = laplace_float64_support(0.0, 4.0, 5.0, samples=300, rng=np.random.default_rng(2))
    assert other.share > 0.2


def test_support_tests_find_the_leaks_of_the_float_samplers():
    """LP's float32 sampler as drawn, PPTD's Alg. 2, Basic and MF's b − η leave outputs of one
    input that the neighbour cannot produce; an input against itself never does (the check
    can fail and can pass)."""
    from crowdpriv import audit, mechanisms
    from crowdpriv import floating_point as fp

    rng = np.random.default_rng(0)
    assert fp.lp_float32_support(1.0, 5, answer=0, other=4, samples=500, rng=rng).share > 0.2
    assert fp.lp_float32_support(1.0, 5, answer=4, other=0, samples=500, rng=rng).share > 0.01
    assert fp.lp_float32_support(1.0, 5, answer=3, other=3, samples=500, rng=rng).share == 0
    pptd = mechanisms.get("pptd")
    settings = pptd.example_settings()
    lam2, sens = pptd.lambda2(settings, 1.0), pptd.sensitivity(settings)
    assert fp.pptd_float64_support(lam2, value=0.0, other=sens, samples=500,
                                      rng=rng).share > 0.2
    assert fp.pptd_float64_support(lam2, value=sens, other=sens, samples=500,
                                      rng=rng).share == 0
    assert fp.basic_float64_support(0.0, 1.0, 3.0, 1.0, samples=500, rng=rng).share > 0.1
    assert fp.basic_float64_support(1.0, 1.0, 3.0, 1.0, samples=500, rng=rng).share == 0
    mf = mechanisms.get("mf").settings(d=4)
    assert fp.mf_eta_support(1.0, 5, mf, samples=300, rng=rng).share > 0.2
    assert audit.laplace_float64_support(0.0, 4.0, 5.0, samples=500, rng=rng).share > 0.2


def test_support_tests_pass_every_release_sampler_and_fail_an_unsnapped_one(monkeypatch):
    from crowdpriv import floating_point as fp
    from crowdpriv import mechanisms

    rng = np.random.default_rng(1)
    for mech_id, value, other, k in (("lp-snapped", 0.0, 4.0, 5), ("basic-snapped", 4.0, 14.0,
                                                                     None),
                                     ("pptd-laplace", 0.0, 2.14, None)):
        mech = mechanisms.get(mech_id)
        got = fp.snapped_release_support(mech, mech.example_settings(), 1.0, value=value,
                                            other=other, domain_size=k, samples=500, rng=rng)
        assert got.share == 0 and got.samples == 500
    mf = mechanisms.get("mf-snapped").settings(d=4)
    assert fp.mf_snapped_support(1.0, 5, mf, samples=300, rng=rng).share == 0
    assert fp.integer_rr_support(1.0, 5, value=0, other=1, samples=500, rng=rng).share == 0
    assert fp.integer_rr_support(2.0, 5, value=5, other=0, samples=500, rng=rng).share == 0

    class Unsnapped:  # Laplace noise added in float64, no grid
        def release(self, answers, epsilon, settings, *, rng, domain_size=None):
            return answers + rng.laplace(0.0, 5.0 / epsilon, size=np.shape(answers))

    got = fp.snapped_release_support(Unsnapped(), None, 1.0, value=0.0, other=4.0,
                                        samples=500, rng=rng)
    assert got.share > 0.2
    # integer thresholds that give the other symbols no draw: outputs other than 1 unreachable
    monkeypatch.setattr(fp, "rr_thresholds", lambda eps, k: (np.int64(0), np.int64(2**62)))
    assert fp.integer_rr_support(1.0, 5, value=0, other=1, samples=200, rng=rng).share > 0.5


def test_floating_point_rows_state_the_support_of_every_sampler():
    from crowdpriv.audits import floating_point_rows

    table = floating_point_rows({"real_domain_size": 5, "d": 4}, 1.0, seed=3, samples=400)
    verdicts = dict(zip(table["mechanism"], table["verdict"]))
    assert table["verdict"].tolist()[:2] == ["not claimed", "violated"]
    assert verdicts["MF (floating point)"] == "not auditable"
    for release in ("LP release (snapped)", "RR release (exact thresholds)",
                    "2-Layer release (exact thresholds)", "MF release (snapped)",
                    "PPTD i.i.d. Laplace (snapped)", "Basic release (snapped)"):
        assert verdicts[release] == "not refuted", release
    assert verdicts["Alg. 2 (floating point)"] == "violated"  # the share exceeds δ = 0.1
    assert verdicts["Basic (floating point)"] == "violated"
    violated = table.loc[table["verdict"] == "violated"]
    assert np.isinf(violated["epsilon_lower_bound"]).all()
    assert table.loc[table["verdict"] == "not refuted", "evidence"].str.startswith("0.0%").all()


def test_pptd_floating_point_rows_at_every_configured_lambda1():
    """Alg. 2's float64 output leaks at every λ1 the config audits, each row joining its claim."""
    from crowdpriv.audits import floating_point_rows
    from crowdpriv.mechanisms import get

    block = {"synthetic": {"lambda1": 2.0}, "fig3": {"lambda1": [1.0, 4.0]},
             "privacy": {"b": 2.0, "eta": 0.9, "delta": 0.1, "sensitivity": "corrected"}}
    table = floating_point_rows({"real_domain_size": 5, "d": 4}, 1.0, seed=3, samples=300,
                                pptd_block=block)
    alg2 = table.loc[table["mechanism"] == "Alg. 2 (floating point)"]
    assert alg2["family"].tolist() == [get("pptd").claim_family(v) for v in (1.0, 2.0, 4.0)]
    assert (alg2["verdict"] == "violated").all()
    assert alg2["neighbours"].str.contains("(corrected)", regex=False).all()
    laplace = table.loc[table["mechanism"] == "PPTD i.i.d. Laplace (snapped)"]
    assert len(laplace) == 3 and (laplace["verdict"] == "not refuted").all()


def test_snapping_release_sampler_is_exact_and_on_its_grid():
    from crowdpriv.audits import release_cases, run_audit
    from crowdpriv.mechanisms.lp_snapped import lp_release
    from crowdpriv.release import snapped_laplace, snapping_epsilon, snapping_grid

    assert snapping_grid(5.0) == 8.0 and snapping_grid(8.0) == 8.0
    out = snapped_laplace(np.zeros(5000), 5.0, bound=40.0, rng=np.random.default_rng(0))
    assert np.all(out % 8.0 == 0) and np.abs(out).max() <= 40.0
    assert snapping_epsilon(4, 5.0, 52.0) == pytest.approx(0.8, abs=1e-12)
    with pytest.raises(ValueError, match="snapping"):
        snapping_epsilon(1, 5.0, 4.0)
    values = lp_release(np.array([[0.0, np.nan]] * 100), 1.0, 5, np.random.default_rng(1))
    assert values.shape == (100, 2) and not np.isnan(values).any()
    table = run_audit(release_cases(5, 1.0), seed=1, samples=20_000, search_samples=5_000,
                      confidence=0.99)
    by = table.groupby("mechanism", sort=False)["verdict"].apply(list).to_dict()
    assert by["LP release (snapped)"] == ["proved", "proved"]
    assert by["RR release (exact thresholds)"] == ["proved", "proved"]
    # the worst 2-Layer worker runs at 2ε: violated; MF's NULL case changes the solve, which no
    # exact ε covers (violated at the default run's 1e5 samples, not auditable at 2e4)
    assert "violated" in by["2-Layer release (exact thresholds)"]
    assert by["MF release (snapped)"][0] == "proved"
    assert by["MF release (snapped)"][1] in ("violated", "not auditable")
    exact = table.dropna(subset=["exact_epsilon"])
    assert (exact["epsilon_lower_bound"] <= exact["exact_epsilon"]).all()


def test_plot_audit_groups_rows_and_draws_zero_infinite_and_unresolvable_bounds(tmp_path):
    """The audit figure passes the figure checks with a zero lower bound (hollow marker on the
    axis edge, which stays where the data put it), ε = ∞ (its own column) and a claim beyond
    the resolution (dotted line); rows are grouped by mechanism, δ > 0 is in the label."""
    import pandas as pd

    from crowdpriv import audits

    def row(mechanism, claimed, delta, lb, exact, verdict_):
        return dict(paper="p", mechanism=mechanism, neighbours="one cell, the m = 3 claims",
                    claimed_epsilon=claimed, claimed_delta=delta, epsilon_lower_bound=lb,
                    exact_epsilon=exact, samples=1000, verdict=verdict_, evidence="")

    table = pd.DataFrame([row("A", 1.0, 0.0, 0.5, 0.8, "exact"),
                          row("B", 1.0, 0.1, 0.0, np.nan, "not refuted"),
                          row("A", 1.0, 0.0, np.inf, np.inf, "violated"),
                          row("B", 50.0, 0.0, 2.0, np.nan, "not auditable"),
                          row("A", 1.0, 0.0, 3.0, 4.0, "not claimed")])
    assert audits._grouped(table, "p")["mechanism"].tolist() == ["A", "A", "A", "B", "B"]
    assert "(δ\u00a0=\u00a00.1)" in audits._row_label(table.iloc[1])
    assert audits._resolution_limits(table, 0.99) == {1000: resolvable_epsilon(1000, 0.99)}
    assert audits._log_limits(np.array([0.0, 0.5, np.inf, 1.0]))[0] > 0.4  # zero: no decades
    paths = [tmp_path / "p.png", tmp_path / "p.svg"]
    audits.plot_audit(table, "p", paths, confidence=0.99, title="Paper (A et al.)")
    assert all(path.stat().st_size > 0 for path in paths)
    assert "Paper (A et al.): privacy audit" in paths[1].read_text()
