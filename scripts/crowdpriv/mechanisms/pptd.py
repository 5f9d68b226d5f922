"""PPTD's perturbation (Li et al., KDD 2018, Alg. 2) and its privacy law (Lemma 4.8,
Theorem 4.10).

Each user s draws a private variance δ_s² ~ Exp(rate λ2) once and adds N(0, δ_s²) noise to
every claim he makes (Eq. 4). Theorem 4.10 maps (ε, δ) per record to λ2 through Lemma 4.8's
sensitivity Δ_s (records of one user about the same object at distance at most Δ_s).

Notation: λ1 is the rate of the users' error variances σ_s² ~ Exp(λ1), λ2 the rate of the
noise variances, c = λ1/λ2 the noise level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_in_interval, check_positive
from ._base import Claimed, DataShape, Guarantee, LawCheck, Mechanism, setting

__all__ = [
    "PPTD",
    "PPTDSettings",
    "Perturbation",
    "SENSITIVITY_READINGS",
    "gamma_s",
    "lemma48_probability",
    "lemma48_sensitivity",
    "epsilon_from_lambda2",
    "lambda2_from_epsilon",
    "exact_record_epsilon",
    "pptd_draws",
    "pptd_apply",
    "perturb",
    "user_log_density",
]

#: Readings of Lemma 4.8's sensitivity Δ_s (config ``pptd.privacy.sensitivity``): ``printed``
#: γ_s/λ1 (the lemma as printed; its proof uses M ≤ sqrt(ln(1/(1−η)))/λ1, which holds only
#: for λ1 ≤ 1 while the paper assumes λ1 > 1); ``corrected`` γ_s/√λ1 (the bound b√2·M the
#: proof derives before that step).
SENSITIVITY_READINGS = ("printed", "corrected")

#: PPTD Definition 4.6/4.7 with Lemma 4.8: two records of one user about the same object.
RECORD_NEIGHBOURS = ("two records of one user about the same object at distance at most "
                     "Lemma 4.8's Δ_s (PPTD Definitions 4.6-4.7)")


def _pos_array(name, value):
    arr = np.asarray(value, dtype=float)
    for v in arr.ravel():
        check_positive(name, v)
    return arr


def gamma_s(b: float, eta: float) -> float:
    """``γ_s = b sqrt(2 ln(1/(1-η)))`` (PPTD Lemma 4.8).

    Parameters
    ----------
    b : float
        Gaussian-tail constant, > 0.
    eta : float
        Probability ``Pr{σ_s ≤ M}`` in (0, 1).
    """
    b = check_positive("b", b)
    eta = check_in_interval("eta", eta, 0.0, 1.0, closed_low=False)
    return b * np.sqrt(2.0 * np.log(1.0 / (1.0 - eta)))


def lemma48_probability(b: float, eta: float) -> float:
    """Probability ``η (1 - 2 e^{-b²/2} / b)`` with which Lemma 4.8's bound on Δ_s holds.

    Negative values mean the lemma is vacuous for that ``b`` (below about 1.2).
    """
    b = check_positive("b", b)
    eta = check_in_interval("eta", eta, 0.0, 1.0, closed_low=False)
    return eta * (1.0 - 2.0 * np.exp(-(b**2) / 2.0) / b)


def _check_sensitivity(sensitivity: str) -> str:
    if sensitivity not in SENSITIVITY_READINGS:
        raise ParameterError("sensitivity", sensitivity,
                             f"sensitivity must be one of {SENSITIVITY_READINGS}, got "
                             f"{sensitivity!r}")
    return sensitivity


def lemma48_sensitivity(lam1, *, b: float, eta: float, sensitivity: str = "printed"):
    """Δ_s of PPTD Lemma 4.8 under a reading (:data:`SENSITIVITY_READINGS`)."""
    l1 = _pos_array("lam1", lam1)
    g = gamma_s(b, eta)
    return g / l1 if _check_sensitivity(sensitivity) == "printed" else g / np.sqrt(l1)


def epsilon_from_lambda2(lam1, lam2, *, b: float, eta: float, delta: float,
                         sensitivity: str = "printed"):
    """Privacy level ε of PPTD Theorem 4.10 for noise rate λ2.

    Theorem 4.10's proof requires ``λ2 Δ_s² / (2ε) ≤ ln(1/(1−δ))``. With the printed Δ_s =
    γ_s/λ1 this is the printed condition ``c ≥ γ_s² / (2 λ1 ε ln(1/(1-δ)))``, whose smallest ε
    for ``c = λ1/λ2`` is ``ε = γ_s² λ2 / (2 λ1² ln(1/(1-δ)))``; with the corrected Δ_s =
    γ_s/√λ1 it is ``ε = γ_s² λ2 / (2 λ1 ln(1/(1-δ)))``.

    Parameters
    ----------
    lam1, lam2 : float or array_like
        Rates > 0 (broadcast together).
    b, eta : float
        Lemma 4.8 constants (see :func:`gamma_s`).
    delta : float
        The δ of (ε, δ)-LDP, in (0, 1).
    sensitivity : str
        Reading of Lemma 4.8 (:data:`SENSITIVITY_READINGS`).
    """
    l1 = _pos_array("lam1", lam1)
    l2 = _pos_array("lam2", lam2)
    delta = check_in_interval("delta", delta, 0.0, 1.0, closed_low=False)
    g2 = gamma_s(b, eta) ** 2
    if _check_sensitivity(sensitivity) == "corrected":
        return g2 * l2 / (2.0 * l1 * np.log(1.0 / (1.0 - delta)))
    c = l1 / l2
    return g2 / (2.0 * l1 * c * np.log(1.0 / (1.0 - delta)))


def lambda2_from_epsilon(epsilon, lam1, *, b: float, eta: float, delta: float,
                         sensitivity: str = "printed"):
    """Inverse of :func:`epsilon_from_lambda2`: ``λ2 = 2 λ1² ε ln(1/(1-δ)) / γ_s²`` (printed
    Lemma 4.8) or ``λ2 = 2 λ1 ε ln(1/(1-δ)) / γ_s²`` (corrected)."""
    eps = _pos_array("epsilon", epsilon)
    l1 = _pos_array("lam1", lam1)
    delta = check_in_interval("delta", delta, 0.0, 1.0, closed_low=False)
    g2 = gamma_s(b, eta) ** 2
    if _check_sensitivity(sensitivity) == "corrected":
        return 2.0 * l1 * eps * np.log(1.0 / (1.0 - delta)) / g2
    return 2.0 * l1**2 * eps * np.log(1.0 / (1.0 - delta)) / g2


def exact_record_epsilon(lam2, sensitivity_value):
    """The exact ε of PPTD's per-record mechanism for records at distance Δ_s.

    A user adds N(0, y) noise with y ~ Exp(λ2) (Alg. 2). The marginal density of that noise is

        ∫_0^∞ λ2 e^(−λ2 y) (2π y)^(−1/2) e^(−x²/(2y)) dy = (√(2 λ2) / 2) e^(−√(2 λ2) |x|),

    a Laplace density with scale 1/√(2 λ2) (the normal variance mixture with an exponential
    mixing law; substitute y = t² and use ∫ e^(−a t² − b/t²) dt = ½√(π/a) e^(−2√(ab))). One
    record released this way is therefore ε-LDP with δ = 0 and ε = Δ_s √(2 λ2) exactly, for
    two inputs at distance Δ_s; Theorem 4.10's (ε, δ) is a looser statement of the same
    mechanism. (Several records of one user share y, so their joint release is not a product
    of Laplace densities: this holds for a user with one record, see :meth:`PPTD.guarantee`.)
    """
    l2 = _pos_array("lam2", lam2)
    d = np.asarray(sensitivity_value, dtype=np.float64)
    return d * np.sqrt(2.0 * l2)


@dataclass(frozen=True)
class Perturbation:
    """Perturbed claims and what was added.

    Attributes
    ----------
    claims : ndarray, shape lam2.shape + (..., S, N)
        ``x̂_n^s = x_n^s + ξ_n^s`` (PPTD Eq. 4); ``NaN`` stays ``NaN``.
    noise : ndarray, same shape
        ``ξ_n^s`` (``NaN`` where there is no claim).
    variance : ndarray, shape lam2.shape + (..., S)
        Each user's ``δ_s²``.
    """

    claims: np.ndarray
    noise: np.ndarray
    variance: np.ndarray


def pptd_draws(claims, *, rng):
    """Alg. 2's λ2-free draws for claims of shape (..., S, N): ``E_s ~ Exp(1)`` per user and
    ``Z_n^s ~ N(0, 1)`` per cell (``δ_s² = E_s/λ2``, ``ξ = δ_s Z``)."""
    shape = np.shape(claims)
    if len(shape) < 2:
        raise ValueError(f"claims must have shape (..., S, N), got shape {shape}")
    e = rng.standard_exponential(size=shape[:-1] + (1,))
    z = rng.standard_normal(size=shape)
    return e, z


def pptd_apply(claims, draws, lam2) -> Perturbation:
    """Alg. 2's output at λ2 (a float or an array, whose shape goes in front) from
    :func:`pptd_draws`: ``δ_s² = E_s/λ2``, ``x̂ = x + δ_s Z`` (PPTD Eq. 4)."""
    lam = np.asarray(lam2, dtype=float)
    for v in lam.ravel():
        check_positive("lam2", v)
    x = np.asarray(claims, dtype=float)
    e, z = draws
    var = e / lam.reshape(lam.shape + (1,) * x.ndim)
    noise = np.sqrt(var) * z
    np.copyto(noise, np.nan, where=np.isnan(x))  # no noise where no claim (in place)
    return Perturbation(x + noise, noise, var[..., 0])


def perturb(claims, lam2, *, rng: np.random.Generator) -> Perturbation:
    """Perturb claims with PPTD Alg. 2 (lines "sample δ_s² ~ Exp(λ2); x̂ = x + N(0, δ_s²)").

    Parameters
    ----------
    claims : array_like, shape (..., S, N)
        Original claims, ``NaN`` where missing; leading axes are e.g. repetitions.
    lam2 : float or array_like
        Rate λ2 > 0 of the exponential distribution of the noise variances (mean 1/λ2). An
        array adds its shape in front of the output: every λ2 value reuses the same standard
        draws ``E_s ~ Exp(1)``, ``Z_n^s ~ N(0, 1)`` (:func:`pptd_draws`), i.e. common random
        numbers, so a sweep over λ2 is smooth while each point has exactly the distribution of
        Alg. 2.
    rng : numpy.random.Generator
        Source of randomness.
    """
    lam = np.asarray(lam2, dtype=float)
    for v in lam.ravel():
        check_positive("lam2", v)
    x = np.asarray(claims, dtype=float)
    return pptd_apply(x, pptd_draws(x, rng=rng), lam)


def user_log_density(total_squares, records: int, lam2: float):
    """log of the joint density of a user's ``records`` outputs under Alg. 2, up to a
    constant, as a function of A = Σ (output − input)²: ∫ λ2 e^(−λ2 y) (2πy)^(−r/2)
    e^(−A/(2y)) dy = 2 λ2 (2π)^(−r/2) (A/(2λ2))^(s/2) K_s(√(2 λ2 A)), s = 1 − r/2 (the integral
    ∫ y^(s−1) e^(−a y − b/y) dy = 2 (b/a)^(s/2) K_s(2√(ab))). The value returned is
    log[(A/(2λ2))^(s/2) K_s(√(2 λ2 A))], the density without its factor 2 λ2 (2π)^(−r/2); A is
    floored at 1e-300, so outputs equal to the inputs (A = 0, where the density of r ≥ 2
    records diverges) give a finite value, that at A = 1e-300."""
    from scipy.special import kve

    a = np.maximum(np.asarray(total_squares, dtype=np.float64), 1e-300)
    s = 1.0 - records / 2.0
    z = np.sqrt(2.0 * lam2 * a)
    return 0.5 * s * np.log(a / (2.0 * lam2)) + np.log(kve(s, z)) - z


def _user_records(lam2, sens, records, *, moved):
    """An audit sampler: a user with ``records`` records (all 0 in D); D' moves the first
    (``moved="one"``) or every record (``"all"``) by ``sens``; the statistic is the exact log
    likelihood ratio of D against D' on all his released records (:func:`user_log_density`)."""
    shift = np.zeros(records)
    shift[: 1 if moved == "one" else records] = sens

    def sample(rng, n, which):
        x = np.zeros((n, records)) if which == "D" else np.broadcast_to(shift, (n, records))
        out = perturb(x, lam2, rng=rng).claims
        a_d = (out ** 2).sum(axis=1)
        a_d2 = ((out - shift) ** 2).sum(axis=1)
        return user_log_density(a_d, records, lam2) - user_log_density(a_d2, records, lam2)
    return sample


