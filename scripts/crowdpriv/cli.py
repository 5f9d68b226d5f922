"""The ``crowdpriv`` command: the papers' mechanisms on your own CSV, with a privacy ledger.

    crowdpriv perturb rr answers.csv -o private.csv --epsilon 1 --domain 5
    crowdpriv perturb pptd claims.csv -o private.csv --epsilon 1 --lambda1 2
    crowdpriv infer crh private.csv -o truths.csv
    crowdpriv synthesize claims.csv -o synthetic.csv --m 30
    crowdpriv audit rr -o audit.csv --epsilon 1 --domain 5

Each subcommand reads a CSV (``task, worker, label`` for categorical answers or ``task,
worker, value`` for continuous claims; ``object`` / ``source`` accepted) and writes a CSV plus a
ledger ``<output>.privacy.json`` (what was spent, per what unit, under which theorem, and what
the guarantee does not cover). Bad input gets one message naming file, line, column and value,
and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

from .api import INFER_METHODS, PERTURB_MECHANISMS

__all__ = ["main"]

_COLUMNS = ("Input columns: task, worker and label (categorical answers 0..domain-1) or value "
            "(continuous claims); object and source are accepted for task and worker.")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="crowdpriv", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_COLUMNS)
    sub = p.add_subparsers(dest="command", required=True)

    pert = sub.add_parser(
        "perturb", help="perturb answers with an LDP mechanism; writes the output and a ledger",
        description=(
            "Perturb answers. lp, rr, two-layer, mf: LDP-sparse (Sun et al. 2018) on "
            "categorical labels, epsilon per answer (cell), --domain required (never inferred). "
            "pptd: PPTD Alg. 2 (Li et al. 2018) on continuous values, (epsilon, delta) per "
            "record via Theorem 4.10, --lambda1 required. Without --seed the noise comes from "
            "fresh OS entropy; a seeded output is reproducible and therefore not private. "
            + _COLUMNS))
    pert.add_argument("mechanism", choices=PERTURB_MECHANISMS)
    pert.add_argument("input", help="answers CSV")
    pert.add_argument("-o", "--output", required=True, help="output CSV (ledger beside it)")
    pert.add_argument("--epsilon", type=float, required=True, help="privacy budget ε > 0")
    pert.add_argument("--domain", type=int, help="number of labels |Γ| (lp, rr, two-layer, mf)")
    pert.add_argument("--seed", type=int, help="fixed seed: reproducible, NOT private")
    pert.add_argument("--lambda1", type=float, help="pptd: rate of the workers' error "
                                                    "variances (prior knowledge)")
    pert.add_argument("--b", type=float, default=2.0, help="pptd: Lemma 4.8's b (default 2)")
    pert.add_argument("--eta", type=float, default=0.9, help="pptd: Lemma 4.8's η (0.9)")
    pert.add_argument("--delta", type=float, default=0.1, help="pptd: δ of (ε, δ) (0.1)")
    pert.add_argument("--sensitivity", choices=["printed", "corrected"], default="printed",
                      help="pptd: Lemma 4.8 as printed (γ/λ1) or corrected (γ/√λ1)")
    pert.add_argument("--d", type=int, default=10, help="mf: factorisation parameter (10)")
    pert.add_argument("--ridge", type=float, default=0.0, help="mf: ridge λ (0)")
    pert.add_argument("--spread", type=float, default=1.0,
                      help="two-layer: ε_i ~ U(ε(1-spread), ε(1+spread)) (1)")

    inf = sub.add_parser(
        "infer", help="truths per task and weights per worker",
        description=("Truth inference: sun (LDP-sparse Alg. 1), crh, gtm (as in PPTD), mean, "
                     "majority. Writes truths (task, truth) to OUTPUT and weights (worker, "
                     "weight) to <OUTPUT stem>.weights.csv. Post-processing: spends no privacy. "
                     + _COLUMNS))
    inf.add_argument("method", choices=INFER_METHODS)
    inf.add_argument("input", help="answers CSV")
    inf.add_argument("-o", "--output", required=True, help="output CSV of the truths")

    syn = sub.add_parser(
        "synthesize", help="PrisCrowd's release of synthetic claims (Alg. 1)",
        description=("PrisCrowd (Huai et al. 2019): fit the weights, then release --m synthetic "
                     "claims per object by Alg. 1 (seed claim by weight, candidate from its "
                     "kernel, randomised privacy test). Writes task, claim, value in the claims' "
                     "units; the ledger holds each object's Theorem 2 (ε, δ) per released claim "
                     "and warns about objects without a guarantee. " + _COLUMNS))
    syn.add_argument("input", help="claims CSV (continuous values)")
    syn.add_argument("-o", "--output", required=True, help="output CSV of the synthetic claims")
    syn.add_argument("--m", type=int, default=30, help="released claims per object (30)")
    syn.add_argument("--weights", choices=["combined", "global", "uniform"], default="combined",
                     help="seed weights: combined (Eq. 6, default), global, uniform")
    syn.add_argument("--k", type=int, default=5, help="privacy test threshold k (5)")
    syn.add_argument("--gamma", type=float, default=4.0, help="privacy test band γ (4)")
    syn.add_argument("--eps0", type=float, default=1.0, help="test randomness ε0 (1)")
    syn.add_argument("--t", type=int, default=1, help="Theorem 2's t, 1 <= t < k (1)")
    syn.add_argument("--max-candidates", type=int, default=300,
                     help="cap on candidates per object (300; Alg. 1 itself has none)")
    syn.add_argument("--batch-size", type=int, default=10,
                     help="candidates drawn per object per round (10)")
    syn.add_argument("--bandwidth", choices=["mad", "silverman"], default="mad")
    syn.add_argument("--units", choices=["zscore", "raw"], default="zscore")
    syn.add_argument("--seed", type=int, help="fixed seed: reproducible, NOT private")

    aud = sub.add_parser(
        "audit", help="the privacy audit of a mechanism at your parameters",
        description=("Black-box audit (Clopper-Pearson lower bound on ε at 99 %, after an event "
                     "search) and the exact ε where a closed form exists, for every neighbour "
                     "class of the mechanism. Writes the audit table to OUTPUT."))
    aud.add_argument("mechanism", choices=PERTURB_MECHANISMS)
    aud.add_argument("-o", "--output", required=True, help="output CSV of the audit")
    aud.add_argument("--epsilon", type=float, required=True)
    aud.add_argument("--domain", type=int, default=5, help="|Γ| (lp, rr, two-layer, mf; 5)")
    aud.add_argument("--lambda1", type=float, default=2.0, help="pptd: λ1 (2)")
    aud.add_argument("--samples", type=int, default=100_000, help="samples per side (1e5)")
    return p


def _audit(args):
    from . import api, audits

    if args.mechanism == "pptd":
        block = {"privacy": {"b": 2.0, "eta": 0.9, "delta": 0.1}}
        cases = audits.pptd_cases(block, args.epsilon, args.lambda1)
    else:
        cases = api.ldp_audit_cases(args.mechanism, args.epsilon, args.domain)
    table = audits.run_audit(cases, seed=0, samples=args.samples,
                             search_samples=max(args.samples // 5, 1000), confidence=0.99)
    return api.Release(table, {"mechanism": args.mechanism, "epsilon": args.epsilon,
                               "verdicts": dict(zip(table["neighbours"], table["verdict"])),
                               "note": "an audit spends no privacy; it samples the mechanism "
                                       "on synthetic neighbouring inputs"})


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    from . import api
    from ._checks import ParameterError
    from .validate import DataError

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if args.command == "perturb":
                release = api.perturb(
                    args.input, args.mechanism, epsilon=args.epsilon, domain=args.domain,
                    seed=args.seed, lambda1=args.lambda1, b=args.b, eta=args.eta,
                    delta=args.delta, sensitivity=args.sensitivity, d=args.d, ridge=args.ridge,
                    spread=args.spread)
            elif args.command == "infer":
                release = api.infer(args.input, args.method)
            elif args.command == "synthesize":
                release = api.synthesize(
                    args.input, m=args.m, weights=args.weights, k=args.k, gamma=args.gamma,
                    eps0=args.eps0, t=args.t, max_candidates=args.max_candidates,
                    batch_size=args.batch_size,
                    bandwidth=args.bandwidth, units=args.units, seed=args.seed)
            else:
                release = _audit(args)
    except (DataError, ParameterError, FileNotFoundError) as err:
        print(f"crowdpriv: {err}", file=sys.stderr)
        return 2
    for w in caught:
        print(f"crowdpriv: warning: {w.message}", file=sys.stderr)
    for caveat in release.ledger.get("audit_caveats", []):
        if caveat.get("claimed") and caveat.get("exceeds_claim"):
            print(f"crowdpriv: warning: the privacy audit finds the guarantee void for "
                  f"{caveat['neighbours']}: {caveat['evidence'][:200]}", file=sys.stderr)
    ledger = api.write_release(release, args.output)
    spent = release.ledger.get("spent", {})
    print(f"wrote {args.output} ({len(release.data)} rows) and {ledger}: "
          f"{json.dumps(spent, ensure_ascii=False)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
