"""PPTD's claims (Li et al., KDD 2018, Sec. 5) as checks on the per-repetition results.

Every comparative claim is decided with the paired tests of :mod:`crowdpriv.significance`;
thresholds come from the config block ``pptd.claims``. Pairing: within one synthetic setting
(S, N, λ1), repetition r is the same dataset for every ε and the perturbations share their
standard draws; across λ1 or S the data differ and repetitions are paired by index only. On the
indoor data, repetition r is the r-th perturbation of the fixed data.

Tables read (names in :func:`evaluate_claims`):

``fig2`` ... ``fig6``  one row per (setting, ε, rep): mae, noise, mae_over_noise,
                       iterations_*, alpha_thm43_printed/exact (Figs. 2-5 synthetic, Fig. 6 indoor)
``fig7``               one row per perturbation rep: spearman_estimated_true,
                       spearman_noise_variance_weight_change, mae_crh, mae_mean, mae_median
``fig7_original``      the same on the original data (one row, nothing random)
``fig8``               one row per (condition, ε, rep): iterations, noise
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..claims import Claim, NotTestable, evaluate, exact, surrogate_scope
from ..significance import decide_equivalent, decide_every, decide_rate, format_number, paired
from ._theory import utility_alpha_lower

__all__ = ["CLAIMS", "evaluate_claims"]


def _data(df: pd.DataFrame) -> str:
    return surrogate_scope(df["dataset"].unique()) if "dataset" in df else ""


def _falls(tab: pd.DataFrame, prefix: str) -> dict:
    """Margins of "decreases along the sorted columns": earlier - later, per step."""
    cols = sorted(tab.columns)
    if len(cols) < 2:
        raise NotTestable(f"{prefix}needs at least two values to compare")
    return {f"{prefix}{a:g} -> {b:g}": tab[a] - tab[b] for a, b in zip(cols, cols[1:])}


def _falls_with_epsilon(table: str, measure: str):
    def check(ctx):
        df = ctx.table(table)
        margins = {}
        for label, tab in paired(df, [], across="epsilon", value=measure).items():
            margins.update(_falls(tab, "ε "))
        return decide_every(margins, ctx.significance,
                            margin=f"{measure} at the smaller ε - at the next larger ε",
                            data=_data(df))
    return check


def _small_against_noise(table: str):
    def check(ctx):
        limit = ctx.threshold("mae_noise_ratio_max")
        df = ctx.table(table)
        tab = paired(df, [], across="epsilon", value="mae_over_noise")["all"]
        margins = {f"ε {e:g}": limit - tab[e] for e in tab.columns}
        return decide_every(margins, ctx.significance,
                            margin=f"mae_noise_ratio_max {limit:g} - MAE / average noise",
                            data=_data(df))
    return check


def _small_when_noise_near_one(table: str):
    def check(ctx):
        low, high = ctx.threshold("noise_near_one")
        limit = ctx.threshold("mae_at_noise_one_max")
        df = ctx.table(table)
        noise = df.groupby("epsilon")["noise"].mean()
        near = noise[(noise >= low) & (noise <= high)]
        if near.empty:
            raise NotTestable(f"no ε of the sweep has an average noise in [{low}, {high}]; "
                              f"they range {format_number(noise.min())} to "
                              f"{format_number(noise.max())}")
        eps = float(near.index[np.argmin(np.abs(np.log(near.to_numpy())))])
        mae = df.loc[df["epsilon"] == eps, "mae"].to_numpy()
        return decide_every(
            {f"ε {eps:g} (average noise {format_number(near[eps])})": limit - mae},
            ctx.significance, margin=f"mae_at_noise_one_max {limit:g} - MAE", data=_data(df))
    return check


def _thm43_bound(form: str):
    def check(ctx):
        beta = ctx.threshold("utility_beta")
        df = ctx.table("fig2")
        cells = {f"ε {e:g} (α {format_number(g[f'alpha_thm43_{form}'].iloc[0])})":  # pragma: no mutate (α is constant per ε)
                 (g["mae"] >= g[f"alpha_thm43_{form}"]).to_numpy()
                 for e, g in df.groupby("epsilon", sort=True)}
        return decide_rate(cells, ctx.significance, bound=beta, event="MAE >= α")
    return check


def thm43_printed_expectation(ctx):
    tol = ctx.threshold("printed_formula_rel_tol")
    df = ctx.table("fig2").drop_duplicates("epsilon").sort_values("epsilon")
    printed, exact_ = (np.array([utility_alpha_lower(l1, c, form=form)
                                 for l1, c in zip(df["lambda1"], df["c"])])
                       for form in ("printed", "exact"))
    rel = np.abs(printed - exact_) / exact_
    parts = [f"ε {e:g} (c {format_number(c)}): α_λ1,c printed {format_number(p)} vs exact "
             f"{format_number(x)}" for e, c, p, x in zip(df["epsilon"], df["c"], printed, exact_)]
    return exact(bool((rel <= tol).all()),
                 f"α_λ1,c = 2√2/√π · E(Y): largest relative difference "
                 f"{format_number(rel.max())} (tolerance {tol:g}); " + "; ".join(parts))


def _falls_with(table: str, setting: str, measure: str, name: str):
    def check(ctx):
        df = ctx.table(table)
        margins = {}
        for eps, g in df.groupby("epsilon", sort=True):
            tab = paired(g, [], across=setting, value=measure)["all"]
            margins.update(_falls(tab, f"ε {eps:g}, {name} "))
        return decide_every(
            margins, ctx.significance,
            margin=(f"{measure} at the smaller {name} - at the next larger {name}, same ε; "
                    "repetitions paired by index (the data differ)"))
    return check


def _relative_pairs(tab: pd.DataFrame, prefix: str) -> dict:
    """Every pair of columns: (later - earlier) / earlier, per repetition."""
    cols = sorted(tab.columns)
    return {f"{prefix}{a:g} vs {b:g}": (tab[b] - tab[a]) / tab[a]
            for i, a in enumerate(cols) for b in cols[i + 1:]}


def noise_unchanged_with_workers(ctx):
    tol = ctx.threshold("noise_across_workers_rel_tol")
    df = ctx.table("fig4")
    diffs = {}
    for eps, g in df.groupby("epsilon", sort=True):
        tab = paired(g, [], across="workers", value="noise")["all"]
        if tab.shape[1] < 2:
            raise NotTestable("Fig. 4 needs at least two values of S")
        diffs.update(_relative_pairs(tab, f"ε {eps:g}, S "))
    return decide_equivalent(
        diffs, ctx.significance, tolerance=tol,
        difference=("relative change of the average noise from one S to another, same ε, "
                    "repetitions paired by index"))


def weights_consistent_original(ctx):
    rho_min = ctx.threshold("weight_spearman_min")
    df = ctx.table("fig7_original")
    rho = float(df["spearman_estimated_true"].iloc[0])
    return exact(rho >= rho_min,
                 f"Spearman ρ between estimated and true weights {format_number(rho)} "
                 f"(weight_spearman_min {rho_min:g})", data=_data(df))


def weights_consistent_perturbed(ctx):
    rho_min = ctx.threshold("weight_spearman_min")
    df = ctx.table("fig7")
    return decide_every({"perturbed": df["spearman_estimated_true"].to_numpy() - rho_min},
                        ctx.significance,
                        margin=f"Spearman ρ(estimated, true weights) - {rho_min:g}",
                        data=_data(df))


def noisy_workers_lose_weight(ctx):
    df = ctx.table("fig7")
    return decide_every(
        {"perturbed": -df["spearman_noise_variance_weight_change"].to_numpy()},
        ctx.significance,
        margin="- Spearman ρ(noise variance δ², weight on perturbed - weight on original)",
        data=_data(df))


def beats_naive_original(ctx):
    df = ctx.table("fig7_original")
    row = df.iloc[0]
    ok = row["mae_crh"] < row["mae_mean"] and row["mae_crh"] < row["mae_median"]
    return exact(bool(ok),
                 f"error against the ground truth: CRH {format_number(row['mae_crh'])}, mean "
                 f"{format_number(row['mae_mean'])}, median {format_number(row['mae_median'])}",
                 data=_data(df))


def beats_naive_perturbed(ctx):
    df = ctx.table("fig7")
    margins = {f"vs {naive}": (df[f"mae_{naive}"] - df["mae_crh"]).to_numpy()
               for naive in ("mean", "median")}
    return decide_every(margins, ctx.significance,
                        margin="error of the naive aggregate - error of CRH, same perturbation",
                        data=_data(df))


def _iterations(ctx) -> tuple[pd.DataFrame, pd.Series]:
    df = ctx.table("fig8")
    perturbed = df.loc[df["condition"] == "perturbed"]
    if perturbed.empty:
        raise NotTestable("Fig. 8 has no perturbed data")
    original = df.loc[df["condition"] == "original"].set_index("rep")["iterations"]
    return paired(perturbed, [], across="epsilon", value="iterations")["all"], original


def iterations_unchanged_by_noise(ctx):
    tol = ctx.threshold("iterations_rel_change_max")
    tab, _ = _iterations(ctx)
    if tab.shape[1] < 2:
        raise NotTestable("Fig. 8 needs at least two noise levels")
    return decide_equivalent(
        _relative_pairs(tab, "ε "), ctx.significance, tolerance=tol,
        difference=("relative change of the iterations to convergence from one noise level to "
                    "another, same dataset"))


def more_iterations_after_perturbation(ctx):
    tab, original = _iterations(ctx)
    margins = {f"ε {e:g}": tab[e] - original.reindex(tab.index) for e in tab.columns}
    return decide_every(margins, ctx.significance,
                        margin="iterations on perturbed - on original data, same dataset "
                        "(ties count against 'bigger')")


def _tradeoff_claims(fig: str, what: str, sentence: str, *, noise_one: bool = True
                     ) -> tuple[Claim, ...]:
    """The trade-off pattern of Fig. 2, read on ``fig`` (Fig. 5: GTM; Fig. 6: indoor).

    ``noise_one``: also Fig. 2's numbers (noise near 1 → MAE below 0.1). They are in the
    synthetic data's units; the paper says only "the same pattern" of Fig. 6, whose values are
    metres, so Fig. 6 gets the unit-free claims only."""
    label = f"Fig. {fig[3:]}"
    claims = (
        Claim(f"pptd.{fig}.noise_falls_with_epsilon",
              f"{sentence}: \"in order to guarantee stronger privacy (smaller ε), larger noise "
              "is needed\" (Sec. 5.1, Fig. 2b)",
              (label,), f"{what}: the average added noise decreases at every step of the ε "
              "sweep (by construction of Alg. 2 and Theorem 4.10's map from ε: a check of the "
              "implementation)", _falls_with_epsilon(fig, "noise")),
        Claim(f"pptd.{fig}.mae_falls_with_epsilon",
              f"{sentence}: the utility loss (MAE) shrinks as ε grows, i.e. as less noise is "
              "added (Sec. 5.1, Fig. 2a)",
              (label,), f"{what}: MAE decreases at every step of the ε sweep",
              _falls_with_epsilon(fig, "mae")),
        Claim(f"pptd.{fig}.mae_small_against_noise",
              f"{sentence}: \"the utility changes very slowly and the magnitude is quite small "
              "compared with the added noise\" (Sec. 5.1, Fig. 2)",
              (label,), f"{what}: MAE / average noise <= mae_noise_ratio_max (ours: the "
              "paper gives none) at every ε",
              _small_against_noise(fig)),
    )
    if not noise_one:
        return claims
    return claims + (
        Claim(f"pptd.{fig}.mae_below_at_noise_one",
              f"{sentence}: \"when the average of added noise reaches closer to 1, the average "
              "loss in utility is less than 0.1 (only 1/10 of the noise)\" (Sec. 5.1)",
              (label,), f"{what}: at the ε whose average noise is nearest 1 within "
              "noise_near_one (ours), MAE < mae_at_noise_one_max (0.1, the paper's), judged on "
              "the median repetition with the sign test",
              _small_when_noise_near_one(fig)),
    )


_GTM = "Same pattern with GTM (\"the patterns of utility privacy trade-off are similar\", Fig. 5)"
_INDOOR = ("Same pattern on the indoor data (\"we observe the same pattern that is shown on "
           "synthetic data\", Sec. 5.2, Fig. 6)")

CLAIMS: tuple[Claim, ...] = (
    *_tradeoff_claims("fig2", "CRH on synthetic data", "Synthetic data, CRH"),
    Claim("pptd.fig2.thm43_as_printed",
          "Theorem 4.3: Pr{MAE >= α} <= β, with α from the proof's printed E(Y) (Sec. 4.1)",
          ("Fig. 2",),
          "per ε of Fig. 2, the share of repetitions with MAE >= α (printed form) is at most "
          "β = utility_beta (ours: the theorem holds for any β), exact binomial test",
          _thm43_bound("printed")),
    Claim("pptd.fig2.thm43_exact",
          "Theorem 4.3: Pr{MAE >= α} <= β, with E(Y) computed exactly (Sec. 4.1)",
          ("Fig. 2",),
          "as above with α from E(Y) computed exactly (in closed form, crowdpriv.pptd."
          "expected_y; the printed E(Y) is wrong, see the erratum check)",
          _thm43_bound("exact")),
    Claim("pptd.fig2.thm43_printed_expectation",
          "The closed form of E(Y) printed in the proof of Theorem 4.3 equals the expectation "
          "it defines, Y = sqrt(σ_s² + σ_s'² + δ_s'²)",
          ("Fig. 2",),
          "α_λ1,c = 2√2/√π · E(Y) from the printed closed form equals it from E(Y) computed "
          "exactly within printed_formula_rel_tol (ours), at every c of Fig. 2 (signed "
          "values, before Theorem 4.3 takes the larger of α_λ1,c and its second condition)",
          thm43_printed_expectation, "erratum"),
    Claim("pptd.fig3.noise_falls_with_lambda1",
          "\"when λ1 is small, ... only large noise can preserve their privacy\" (Sec. 5.1, "
          "Fig. 3b)",
          ("Fig. 3",), "at every ε, the average noise decreases at every step of λ1",
          _falls_with("fig3", "lambda1", "noise", "λ1")),
    Claim("pptd.fig3.mae_falls_with_lambda1",
          "\"With small λ1, large noise has to be added so the utility will be affected more\" "
          "(Sec. 5.1, Fig. 3a)",
          ("Fig. 3",), "at every ε, MAE decreases at every step of λ1",
          _falls_with("fig3", "lambda1", "mae", "λ1")),
    Claim("pptd.fig4.noise_unchanged_with_workers",
          "\"the average of added noise keeps the same as S increases\" (Sec. 5.1, Fig. 4b)",
          ("Fig. 4",),
          "at every ε, the average noise changes between any two values of S by at most "
          "noise_across_workers_rel_tol, relatively (a tolerance of ours: the paper gives none)",
          noise_unchanged_with_workers),
    Claim("pptd.fig4.mae_falls_with_workers",
          "\"having more users can help utility\" (Sec. 5.1, Fig. 4a)",
          ("Fig. 4",), "at every ε, MAE decreases at every step of S",
          _falls_with("fig4", "workers", "mae", "S")),
    *_tradeoff_claims("fig5", "GTM on synthetic data", _GTM),
    *_tradeoff_claims("fig6", "CRH on the indoor data", _INDOOR, noise_one=False),
    Claim("pptd.fig7.weights_consistent_original",
          "\"The weights estimated by the proposed method are mostly consistent with the true "
          "weights\" (Sec. 5.2, Fig. 7a, original data)",
          ("Fig. 7",),
          "over all workers, Spearman ρ(estimated, true weights) >= weight_spearman_min "
          "(ours: 'mostly' is not quantified)",
          weights_consistent_original),
    Claim("pptd.fig7.weights_consistent_perturbed",
          "The same on perturbed data (Sec. 5.2, Fig. 7b)",
          ("Fig. 7",),
          "over all workers, Spearman ρ(estimated, true weights) >= weight_spearman_min "
          "(ours), per perturbation",
          weights_consistent_perturbed),
    Claim("pptd.fig7.noisy_workers_lose_weight",
          "A user who \"adds large noise ... on perturbed data, his weight is adjusted to a "
          "smaller value\" (Sec. 5.2, Fig. 7)",
          ("Fig. 7",),
          "over all workers, the weight change (perturbed - original) falls with the noise "
          "variance δ²: Spearman ρ < 0 per perturbation",
          noisy_workers_lose_weight),
    Claim("pptd.fig7.beats_naive_original",
          "\"weighted aggregation can outperform naive aggregation solutions such as mean or "
          "median in finding true information\" (Sec. 5.2, original data)",
          ("Fig. 7",),
          "CRH's error against the ground truth is below that of the per-task mean and median",
          beats_naive_original),
    Claim("pptd.fig7.beats_naive_perturbed",
          "The same on perturbed data (Sec. 5.2)",
          ("Fig. 7",),
          "per perturbation, CRH's error against the ground truth is below that of the per-task "
          "mean and of the median",
          beats_naive_perturbed),
    Claim("pptd.fig8.iterations_unchanged_by_noise",
          "\"the running time does not change much when noise level varies\" (Sec. 5.3, Fig. 8)",
          ("Fig. 8",),
          "judged on the iterations to convergence (the paper explains run time by them; "
          "wall-clock times are plotted, never judged): between any two noise levels they "
          "change by at most iterations_rel_change_max (relative; ours: 'much' is not "
          "quantified)",
          iterations_unchanged_by_noise),
    Claim("pptd.fig8.more_iterations_after_perturbation",
          "\"running time after perturbation is slightly bigger than that on original data\" "
          "(Sec. 5.3, Fig. 8)",
          ("Fig. 8",),
          "judged on the iterations to convergence: more on perturbed than on original data, "
          "at every noise level",
          more_iterations_after_perturbation),
)


def evaluate_claims(tables, *, thresholds, significance, figures=None, absent=None
                    ) -> pd.DataFrame:
    """Check PPTD's claims on the result tables (see the module docstring for names);
    ``absent``: tables deliberately left out, with the reason."""
    return evaluate(CLAIMS, tables, thresholds=thresholds, significance=significance,
                    figures=figures, absent=absent)