@dataclass(frozen=True)
class PPTDSettings:
    """PPTD's settings: ``lambda1`` (rate of the users' error variances: prior knowledge,
    required), Lemma 4.8's ``b`` and ``eta``, the ``delta`` of (ε, δ) and the ``sensitivity``
    reading of Lemma 4.8 (:data:`SENSITIVITY_READINGS`)."""

    lambda1: float | None = setting(None, "rate λ1 of the workers' error variances (prior "
                                          "knowledge; required)", type=float)
    b: float = setting(2.0, "Lemma 4.8's Gaussian-tail constant b")
    eta: float = setting(0.9, "Lemma 4.8's η = Pr{σ_s ≤ M}")
    delta: float = setting(0.1, "the δ of (ε, δ) per record")
    sensitivity: str = setting("corrected", "Lemma 4.8's Δ_s: corrected (γ/√λ1, what its proof "
                                            "derives) or printed (γ/λ1, too small for λ1 > 1)",
                               choices=SENSITIVITY_READINGS)

    def __post_init__(self):
        if self.lambda1 is not None:
            check_positive("lambda1", self.lambda1)
        check_positive("b", self.b)
        check_in_interval("eta", self.eta, 0.0, 1.0, closed_low=False)
        check_in_interval("delta", self.delta, 0.0, 1.0, closed_low=False)
        _check_sensitivity(self.sensitivity)

    def need_lambda1(self) -> float:
        if self.lambda1 is None:
            raise ParameterError("lambda1", None, "pptd needs --lambda1 (lambda1), the rate of "
                                 "the workers' error variances, from prior knowledge (the "
                                 "pipeline estimates it with ground truth, which a user does "
                                 "not have)")
        return float(self.lambda1)


