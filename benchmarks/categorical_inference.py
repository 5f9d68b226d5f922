"""Which categorical aggregator after which release? Accuracy on the truth-inference benchmark.

Not a test: run ``.venv/bin/python benchmarks/categorical_inference.py`` (about 25 min of CPU
on one core). Data: ``product`` (binary, 8,315 tasks x 176 workers, 24,945 answers) and
``dog`` (4 labels, 807 x 109, 8,070 answers) of Zheng et al., PVLDB 10(5), 2017, from the
mirror (``../shared/datasets/truth_inference_benchmark``). Each dataset is released by

* ``none``: the answers themselves (10 seeds: only the random ties of the votes vary);
* ``RR``: LDP-sparse's RR (Eq. 8) on the dense workers x tasks matrix, NULL one more symbol
  (:func:`crowdpriv.mechanisms.rr.rr_perturb`), ε in {1, 2}, 10 seeds;
* ``2-Layer``: RR at a hidden per-worker ε_i ~ U(0, 2ε)
  (:func:`crowdpriv.mechanisms.two_layer.two_layer_perturb`'s draws), ε in {1, 2}, 10 seeds;
* ``RR-answers``: RR over Γ on answered cells only, NULLs stay NULL
  (:func:`crowdpriv.examples.rr_answers_only`), ε in {1, 2}, 20 seeds on product, 10 on dog;
* ``LP``: Laplace Lap(K/ε) on every cell, NULLs filled uniformly
  (:func:`crowdpriv.mechanisms.lp.lp_perturb`), ε in {1, 2}, 10 seeds (continuous release).

and aggregated by every method of :mod:`crowdpriv.categorical` that applies (label outputs
with NULL outputs dropped for the label-only methods; every cell, NULL = symbol K, for the
channel models). Reference rows, not aggregators: ``base rate`` (always the most frequent true
label) and ``oracle`` (the Bayes rule with every worker's true response law, counted from the
clean answers against the truth with 0.5 pseudo-counts, the class prior and the known channel,
for 2-Layer each worker's own ε_i; cross-fitted over two folds of tasks so that no task's own
truth enters its rule): roughly what is achievable at all.

Writes ``results/benchmarks/categorical/runs.csv`` (one row per run), ``summary.csv`` (mean,
standard deviation and standard error over seeds of accuracy and balanced accuracy, i.e. the
mean recall per class, mean EM iterations), ``summary.md`` (the Markdown table printed at the
end), ``table.csv`` / ``table.md`` (one row per dataset, release and ε, one column per
aggregator: the table a default is chosen from) and ``timing.csv`` (CPU seconds per call on
product, clean and after RR at ε = 1, best of ``--repeat``).
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from crowdpriv import categorical as cat  # noqa: E402
from crowdpriv.files import atomic_path, write_text  # noqa: E402
from crowdpriv.examples import rr_answers_only  # noqa: E402
from crowdpriv.mechanisms import answer_codes, codes_to_answers  # noqa: E402
from crowdpriv.mechanisms.lp import lp_perturb  # noqa: E402
from crowdpriv.mechanisms.rr import rr_perturb  # noqa: E402
from crowdpriv.mechanisms.two_layer import two_layer_apply, two_layer_draws  # noqa: E402
from crowdpriv.truth import sun  # noqa: E402
from crowdpriv.answers import Answers  # noqa: E402

MIRROR = ROOT.parent / "shared" / "datasets" / "truth_inference_benchmark"
OUT = ROOT / "results" / "benchmarks" / "categorical"
DATASETS = ("product", "dog")
EPSILONS = (1.0, 2.0)
MECHANISMS = ("none", "RR", "2-Layer", "RR-answers", "LP")
BASE_SEED = 27  # issue 27


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Data:
    """One benchmark dataset in integer codes, plus its dense workers x tasks matrix."""

    def __init__(self, name):
        ans = pd.read_csv(MIRROR / f"{name}_answer.csv", dtype={"question": str, "worker": str})
        truth = pd.read_csv(MIRROR / f"{name}_truth.csv", dtype={"question": str})
        self.task, tids = pd.factorize(ans["question"], sort=True)
        self.worker, wids = pd.factorize(ans["worker"], sort=True)
        self.label = ans["answer"].to_numpy().astype(np.int64)
        self.name, self.n, self.m = name, len(tids), len(wids)
        self.k = int(self.label.max()) + 1
        self.truth = truth.set_index("question")["truth"].reindex(tids).to_numpy()
        self.dense = np.full((self.m, self.n), np.nan)
        self.dense[self.worker, self.task] = self.label
        self.kw = dict(n_tasks=self.n, n_workers=self.m, n_labels=self.k)
        self.prior = np.bincount(self.truth, minlength=self.k) / self.n

        # two folds of tasks for the cross-fitted oracle
        self.fold = np.random.default_rng([BASE_SEED, 99]).permutation(self.n) % 2

    def response_law(self, with_null: bool, fold: int):
        """Each worker's true response law θ_w[r, c] (r = K: no answer) and the class prior,
        both counted on the tasks outside ``fold`` (0.5 pseudo-counts)."""
        if with_null:
            t, w, y = cat.cells_from_matrix(self.dense, null_symbol=self.k)
        else:
            t, w, y = self.task, self.worker, self.label
        keep = self.fold[t] != fold
        t, w, y = t[keep], w[keep], y[keep]
        r = self.k + with_null
        counts = np.bincount((w * r + y) * self.k + self.truth[t],
                             minlength=self.m * r * self.k).reshape(self.m, r, self.k) + 0.5
        prior = np.bincount(self.truth[self.fold != fold], minlength=self.k) + 0.5
        return counts / counts.sum(axis=1, keepdims=True), prior / prior.sum()


def oracle(data, t, w, y, channels_per_worker, with_null):
    """The Bayes rule with known worker laws, class prior and channel(s) (m, S, R), cross-fitted:
    the laws and prior used on one fold of tasks are counted on the other fold, so that the
    oracle never sees the truth of a task it labels."""
    pred = np.empty(data.n, dtype=np.int64)
    for fold in (0, 1):
        law, prior = data.response_law(with_null, fold)
        phi = np.einsum("wor,wrc->woc", channels_per_worker, law)
        score = np.log(prior) + np.stack(
            [np.bincount(t, weights=np.log(phi[w, y, c]), minlength=data.n)
             for c in range(data.k)], axis=1)
        here = data.fold == fold
        pred[here] = np.argmax(score[here], axis=1)
    return pred


def balanced_accuracy(pred, truth, k):
    return float(np.mean([(pred[truth == c] == c).mean() for c in range(k) if (truth == c).any()]))


def label_methods(data, rng_ties):
    """Aggregators on label outputs (NULL outputs dropped)."""
    kw = data.kw
    return {
        "majority vote": lambda t, w, y: cat.majority_vote(t, w, y, **kw, ties="random",
                                                           rng=rng_ties),
        "Sun-weighted vote": lambda t, w, y: cat.sun_weighted_vote(t, w, y, **kw, ties="random",
                                                                   rng=rng_ties),
        "Dawid-Skene": lambda t, w, y: cat.dawid_skene(t, w, y, **kw, stopping="task"),
        "one-coin DS": lambda t, w, y: cat.one_coin_dawid_skene(t, w, y, **kw, stopping="task"),
    }


def run_release(data, mech, eps, rep):
    """Release the dataset once and aggregate it every way; returns result rows."""
    eps_code = 0 if mech == "none" else int(round(eps * 100))
    seed = [BASE_SEED, DATASETS.index(data.name), MECHANISMS.index(mech), eps_code, rep]
    rng = np.random.default_rng(seed)
    rng_ties = np.random.default_rng(seed + [1])
    k, kw = data.k, data.kw
    preds, extra = {}, {}
    if mech == "LP":
        out = lp_perturb(data.dense, eps, rng=rng, domain_size=k, dtype=np.float64)
        w, t = np.indices(out.shape).reshape(2, -1)
        x = out.ravel()
        plain = np.bincount(t, weights=x, minlength=data.n) / data.m
        preds["mean, rounded"] = cat.round_to_labels(plain, k)
        res = sun(Answers(t, w, x, data.n, data.m))
        preds["Sun (Alg. 1), rounded"] = cat.round_to_labels(res.truths, k)
        nam = cat.noise_aware_mean(t, w, x, **{a: kw[a] for a in ("n_tasks", "n_workers")},
                                   noise_variance=cat.laplace_noise_variance(eps, k), n_labels=k)
        preds["noise-aware mean, rounded"] = nam.labels
        extra = {"mean, rounded": plain, "Sun (Alg. 1), rounded": res.truths,
                 "noise-aware mean, rounded": nam.truths}
        iters = {}
    else:
        with_null = mech != "RR-answers"
        if mech == "none":
            out = data.dense
        elif mech == "RR":
            out = rr_perturb(data.dense, eps, rng=rng, domain_size=k, dtype=np.float64)
            chan = cat.rr_null_channel(eps, k)
            per_worker = np.broadcast_to(chan, (data.m,) + chan.shape)
        elif mech == "2-Layer":
            codes = answer_codes(data.dense, k)
            draws = two_layer_draws(codes, rng=rng)
            out = codes_to_answers(two_layer_apply(codes, draws, eps, domain_size=k), k,
                                   dtype=np.float64)
            per_worker = np.stack([cat.rr_null_channel(e, k) if e > 0 else
                                   np.full((k + 1, k + 1), 1.0 / (k + 1))
                                   for e in eps * draws[0]])
        else:  # RR-answers
            out = rr_answers_only(data.dense, eps, rng=rng, domain_size=k)
            chan = cat.rr_answers_channel(eps, k)
            per_worker = np.broadcast_to(chan, (data.m,) + chan.shape)
        t, w, y = cat.cells_from_matrix(out)
        results = {name: fn(t, w, y) for name, fn in label_methods(data, rng_ties).items()}
        if mech == "none":
            results["majority vote (lowest-label ties)"] = cat.majority_vote(t, w, y, **kw)
        else:
            if with_null:
                tn, wn, yn = cat.cells_from_matrix(out, null_symbol=k)
                results["DS, NULL as a symbol"] = cat.dawid_skene(tn, wn, yn, n_symbols=k + 1,
                                                                  **kw)
            else:
                tn, wn, yn = t, w, y
            if mech == "2-Layer":
                chans, gw = cat.two_layer_channels(eps, k)
                aware = dict(channel=chans, grid_weights=gw)
                fixed = dict(channel=cat.rr_null_channel(eps, k))
                results["aware one-coin DS, ε_i fixed at ε"] = cat.channel_dawid_skene(
                    tn, wn, yn, **kw, **fixed, model="one_coin")
            elif mech == "RR":
                aware = dict(channel=cat.rr_null_channel(eps, k))
            else:
                aware = dict(channel=cat.rr_answers_channel(eps, k))
            results["aware DS"] = cat.channel_dawid_skene(tn, wn, yn, **kw, **aware)
            results["aware one-coin DS"] = cat.channel_dawid_skene(tn, wn, yn, **kw, **aware,
                                                                   model="one_coin")
            results["aware one-coin DS, prior by moments"] = cat.channel_dawid_skene(
                tn, wn, yn, **kw, **aware, model="one_coin", prior="moments")
            preds["oracle (reference)"] = oracle(data, tn, wn, yn, per_worker, with_null)
        preds.update({name: r.truths for name, r in results.items()})
        iters = {name: r.iterations for name, r in results.items()}
    preds["base rate (reference)"] = np.full(data.n, int(np.argmax(data.prior)))
    rows = []
    for name, pred in preds.items():
        row = {"dataset": data.name, "mechanism": mech, "epsilon": eps if mech != "none"
               else np.nan, "rep": rep, "aggregator": name,
               "accuracy": float((pred == data.truth).mean()),
               "balanced_accuracy": balanced_accuracy(pred, data.truth, k),
               "iterations": iters.get(name, np.nan)}
        if name in extra:
            row["mae_codes"] = float(np.abs(extra[name] - data.truth).mean())
        rows.append(row)
    return rows


def summarise(runs):
    keys = ["dataset", "mechanism", "epsilon", "aggregator"]
    if "mae_codes" not in runs:
        runs = runs.assign(mae_codes=np.nan)
    g = runs.groupby(keys, dropna=False, sort=False)
    out = g.agg(reps=("rep", "size"), accuracy=("accuracy", "mean"),
                accuracy_sd=("accuracy", "std"), balanced=("balanced_accuracy", "mean"),
                balanced_sd=("balanced_accuracy", "std"), iterations=("iterations", "mean"),
                mae_codes=("mae_codes", "mean")).reset_index()
    out["accuracy_se"] = out["accuracy_sd"] / np.sqrt(out["reps"])
    out["balanced_se"] = out["balanced_sd"] / np.sqrt(out["reps"])
    reference = out["aggregator"].str.endswith("(reference)")
    best = (out[~reference].groupby(["dataset", "mechanism", "epsilon"], dropna=False)
            ["accuracy"].transform("max"))
    out["best"] = ~reference & np.isclose(out["accuracy"], best.reindex(out.index))
    # paired over seeds (every aggregator saw the same releases): the gap to the best and its
    # standard error; "tied" = within two standard errors of the best (or identical)
    wide = runs.pivot_table(index=["dataset", "mechanism", "epsilon", "rep"],
                            columns="aggregator", values="accuracy", dropna=False)
    gap, gap_se = [], []
    for _, r in out.iterrows():
        block = out[(out.dataset == r.dataset) & (out.mechanism == r.mechanism)
                    & ((out.epsilon == r.epsilon) | (out.epsilon.isna() & np.isnan(r.epsilon)))]
        leader = block[block.best]["aggregator"].iloc[0]
        sub = wide.xs((r.dataset, r.mechanism, r.epsilon), level=[0, 1, 2]) if not np.isnan(
            r.epsilon) else wide.loc[(r.dataset, r.mechanism)].droplevel(0)
        d = (sub[leader] - sub[r.aggregator]).dropna()
        gap.append(d.mean())
        gap_se.append(d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan)
    out["gap_to_best"] = gap
    out["gap_se"] = gap_se
    out["tied_with_best"] = ~reference & ((out["gap_to_best"] <= 2 * out["gap_se"].fillna(0))
                                          | np.isclose(out["gap_to_best"], 0))
    return out


def markdown(summary):
    lines = []
    for (ds, mech, eps), block in summary.groupby(["dataset", "mechanism", "epsilon"],
                                                  dropna=False, sort=False):
        head = f"{ds}, {mech}" + ("" if np.isnan(eps) else f", ε = {eps:g}")
        lines += [f"\n**{head}** ({int(block['reps'].max())} seeds)\n",
                  "| aggregator | accuracy | ± s.e. | balanced acc. | EM iterations |",
                  "|---|---:|---:|---:|---:|"]
        for _, r in block.sort_values("accuracy", ascending=False).iterrows():
            name = f"**{r['aggregator']}**" if r["best"] else r["aggregator"]
            it = "" if np.isnan(r["iterations"]) else f"{r['iterations']:.0f}"
            se = "" if np.isnan(r["accuracy_se"]) else f"{r['accuracy_se']:.4f}"
            mae = "" if np.isnan(r["mae_codes"]) else f" (MAE {r['mae_codes']:.3f})"
            lines.append(f"| {name}{mae} | {r['accuracy']:.4f} | {se} | {r['balanced']:.4f} "
                         f"| {it} |")
    return "\n".join(lines) + "\n"


#: Columns of the wide table: the aggregators every label release runs, then the references.
WIDE = ["majority vote", "Sun-weighted vote", "Dawid-Skene", "one-coin DS", "aware DS",
        "aware one-coin DS", "aware one-coin DS, prior by moments", "oracle (reference)",
        "base rate (reference)"]
SHORT = {"majority vote": "MV", "Sun-weighted vote": "Sun vote", "Dawid-Skene": "DS",
         "one-coin DS": "1-coin DS", "aware DS": "aware DS",
         "aware one-coin DS": "aware 1-coin", "aware one-coin DS, prior by moments":
         "aware 1-coin, moments prior", "oracle (reference)": "oracle",
         "aware one-coin DS, ε_i fixed at ε": "aware 1-coin at ε_i = ε",
         "DS, NULL as a symbol": "DS, NULL symbol",
         "base rate (reference)": "base rate"}


def wide_table(summary):
    """One row per (dataset, mechanism, ε) of the label releases, one column per aggregator:
    mean accuracy (balanced accuracy); in bold the best aggregator and those within two paired
    standard errors of it ("best" lists them, best first)."""
    s = summary[summary["mechanism"] != "LP"]
    rows, md = [], []
    head = ["dataset", "release", "ε"] + [SHORT[a] for a in WIDE] + ["best"]
    md += ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "---:|" * len(WIDE) + "---|"]
    for (ds, mech, eps), block in s.groupby(["dataset", "mechanism", "epsilon"], dropna=False,
                                            sort=False):
        b = block.set_index("aggregator")
        row = {"dataset": ds, "mechanism": mech, "epsilon": eps}
        cells = []
        for a in WIDE:
            if a not in b.index:
                cells.append("")
                continue
            acc, bal = b.loc[a, "accuracy"], b.loc[a, "balanced"]
            row[a] = acc
            row[a + " (balanced)"] = bal
            text = f"{acc:.3f} ({bal:.2f})"
            cells.append(f"**{text}**" if b.loc[a, "tied_with_best"] else text)
        best = ", ".join(SHORT.get(a, a) for a in
                         b[b["tied_with_best"]].sort_values("accuracy", ascending=False).index)
        row["best"] = best
        rows.append(row)
        eps_text = "" if np.isnan(eps) else f"{eps:g}"
        md.append("| " + " | ".join([ds, mech, eps_text] + cells + [best]) + " |")
    return pd.DataFrame(rows), "\n".join(md) + "\n"


def timing(repeat):
    data = Data("product")
    k, kw = data.k, data.kw
    rows = []
    for mech in ("none", "RR"):
        out = data.dense if mech == "none" else rr_perturb(
            data.dense, 1.0, rng=np.random.default_rng(BASE_SEED), domain_size=k,
            dtype=np.float64)
        t, w, y = cat.cells_from_matrix(out)
        tn, wn, yn = cat.cells_from_matrix(out, null_symbol=k) if mech == "RR" else (t, w, y)
        chan = cat.rr_null_channel(1.0, k) if mech == "RR" else cat.identity_channel(k)
        calls = {
            "majority vote": lambda: cat.majority_vote(t, w, y, **kw),
            "Sun-weighted vote": lambda: cat.sun_weighted_vote(t, w, y, **kw),
            "Dawid-Skene": lambda: cat.dawid_skene(t, w, y, **kw, stopping="task"),
            "one-coin DS": lambda: cat.one_coin_dawid_skene(t, w, y, **kw, stopping="task"),
            "aware DS": lambda: cat.channel_dawid_skene(tn, wn, yn, **kw, channel=chan),
            "aware one-coin DS": lambda: cat.channel_dawid_skene(tn, wn, yn, **kw, channel=chan,
                                                                 model="one_coin"),
        }
        if mech == "RR":
            chans, gw = cat.two_layer_channels(1.0, k)
            calls["aware one-coin DS, 16-point ε grid"] = lambda: cat.channel_dawid_skene(
                tn, wn, yn, **kw, channel=chans, grid_weights=gw, model="one_coin")
        for name, fn in calls.items():
            best, res = np.inf, None
            for _ in range(repeat):
                t0 = cpu()
                res = fn()
                best = min(best, cpu() - t0)
            rows.append({"release": "product" if mech == "none" else "product, RR ε=1",
                         "observations": int(tn.size if "aware" in name else t.size),
                         "aggregator": name, "cpu_seconds": best,
                         "iterations": res.iterations,
                         "cpu_ms_per_iteration": 1e3 * best / max(res.iterations, 1)})
    return pd.DataFrame(rows)


def write_tables(summary, out):
    with atomic_path(out / "summary.csv") as tmp:  # written whole or not at all
        summary.to_csv(tmp, index=False, float_format="%.6g")
    md = markdown(summary)
    write_text(out / "summary.md", md)
    table, wide = wide_table(summary)
    with atomic_path(out / "table.csv") as tmp:  # written whole or not at all
        table.to_csv(tmp, index=False, float_format="%.4f")
    write_text(out / "table.md", wide)
    print(md)
    print(wide)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--reps-answers-product", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--tables-only", action="store_true",
                        help="re-render the tables from an existing summary.csv")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.tables_only:
        write_tables(summarise(pd.read_csv(out / "runs.csv")), out)
        return 0
    rows = []
    for name in args.datasets:
        data = Data(name)
        for mech in args.mechanisms:
            for eps in ([np.nan] if mech == "none" else EPSILONS):
                reps = args.reps
                if mech == "RR-answers" and name == "product":
                    reps = args.reps_answers_product
                t0 = cpu()
                for rep in range(reps):
                    rows += run_release(data, mech, eps, rep)
                print(f"{name} {mech} eps={eps}: {reps} releases, {cpu() - t0:.0f} s CPU",
                      flush=True)
    runs = pd.DataFrame(rows)
    with atomic_path(out / "runs.csv") as tmp:  # written whole or not at all
        runs.to_csv(tmp, index=False, float_format="%.6g")
    write_tables(summarise(runs), out)
    if args.repeat > 0:
        tim = timing(args.repeat)
        with atomic_path(out / "timing.csv") as tmp:  # written whole or not at all
            tim.to_csv(tmp, index=False, float_format="%.4g")
        print(tim.to_markdown(index=False, floatfmt=".4g"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
