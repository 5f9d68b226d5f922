"""Exact tests of MF (crowdpriv.mechanisms.mf; LDP-sparse Sec. V, Eq. 9-10, Theorem 4): small
hand-computed cases of the profiles, the closed-form solve, the noise, the objective and the
member's guarantee, audit cases and law."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms import mf as mfm
from crowdpriv.mechanisms.mf import MF, MFPrepared, MFSettings


class FixedUniforms:
    """A generator whose uniforms are given (the interface draw_task_profiles uses)."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)

    def random(self, size):
        assert tuple(size) == self.values.shape
        return self.values.copy()


# --- settings ---------------------------------------------------------------------------------


def test_settings_defaults_are_the_documented_ones():
    s = MFSettings()
    # d = 10: config/config.yaml's ldp_sparse.d (the paper is silent for Sec. VI); ridge 0: Eq. 9
    # exactly; l1_norm 1: Sec. V's ‖v_j‖₁ ≤ 1; profiles: U(0, 1) entries; rcond 1e-8
    assert (s.d, s.ridge, s.l1_norm, s.profiles, s.rcond) == (10, 0.0, 1.0, "nonnegative", 1e-8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.d = 3


@pytest.mark.parametrize("key, value", [("d", 0), ("ridge", -0.1), ("l1_norm", 0.0),
                                        ("l1_norm", 1.2), ("profiles", "positive"),
                                        ("rcond", -1e-9)])
def test_settings_reject_values_outside_their_ranges(key, value):
    with pytest.raises(ParameterError, match=key) as err:
        MFSettings(**{key: value})
    assert err.value.parameter == key and err.value.value == value


@pytest.mark.parametrize("key, value", [("d", 1), ("l1_norm", 0.5), ("l1_norm", 1.0),
                                        ("profiles", "signed"), ("ridge", 0.0), ("rcond", 0.0)])
def test_settings_accept_the_ends_of_their_ranges(key, value):
    assert getattr(MFSettings(**{key: value}), key) == value


# --- task profiles V (Sec. V) -----------------------------------------------------------------


def test_profiles_rescale_uniforms_to_the_column_norm():
    u = np.array([[0.25, 0.5, 0.1], [0.75, 0.5, 0.3]])
    v = mfm.draw_task_profiles(3, 2, rng=FixedUniforms(u), l1_norm=0.5)
    # column j of V is u_j / ‖u_j‖₁ · l1
    np.testing.assert_allclose(v, [[0.125, 0.25, 0.125], [0.375, 0.25, 0.375]], rtol=1e-15)
    # signed: 2u − 1 rescaled the same way (the same uniforms, hence the same magnitudes' draws)
    s = mfm.draw_task_profiles(3, 2, rng=FixedUniforms(u), l1_norm=0.5, signs="signed")
    # a column of 2u − 1 = 0 (u = 1/2) counts as tiny entries: 1/d each, times l1
    np.testing.assert_allclose(s, [[-0.25, 0.25, -0.5 * 0.8 / 1.2], [0.25, 0.25, -0.5 * 0.4 / 1.2]],
                               rtol=1e-15)
    assert v.shape == s.shape == (2, 3)


def test_profiles_default_to_nonnegative_unit_columns():
    v = mfm.draw_task_profiles(7, 3, rng=np.random.default_rng(4))
    assert v.shape == (3, 7) and (v > 0).all()
    np.testing.assert_allclose(np.abs(v).sum(0), 1.0, rtol=1e-15)
    s = mfm.draw_task_profiles(7, 3, rng=np.random.default_rng(4), signs="signed")
    assert (s < 0).any()
    np.testing.assert_allclose(np.abs(s).sum(0), 1.0, rtol=1e-15)


def test_profiles_never_divide_by_a_zero_column():
    # uniforms of exactly 0 (nonnegative) or 1/2 (signed: 2u − 1 = 0) still give columns of
    # 1-norm l1 with the documented signs: every entry 1/d
    zeros = mfm.draw_task_profiles(2, 4, rng=FixedUniforms(np.zeros((4, 2))))
    np.testing.assert_array_equal(zeros, np.full((4, 2), 0.25))
    halves = mfm.draw_task_profiles(2, 4, rng=FixedUniforms(np.full((4, 2), 0.5)),
                                    signs="signed")
    np.testing.assert_array_equal(halves, np.full((4, 2), 0.25))


@pytest.mark.parametrize("kwargs, key", [({"n_tasks": 0}, "n_tasks"), ({"d": 0}, "d"),
                                         ({"l1_norm": 0.0}, "l1_norm"),
                                         ({"l1_norm": 1.5}, "l1_norm")])
def test_profiles_reject_bad_sizes_and_norms(kwargs, key):
    args = {"n_tasks": 3, "d": 2, **kwargs}
    with pytest.raises(ParameterError, match=key):
        mfm.draw_task_profiles(args.pop("n_tasks"), args.pop("d"), rng=np.random.default_rng(0),
                               **args)
    with pytest.raises(ValueError, match="profile signs must be one of .* got 'both'"):
        mfm.draw_task_profiles(3, 2, rng=np.random.default_rng(0), signs="both")
    one = mfm.draw_task_profiles(1, 1, rng=np.random.default_rng(0), l1_norm=1.0)
    np.testing.assert_allclose(one, [[1.0]])


# --- the closed-form solve (Eq. 9-10) ---------------------------------------------------------


V2 = np.array([[0.5, 0.25, 0.0], [0.5, 0.25, 1.0]])  # d = 2, n = 3, ‖v_j‖₁ ≤ 1


def _gram_rhs(row, v):
    t = ~np.isnan(row)
    return v[:, t] @ v[:, t].T, v[:, t] @ row[t]


def test_prepare_gram_rhs_and_exact_inverse():
    a = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 0.0], [np.nan, 1.0, np.nan]])
    prep = mfm.mf_prepare(a, V2, domain_size=5)
    assert isinstance(prep, MFPrepared) and prep.domain_size == 5
    assert prep.solver.shape == (3, 2, 2) and prep.rhs.shape == (3, 2)
    for i in range(3):
        g, b = _gram_rhs(a[i], V2)
        np.testing.assert_allclose(prep.rhs[i], b, rtol=1e-15)
        if i < 2:  # |T_i| >= d: the exact inverse (ridge 0 by default: Eq. 9 exactly)
            np.testing.assert_allclose(prep.solver[i], np.linalg.inv(g), rtol=1e-12)
    # one answer (|T_i| = 1 < d): the pseudo-inverse of the rank-one G = v vᵀ is v vᵀ/‖v‖₂⁴
    v1 = V2[:, 1]
    np.testing.assert_allclose(prep.solver[2], np.outer(v1, v1) / (v1 @ v1) ** 2, rtol=1e-12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        prep.domain_size = 4


def test_prepare_with_codes_matches_the_float_path():
    codes = np.array([[1, 5, 3], [2, 4, 0]], dtype=np.int8)  # 5 = NULL (|Γ| = 5)
    floats = np.where(codes == 5, np.nan, codes.astype(float))
    p_codes = mfm.mf_prepare(codes, V2, domain_size=5, null_code=5)
    p_float = mfm.mf_prepare(floats, V2, domain_size=5)
    np.testing.assert_array_equal(p_codes.rhs, p_float.rhs)
    np.testing.assert_array_equal(p_codes.solver, p_float.solver)
    np.testing.assert_allclose(p_codes.rhs[0], V2[:, 0] * 1 + V2[:, 2] * 3, rtol=1e-15)


def test_prepare_checks_answers_unless_told_they_are_checked():
    with pytest.raises(ValueError, match=r"integers in \[0, 4\] \(domain_size=5\); found .*7\.0"):
        mfm.mf_prepare(np.array([[7.0, 0.0, 1.0]]), V2, domain_size=5)
    prep = mfm.mf_prepare(np.array([[7.0, 0.0, 1.0]]), V2, domain_size=5, checked=True)
    np.testing.assert_allclose(prep.rhs[0], V2 @ [7.0, 0.0, 1.0])


def test_prepare_rejects_profiles_of_the_wrong_shape():
    a = np.zeros((2, 3))  # m = 2 workers, n = 3 tasks
    with pytest.raises(ValueError, match=r"profiles must have shape \(d, 3\), got \(3,\)"):
        mfm.mf_prepare(a, np.full(3, 0.25), domain_size=5)
    with pytest.raises(ValueError, match=r"profiles must have shape \(d, 3\), got \(3, 2\)"):
        mfm.mf_prepare(a, np.full((3, 2), 0.25), domain_size=5)
    with pytest.raises(ValueError, match=r"profiles must have shape \(d, 3\), got \(2, 2\)"):
        mfm.mf_prepare(a, np.full((2, 2), 0.25), domain_size=5)


def test_prepare_checks_every_column_norm_with_a_rounding_slack():
    a = np.zeros((1, 2))
    wide = np.array([[0.5, 0.5], [0.5, 0.5]])  # columns of norm 1, rows of norm 1 too
    mfm.mf_prepare(a, wide, domain_size=5)
    rows = np.array([[0.5, 0.5, 0.5], [0.25, 0.25, 0.25]])  # columns 0.75, rows 1.5
    mfm.mf_prepare(np.zeros((1, 3)), rows, domain_size=5)
    # the slack: ‖v_j‖₁ up to 1 + 1e-9 passes (the rounding of V's normalisation), above fails
    mfm.mf_prepare(np.zeros((1, 1)), np.array([[1 + 1e-9]]), domain_size=5)
    for col in (np.array([[1 + 1.2e-9]]), np.array([[0.75], [0.75]])):
        with pytest.raises(ValueError, match=r"\|\|v_j\|\|_1 <= 1 for every task"):
            mfm.mf_prepare(np.zeros((1, 1)), col, domain_size=5)


def test_solver_is_the_exact_inverse_wherever_positive_definite():
    """(G + λI) positive definite: its inverse, however ill-conditioned (the pseudo-inverse's
    cut would drop its small eigenvalue); so with |T_i| = d, and with any λ > 0."""
    v = np.array([[1.0, 0.0], [0.0, 1e-5]])  # G = diag(1, 1e-10) with both tasks answered
    both = np.array([[0.0, 0.0], [0.0, np.nan]])  # worker 2 answers one task: singular G
    prep = mfm.mf_prepare(both, v, domain_size=5)
    np.testing.assert_allclose(prep.solver[0], np.diag([1.0, 1e10]), rtol=1e-9)
    np.testing.assert_allclose(prep.solver[1], np.diag([1.0, 0.0]), atol=1e-300)
    tiny_ridge = mfm.mf_prepare(np.array([[0.0, np.nan]]), v, domain_size=5, ridge=1e-10)
    np.testing.assert_allclose(tiny_ridge.solver[0], np.diag([1 / (1 + 1e-10), 1e10]),
                               rtol=1e-9)
    ridge = mfm.mf_prepare(np.array([[0.0, np.nan]]), v, domain_size=5, ridge=0.5)
    np.testing.assert_allclose(ridge.solver[0], np.diag([1 / 1.5, 2.0]), rtol=1e-12)


def _singular(second, largest=1.0, **kwargs):
    """|T_i| = 2 < d = 3: G = diag(largest, second, 0), solved by the pseudo-inverse."""
    v = np.array([[math.sqrt(largest), 0.0], [0.0, math.sqrt(second)], [0.0, 0.0]])
    prep = mfm.mf_prepare(np.zeros((1, 2)), v, domain_size=5, **kwargs)
    g = np.diag(np.linalg.eigvalsh(v @ v.T)[::-1])  # the eigenvalues as computed
    return prep.solver[0], g


@pytest.mark.parametrize("largest", [1.0, 0.25])
def test_pseudo_inverse_drops_eigenvalues_at_or_below_rcond_times_the_largest(largest):
    with np.errstate(all="raise"):  # no division by a dropped (zero) eigenvalue
        kept, g = _singular(1.2e-8 * largest, largest)  # default rcond 1e-8: kept
        np.testing.assert_allclose(kept, np.diag([1 / g[0, 0], 1 / g[1, 1], 0.0]), rtol=1e-6)
        dropped, g = _singular(0.8e-8 * largest, largest)
        np.testing.assert_allclose(dropped, np.diag([1 / g[0, 0], 0.0, 0.0]), rtol=1e-12,
                                   atol=1e-300)
    s = MFSettings()
    prep = MF().prepare(np.array([[0, 0]], dtype=np.int8), s, domain_size=5,
                        profiles=np.array([[1.0, 0.0], [0.0, math.sqrt(1.2e-8)], [0.0, 0.0]]))
    assert prep.solver[0, 1, 1] == pytest.approx(1 / 1.2e-8, rel=1e-6)  # MFSettings' rcond
    equal, _ = _singular(0.25, rcond=0.25)  # exactly rcond × the largest: dropped
    np.testing.assert_allclose(equal, np.diag([1.0, 0.0, 0.0]), atol=1e-300)
    above, _ = _singular(0.25, rcond=0.2)
    np.testing.assert_allclose(above, np.diag([1.0, 4.0, 0.0]), rtol=1e-12)


def test_pseudo_inverse_floor_keeps_inverses_finite_with_rcond_zero():
    kept, _ = _singular(1.2e-300, rcond=0.0)  # above the floor 1e-300: inverted
    assert kept[1, 1] == pytest.approx(1 / 1.2e-300, rel=1e-6)
    dropped, _ = _singular(0.9e-300, rcond=0.0)
    assert dropped[1, 1] == 0.0 and np.isfinite(dropped).all()


def test_pseudo_inverse_of_a_rotated_gram_is_moore_penrose():
    """A non-diagonal singular G (one answer of d = 2, a stacked batch of workers)."""
    v = np.array([[0.3, 0.6], [0.7, -0.4]])
    a = np.array([[[1.0, np.nan], [np.nan, 2.0]], [[np.nan, 3.0], [4.0, np.nan]]])  # (2, 2, 2)
    prep = mfm.mf_prepare(a, v, domain_size=5)
    assert prep.solver.shape == (2, 2, 2, 2)
    for r in range(2):
        for i in range(2):
            g, _ = _gram_rhs(a[r, i], v)
            np.testing.assert_allclose(prep.solver[r, i], np.linalg.pinv(g), rtol=1e-10,
                                       atol=1e-14)


# --- the noise and the solve at ε ---------------------------------------------------------------


def _prep(solver, rhs, k=5, v=None):
    solver = np.asarray(solver, dtype=np.float64)
    rhs = np.asarray(rhs, dtype=np.float64)
    v = np.eye(rhs.shape[-1]) if v is None else v
    return MFPrepared(solver, rhs, v, k)


def test_apply_scales_standard_draws_by_domain_over_epsilon():
    prep = _prep([[[2.0, 0.0], [0.0, 1.0]]], [[10.0, 4.0]])
    # η = (|Γ|/ε) η° = 2.5 η°; u = (G + λI)⁺ (b − η)
    u = mfm.mf_apply(prep, np.array([[1.0, -2.0]]), 2.0)
    np.testing.assert_allclose(u, [[2.0 * (10.0 - 2.5), 4.0 + 5.0]])


def test_draws_are_standard_laplace_and_worker_profiles_return_eta():
    prep = _prep(np.tile(np.eye(3), (4, 1, 1)), np.zeros((4, 3)))
    draws = mfm.mf_draws(prep, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(draws, np.random.default_rng(3).laplace(0.0, 1.0, (4, 3)))
    u, eta = mfm.mf_worker_profiles(prep, 0.5, rng=np.random.default_rng(3))
    np.testing.assert_allclose(eta, draws * 10.0, rtol=1e-15)
    np.testing.assert_allclose(u, -eta, rtol=1e-15)  # G = I, b = 0
    out = mfm.mf_perturb_prepared(prep, 0.5, rng=np.random.default_rng(3))
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_allclose(out, -eta, rtol=1e-6)  # u V with V = I


def test_perturb_draws_v_with_the_defaults_or_uses_the_given_v():
    a = np.array([[0.0, 1.0, 2.0, np.nan, 4.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0, 3.0]] * 2)  # m != n
    got = mfm.mf_perturb(a, 1.0, rng=np.random.default_rng(8), domain_size=5)
    r = np.random.default_rng(8)
    v = mfm.draw_task_profiles(12, 10, rng=r)  # d = 10, l1 = 1 (MFSettings' defaults)
    want = mfm.mf_perturb_prepared(mfm.mf_prepare(a, v, domain_size=5, ridge=0.0), 1.0, rng=r)
    np.testing.assert_array_equal(got, want)
    given = mfm.mf_perturb(a, 1.0, rng=np.random.default_rng(8), domain_size=5, profiles=v)
    want = mfm.mf_perturb_prepared(mfm.mf_prepare(a, v, domain_size=5), 1.0,
                                   rng=np.random.default_rng(8))
    np.testing.assert_array_equal(given, want)


def test_objective_is_eq_9_by_hand():
    a = np.array([1.0, np.nan, 2.0])
    v = np.array([[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]])
    u, eta = np.array([0.5, 1.0]), np.array([1.0, -2.0])
    # residuals (1 − 0.5, 2 − 1) = (0.5, 1): 1.25; 2uᵀη = 2(0.5 − 2) = −3; λ‖u‖² = 0.5·1.25
    assert mfm.mf_objective(a, u, v, eta) == pytest.approx(1.25 - 3.0)
    assert mfm.mf_objective(a, u, v, eta, ridge=0.5) == pytest.approx(1.25 - 3.0 + 0.625)


def test_value_epsilon_closed_form():
    assert mfm.mf_value_epsilon(2.0, 5, 0.5) == pytest.approx(2.0 * 4 * 0.5 / 5)
    assert mfm.mf_value_epsilon(1.0, 5) == pytest.approx(0.8)  # l1 = 1 by default (Sec. V)


# --- the member: prepare, apply, release, guarantee ---------------------------------------------


def test_member_prepare_draws_v_over_the_tasks_or_takes_the_given_one():
    codes = np.array([[0, 1, 5, 2, 3]] * 3, dtype=np.int8)  # 3 workers, 5 tasks, 5 = NULL
    s = MFSettings(d=2, ridge=0.25, profiles="signed")
    prep = MF().prepare(codes, s, domain_size=5, rng=np.random.default_rng(2))
    v = mfm.draw_task_profiles(5, 2, rng=np.random.default_rng(2), signs="signed")
    np.testing.assert_array_equal(prep.profiles, v)
    want = mfm.mf_prepare(codes, v, domain_size=5, ridge=0.25, null_code=5)
    np.testing.assert_array_equal(prep.solver, want.solver)
    given = MF().prepare(codes, s, domain_size=5, profiles=V2[:, [0, 1, 2, 0, 1]] * 0.5)
    np.testing.assert_array_equal(given.profiles, V2[:, [0, 1, 2, 0, 1]] * 0.5)


def test_member_release_is_dense_over_workers_by_tasks():
    a = np.array([[0.0, np.nan, 2.0, 1.0, 4.0]] * 2)  # 2 workers, 5 tasks
    out = MF().release(a, 1.0, MFSettings(d=2), rng=np.random.default_rng(6), domain_size=5)
    r = np.random.default_rng(6)
    v = mfm.draw_task_profiles(5, 2, rng=r)
    u = mfm.mf_apply(mfm.mf_prepare(a, v, domain_size=5), r.laplace(0, 1, (2, 2)), 1.0)
    assert out.shape == (2, 5) and out.dtype == np.float64
    np.testing.assert_allclose(out, (u.astype(np.float32) @ v.astype(np.float32)), rtol=1e-6)


def test_member_claims_pure_epsilon_and_guarantees_no_float_safety():
    mech, s = MF(), MFSettings()
    c = mech.claimed(s, 1.5, domain_size=5)
    assert (c.epsilon, c.delta) == (1.5, 0.0)  # Theorem 4: ε-cell LDP, pure
    g = mech.guarantee(s, DataShape(3, 10, 4), 1.0, domain_size=5)
    assert math.isinf(g.record_epsilon) and math.isinf(g.worker_epsilon)
    assert (g.record_delta, g.worker_delta, g.float_safe) == (0.0, 0.0, False)
    assert "0.8 exactly in exact arithmetic" in g.basis  # mf_value_epsilon(1, 5) = 0.8
    assert mech.float_safe is False and mech.fills_nulls is False
    assert "0.8 in exact arithmetic" in mech.ledger_text(s, 1.0, domain_size=5)["covers"][0]


# --- the audit cases and the law --------------------------------------------------------------


def _case_prepared(settings, k, n_tasks, answered, change):
    """The audit's neighbours as documented: V (n_tasks columns) and then the answered values
    (the first ``answered`` tasks, integers in Γ) from default_rng(0); the first task 0 in D,
    |Γ| − 1 (or NULL, or every answered task) in D'."""
    rng0 = np.random.default_rng(0)
    v = mfm.draw_task_profiles(n_tasks, settings.d, rng=rng0, l1_norm=settings.l1_norm,
                               signs=settings.profiles)
    base = np.full(n_tasks, np.nan)
    base[:answered] = rng0.integers(0, k, answered)
    d_vec, d2_vec = base.copy(), base.copy()
    if change == "all":
        d_vec[:answered], d2_vec[:answered] = 0.0, k - 1.0
    else:
        d_vec[0] = 0.0
        d2_vec[0] = np.nan if change == "null" else k - 1.0
    return {w: mfm.mf_prepare(x[None], v, domain_size=k, ridge=settings.ridge,
                              rcond=settings.rcond) for w, x in (("D", d_vec), ("D'", d2_vec))}


def _u(prep, n, seed, eps):
    eta = np.random.default_rng(seed).laplace(0.0, 1.0, (n, prep.rhs.shape[-1]))
    return np.einsum("ij,nj->ni", prep.solver[0], prep.rhs[0] - eta * prep.domain_size / eps)


def _log_density(prep, u, eps):
    """log p(u) of u = G⁻¹(b − η), η ~ Lap(|Γ|/ε)^d: Laplace log-density of η + log|det G|."""
    g = np.linalg.inv(prep.solver[0])
    eta = prep.rhs[0] - u @ g.T
    return (stats.laplace.logpdf(eta, scale=prep.domain_size / eps).sum(axis=1)
            + np.linalg.slogdet(g)[1])


def test_audit_cases_are_the_documented_neighbours():
    mech, s, eps, k = MF(), MFSettings(d=4), 1.0, 5
    cases = mech.audit_cases(s, eps, domain_size=k)
    value = mfm.mf_value_epsilon(eps, k)
    assert [c.neighbours for c in cases] == [
        "one answered cell, 0 vs |Γ|-1, |T_i| = 8 >= d",
        "one answered cell, 0 vs |Γ|-1, |T_i| = 8 >= d (likelihood ratio)",
        "one answered cell, 0 vs |Γ|-1, |T_i| = 2 < d",
        "one cell, answered 0 vs NULL, |T_i| = 8",
        "one cell, answered 0 vs NULL, |T_i| = 8 (likelihood ratio)",
        "a worker's whole row of 8 answers, all 0 vs all |Γ|-1 (likelihood ratio)"]
    assert all(c.claimed_epsilon == eps and c.claimed_delta == 0.0 for c in cases)
    assert all(c.family == MF.CLAIM for c in cases)
    assert [c.claimed for c in cases] == [True] * 5 + [False]
    assert [c.exact_epsilon for c in cases[:2]] == [value, value]
    assert all(math.isnan(c.exact_epsilon) for c in cases[2:])
    assert [c.statistic == "log likelihood ratio of u_i" for c in cases] == \
        [False, True, False, False, True, True]
    assert cases[5].composition == f"8 cells × {value:.4g} = {8 * value:.4g} by basic composition"
    # the whole row: 2d answers, or the data's longest row up to 200
    for most, row in ((500, 200), (150, 150), (3, 8)):
        case = mech.audit_cases(s, eps, domain_size=k, shape=DataShape(10, 600, most))[5]
        assert case.neighbours.startswith(f"a worker's whole row of {row} answers")
        assert case.composition.startswith(f"{row} cells × ")


def test_audit_cases_at_d_1_have_no_fewer_than_d_case():
    """An answered cell makes |T_i| >= 1 = d: at d = 1 no case claims |T_i| < d (its label
    said |T_i| = 0 < d of a worker with one answer); at d = 3 the case has 1 answer."""
    labels = [c.neighbours for c in MF().audit_cases(MFSettings(d=1), 1.0, domain_size=5)]
    assert not any("< d" in label for label in labels) and len(labels) == 5
    labels = [c.neighbours for c in MF().audit_cases(MFSettings(d=3), 1.0, domain_size=5)]
    assert "one answered cell, 0 vs |Γ|-1, |T_i| = 1 < d" in labels


@pytest.mark.parametrize("index, n_tasks, answered, change",
                         [(0, 16, 8, "value"), (2, 16, 2, "value"), (3, 16, 8, "null")])
def test_audit_output_cases_sample_the_changed_tasks_release(index, n_tasks, answered, change):
    s, eps, k = MFSettings(d=4), 1.0, 5
    case = MF().audit_cases(s, eps, domain_size=k)[index]
    preps = _case_prepared(s, k, n_tasks, answered, change)
    for which in ("D", "D'"):
        got = case.sample(np.random.default_rng(11), 6, which)
        prep = preps[which]
        want = _u(prep, 6, 11, eps) @ prep.profiles[:, 0]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("index, n_tasks, answered, change",
                         [(1, 16, 8, "value"), (4, 16, 8, "null"), (5, 16, 8, "all")])
def test_audit_likelihood_ratio_cases_are_the_exact_log_ratio(index, n_tasks, answered, change):
    s, eps, k = MFSettings(d=4), 0.5, 5
    case = MF().audit_cases(s, eps, domain_size=k)[index]
    preps = _case_prepared(s, k, n_tasks, answered, change)
    for which in ("D", "D'"):
        got = case.sample(np.random.default_rng(12), 7, which)
        u = _u(preps[which], 7, 12, eps)
        want = _log_density(preps["D"], u, eps) - _log_density(preps["D'"], u, eps)
        assert got.shape == (7,)
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    if change == "value":  # G fixed: |log ratio| ≤ ε (|Γ| − 1) ‖v_0‖₁ / |Γ| (Theorem 4)
        assert np.abs(got).max() <= mfm.mf_value_epsilon(eps, k) * (1 + 1e-9)


def test_law_recovers_eta_as_laplace_domain_over_epsilon():
    s, eps, k = MFSettings(d=3), 0.7, 5
    (check,) = MF().law(s, eps, domain_size=k)
    np.testing.assert_allclose(check.cdf([-1.0, 0.0, 2.0]),
                               stats.laplace(scale=k / eps).cdf([-1.0, 0.0, 2.0]))
    got = check.sample(np.random.default_rng(13), 5)
    want = np.random.default_rng(13).laplace(0.0, 1.0, (5, 3)) * (k / eps)
    assert got.shape == (15,)
    np.testing.assert_allclose(got, want.ravel(), rtol=1e-9, atol=1e-9)