class PPTD(Mechanism):
    """PPTD Alg. 2: per-user variance δ_s² ~ Exp(λ2), Gaussian noise on every claim."""

    default_inference = "gtm"
    id = "pptd"
    label = "Alg. 2"
    aliases = ("PPTD",)
    paper = "pptd"
    summary = "Gaussian noise with an Exp(λ2) variance per user (PPTD Alg. 2)"
    answer_type = "continuous"
    Settings = PPTDSettings
    parts = frozenset({"release", "audit", "law"})
    float_safe = False
    fills_nulls = False

    def example_settings(self):
        """λ1 has no default (prior knowledge): the synthetic data's λ1 = 2 (Sec. 5.1)."""
        return self.settings(lambda1=2.0)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        return {"parameters": {"lambda2": self.lambda2(settings, epsilon)},
                "spent": {"exact_epsilon_per_record": self.record_epsilon(settings, epsilon),
                          "sensitivity": self.sensitivity(settings)}}

    def check_epsilon(self, settings, epsilon, *, domain_size=None):
        lam2 = self.lambda2(settings, epsilon)
        if not (np.isfinite(lam2) and lam2 > 0):
            raise ParameterError("epsilon", epsilon,
                                 f"epsilon = {epsilon:g} gives Theorem 4.10's λ2 = {lam2:g}: no "
                                 "noise variance; choose a smaller epsilon")

    def lambda2(self, settings, epsilon) -> float:
        """λ2 of Theorem 4.10 at ε (:func:`lambda2_from_epsilon`)."""
        with np.errstate(over="ignore"):
            lam2 = float(lambda2_from_epsilon(epsilon, settings.need_lambda1(), b=settings.b,
                                              eta=settings.eta, delta=settings.delta,
                                              sensitivity=settings.sensitivity))
        return lam2

    @staticmethod
    def claim_family(lambda1: float) -> str:
        """The privacy audit's claim (family of neighbours) of Alg. 2 at ``lambda1``."""
        return f"Alg. 2: (ε, δ) per record (Theorem 4.10), λ1 = {float(lambda1):g}"

    def sensitivity(self, settings) -> float:
        """Lemma 4.8's Δ_s under the settings' reading."""
        return float(lemma48_sensitivity(settings.need_lambda1(), b=settings.b, eta=settings.eta,
                                         sensitivity=settings.sensitivity))

    def record_epsilon(self, settings, epsilon) -> float:
        """Exact ε of one record of a user with one record: Δ_s √(2 λ2) (Laplace marginal)."""
        return float(exact_record_epsilon(self.lambda2(settings, epsilon),
                                          self.sensitivity(settings)))

    def draws(self, codes, settings, *, rng, domain_size=None, state=None, dtype=np.float64,
              out=None):
        return pptd_draws(codes, rng=rng)

    def apply(self, codes, draws, epsilon, settings, *, domain_size=None, state=None):
        return pptd_apply(codes, draws, self.lambda2(settings, epsilon))

    def release(self, answers, epsilon, settings, *, rng, domain_size=None):
        if settings.sensitivity == "printed":
            import warnings

            warnings.warn("--sensitivity printed: Lemma 4.8's Δ_s as printed (γ/λ1) is smaller "
                          "than the bound its proof derives (γ/√λ1) for λ1 > 1 (docs/results.md,"
                          " PPTD), so ε is understated; corrected is the default",
                          stacklevel=3)
        return perturb(np.asarray(answers, dtype=float), self.lambda2(settings, epsilon),
                       rng=rng).claims

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), float(settings.delta), "record (claim) of a user",
                       f"PPTD Theorem 4.10 (Alg. 2) with Lemma 4.8's Δ_s "
                       f"({settings.sensitivity})", RECORD_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        one = self.record_epsilon(settings, epsilon)
        several = shape.max_records_per_worker >= 2
        ideal = float("inf") if several else one
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="record (claim) of a user",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule=f"the user's {shape.max_records_per_worker} records share one variance "
                        "draw: no composition theorem applies; pure ε is unbounded for two "
                        "or more records",
            ideal_record_epsilon=ideal, float_safe=False,
            basis=(f"a user with one record: the noise is Laplace(1/√(2λ2)), ε = Δ_s √(2λ2) = "
                   f"{one:.6g} exactly at δ = 0 (exact_record_epsilon); a user with r ≥ 2 "
                   "records: at outputs equal to his true values the density "
                   "∫ λ2 e^(−λ2 y) (2πy)^(−r/2) dy diverges while the neighbour's stays "
                   "finite, so no pure ε holds (an (ε, δ) with δ > 0 may; not computed); the "
                   "float64 Gaussian sample has input-dependent support (Mironov 2012)"),
            caveats=("several records of one user share the noise variance: the guarantee is "
                     "per record of a one-record user, not per user",
                     "λ1 must come from prior knowledge, not from the data",
                     "no floating-point-safe sampler of the shared-variance mechanism exists "
                     "here (it would need a grid sampler for the random-variance Gaussian with "
                     "its exact ε computed); pptd-laplace is a float-safe mechanism at the same "
                     "per-record scale, with independent noise per record"))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "PPTD Theorem 4.10 (Alg. 2): Gaussian noise with Exp(λ2) variance "
                           "per user",
                "unit": "per record (claim), (ε, δ)",
                "covers": ["one record of a user who has no other record"],
                "not_covered": ["several records of one user share the noise variance: the "
                                "guarantee is per record, not per user",
                                "λ1 must come from prior knowledge, not from the data",
                                "no floating-point-safe sampler of the shared-variance "
                                "mechanism exists here (it would need a grid sampler for the "
                                "random-variance Gaussian with its exact ε computed): the "
                                "float64 output leaks through its support; pptd-laplace is a "
                                "float-safe mechanism at the same per-record scale"]}

    #: Records of the audited user who has several (the paper's synthetic users claim on all
    #: 30 objects).
    AUDIT_RECORDS = 30

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        """Theorem 4.10's (ε, δ) per record at this λ1, λ2 as the pipeline computes it (the
        settings' reading), against records Δ_s apart under both readings of Lemma 4.8: a
        user with one record (exact: the marginal is Laplace), a user whose other records are
        released with the same variance (the exact log likelihood ratio of all his records as
        statistic, and his other records known), and, outside the rule, all his records moved
        (composition beside)."""
        from ..audit import Case, laplace_delta

        lam1 = settings.need_lambda1()
        lam2 = self.lambda2(settings, epsilon)
        family = self.claim_family(lam1)
        r = self.AUDIT_RECORDS
        cases = []
        for reading in SENSITIVITY_READINGS:
            sens = float(lemma48_sensitivity(lam1, b=settings.b, eta=settings.eta,
                                             sensitivity=reading))
            one = float(exact_record_epsilon(lam2, sens))

            def record(rng, n, which, sens=sens):
                x = 0.0 if which == "D" else sens
                # the pipeline's Alg. 2 on n users holding one record each
                return perturb(np.full((n, 1), x), lam2, rng=rng).claims[:, 0]

            where = (f"Lemma 4.8's Δ_s ({reading}) = {sens:.4g}, λ1 = {lam1:g}, λ2 = "
                     f"{lam2:.4g} ({settings.sensitivity}, as the pipeline computes it)")
            cases.append(Case(
                "pptd", self.label, f"one record at {where}", epsilon, settings.delta, record,
                exact_epsilon=one, exact_delta=laplace_delta(epsilon, one), family=family,
                note=f"noise N(0, y), y ~ Exp(λ2) is Laplace(1/sqrt(2 λ2)): pure ε = Δ_s "
                     f"sqrt(2 λ2) = {one:.4g}"))
            cases.append(Case(
                "pptd", self.label, f"one record of a user with {r}, the others released too, "
                                    f"at {where}", epsilon, settings.delta,
                _user_records(lam2, sens, r, moved="one"), family=family,
                statistic="log likelihood ratio of the user's records",
                note="the user's records share one variance (Alg. 2): seen together they are "
                     "not a product of Laplace densities"))
        printed = float(lemma48_sensitivity(lam1, b=settings.b, eta=settings.eta))
        others = r - 1

        def known_others(rng, n, which):
            # an adversary who knows the true values of the user's other records (0 here)
            # reads the shared variance off their noise and standardises the target record
            x = np.zeros((n, others + 1))
            x[:, 0] = 0.0 if which == "D" else printed
            out = perturb(x, lam2, rng=rng).claims
            y_hat = (out[:, 1:] ** 2).mean(axis=1)
            return out[:, 0] / np.sqrt(y_hat)

        cases.append(Case(
            "pptd", self.label,
            f"one record, the user's {others} other records known (printed Δ_s), λ1 = {lam1:g}",
            epsilon, settings.delta, known_others, statistic="target / estimated noise sd",
            family=family,
            note="Theorem 4.10 treats each record alone; the shared variance couples a user's "
                 "records"))
        cases.append(Case(
            "pptd", self.label, f"all {r} records of a user moved by the printed Δ_s, "
                                f"λ1 = {lam1:g}", epsilon, settings.delta,
            _user_records(lam2, printed, r, moved="all"), family=family, claimed=False,
            statistic="log likelihood ratio of the user's records",
            composition=f"{r} records: no composition theorem (shared variance)"))
        return cases

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        lam2 = self.lambda2(settings, epsilon)

        def noise(rng, n):
            return self.release(np.zeros((n, 1)), epsilon, settings, rng=rng)[:, 0]

        def variance(rng, n):
            x = np.zeros((n, 1))  # pragma: no mutate  (equivalent: δ_s² is drawn per row, whatever N)
            out = self.apply(x, self.draws(x, settings, rng=rng), epsilon, settings)
            return out.variance.ravel()

        def shared(rng, n):
            # two records of one user share δ_s: the ratio of their noises is Z1/Z2 ~ Cauchy
            out = self.release(np.zeros((n, 2)), epsilon, settings, rng=rng)
            return out[:, 0] / out[:, 1]

        return [LawCheck("one record's noise: Laplace(1/√(2λ2)) (exponential mixture of "
                         "normals)", noise, cdf=stats.laplace(scale=1 / np.sqrt(2 * lam2)).cdf),
                LawCheck("each user's variance δ_s² ~ Exp(λ2)", variance,
                         cdf=stats.expon(scale=1 / lam2).cdf),
                LawCheck("a user's records share one variance: noise ratio ~ Cauchy", shared,
                         cdf=stats.cauchy().cdf)]
