"""The ``crowdpriv`` command: the papers' mechanisms on your own CSV, with a privacy ledger.

    crowdpriv perturb rr answers.csv -o private.csv --epsilon 1 --domain 5
    crowdpriv perturb pptd claims.csv -o private.csv --epsilon 1 --lambda1 2
    crowdpriv infer private.csv -o truths.csv          (the default for the release)
    crowdpriv infer ds answers.csv -o truths.csv
    crowdpriv synthesize claims.csv -o synthetic.csv --m 30
    crowdpriv audit rr -o audit.csv --epsilon 1 --domain 5

Each subcommand reads a CSV (``task, worker, label`` for categorical answers or ``task,
worker, value`` for continuous claims; ``object`` / ``source`` accepted) and writes a CSV plus a
ledger ``<output>.privacy.json`` (what was spent, per what unit, under which theorem, and what
the guarantee does not cover). Bad input gets one message naming file, line, column and value,
and nothing is written. The mechanisms, their settings (flags) and their defaults come from
:mod:`crowdpriv.mechanisms`; ``--register module:object`` (or an installed package's entry
point ``crowdpriv.mechanisms``) adds your own.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import warnings

__all__ = ["main"]

_COLUMNS = ("Input columns: task, worker and label (categorical answers 0..domain-1) or value "
            "(continuous claims); object and source are accepted for task and worker.")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _field_type(f: dataclasses.Field):
    """The value type of a settings field for argparse (its metadata, else its default's)."""
    given = f.metadata.get("type")
    if given is not None:
        return given
    default = f.default
    if isinstance(default, bool):
        return lambda text: text.lower() in ("1", "true", "yes")
    if isinstance(default, (int, float)):
        return type(default)
    return str


def _settings_flags(parser, members, *, defaults: str = "none") -> dict[str, list[str]]:
    """Add one flag per setting of ``members`` (their ``Settings`` dataclasses: the only place a
    default lives); returns {setting: [ids that have it]}. ``defaults="none"`` leaves every
    flag's default None (so a flag the user did not give is not passed), the help text naming
    each member's default."""
    owners: dict[str, list] = {}
    for mech in members:
        for f in dataclasses.fields(mech.Settings):
            owners.setdefault(f.name, []).append((mech, f))
    for name, pairs in owners.items():
        mech, f = pairs[0]
        shown = ", ".join(f"{m.id}: {fl.default!r}" if len(pairs) > 1 else f"default {fl.default!r}"
                          for m, fl in pairs)
        help_text = f"{f.metadata.get('help', name)} ({shown})"
        if len(pairs) < len(members):
            help_text = f"[{', '.join(m.id for m, _ in pairs)}] {help_text}"
        parser.add_argument(_flag(name), dest=f"setting_{name}", type=_field_type(f),
                            metavar=None if f.metadata.get("choices") else name.upper(),
                            choices=f.metadata.get("choices"), default=None, help=help_text)
    return {name: [m.id for m, _ in pairs] for name, pairs in owners.items()}


def _given_settings(args) -> dict:
    return {k[len("setting_"):]: v for k, v in vars(args).items()
            if k.startswith("setting_") and v is not None}


def _check_flags(mech, given: dict) -> None:
    """A flag the mechanism does not use is an error naming it and the mechanism's settings."""
    from ._checks import ParameterError

    own = {f.name for f in dataclasses.fields(mech.Settings)}
    for name, value in given.items():
        if name not in own:
            raise ParameterError(name, value, f"{_flag(name)} is not a setting of {mech.id} "
                                              f"(its settings: "
                                              f"{', '.join(_flag(n) for n in sorted(own)) or 'none'})")


def _parser(mechanisms) -> argparse.ArgumentParser:
    from .api import INFER_METHODS, perturb_mechanisms

    p = argparse.ArgumentParser(
        prog="crowdpriv", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_COLUMNS)
    p.add_argument("--register", action="append", default=[], metavar="MODULE:OBJECT",
                   help="register your own mechanism (a crowdpriv.mechanisms.Mechanism) before "
                        "running; repeatable")
    sub = p.add_subparsers(dest="command", required=True)

    ids = perturb_mechanisms()
    runners = list(dict.fromkeys(mechanisms.get(mechanisms.get(i).release_with or i)
                                 for i in ids))
    pert = sub.add_parser(
        "perturb", help="perturb answers with a mechanism; writes the output and a ledger",
        description=(
            "Perturb answers with one mechanism of crowdpriv.mechanisms: "
            + "; ".join(f"{i}: {mechanisms.get(i).summary}" for i in ids)
            + ". Categorical ones take --domain (never inferred); pptd takes --lambda1. "
            "Without --seed the noise comes from fresh OS entropy; a seeded output is "
            "reproducible and therefore not private. " + _COLUMNS))
    pert.add_argument("mechanism", choices=ids)
    pert.add_argument("input", help="answers CSV")
    pert.add_argument("-o", "--output", required=True, help="output CSV (ledger beside it)")
    pert.add_argument("--epsilon", type=float, required=True, help="privacy budget ε > 0")
    pert.add_argument("--domain", type=int, help="number of labels |Γ| (categorical "
                                                 "mechanisms)")
    pert.add_argument("--seed", type=int, help="fixed seed: reproducible, NOT private")
    pert.add_argument("--allow-unsafe", action="store_true",
                      help="release although the mechanism's guarantee as it runs is ε = ∞ "
                           "(the ledger says so); refused without it")
    _settings_flags(pert, runners)

    from .inference import DEFAULT_PLAIN, METHODS

    inf = sub.add_parser(
        "infer", help="truths per task and weights per worker",
        usage="crowdpriv infer [METHOD] INPUT -o OUTPUT [options]",
        description=(
            "Truth inference (post-processing: spends no privacy). Methods: "
            + "; ".join(f"{i} ({m.accepts}): {m.summary}" for i, m in METHODS.items())
            + ". Without METHOD: the default of the answers' type "
            f"({DEFAULT_PLAIN['categorical']} for labels, {DEFAULT_PLAIN['continuous']} for "
            "values) or, when INPUT has a ledger (INPUT.privacy.json describing these bytes) "
            "or --mechanism is given, the default after that mechanism (docs/inference.md). "
            "Writes task and label (labels) or truth (values; label beside it for a release of "
            "labels) to OUTPUT, and worker, weight to <OUTPUT stem>.weights.csv. " + _COLUMNS))
    inf.add_argument("positional", nargs="+", metavar="[METHOD] INPUT",
                     help=f"METHOD: one of {', '.join(METHODS)} (optional); INPUT: answers CSV")
    inf.add_argument("-o", "--output", required=True, help="output CSV of the truths")
    inf.add_argument("--domain", type=int, help="number of labels K (default: the ledger's, "
                                                "else the largest label + 1)")
    inf.add_argument("--ordinal", action="store_true",
                     help="allow sun, crh, gtm, mean, median on labels (average the codes)")
    inf.add_argument("--mechanism", help="the mechanism that made INPUT, when it has no "
                                         "ledger (with --epsilon and, for labels, --domain)")
    inf.add_argument("--epsilon", type=float, help="ε of that release (with --mechanism)")
    inf.add_argument("--spread", type=float, help="2-Layer's spread (with --mechanism "
                                                  "two-layer)")
    inf.add_argument("--no-ledger", action="store_true",
                     help="ignore INPUT's ledger (naive inference)")
    inf.add_argument("--prior", choices=("estimate", "uniform", "moments"),
                     help="class prior of the Dawid-Skene methods: estimate (EM), uniform "
                          "(every class alike: balanced accuracy), moments (label frequencies, "
                          "the channel inverted; the aware methods' default)")

    synth = [m for m in mechanisms.members() if m.cli_command == "synthesize"]
    syn = sub.add_parser(
        "synthesize", help="PrisCrowd's release of synthetic claims (Alg. 1)",
        description=("PrisCrowd (Huai et al. 2019): fit the weights, then release --m synthetic "
                     "claims per object by Alg. 1 (seed claim by weight, candidate from its "
                     "kernel, randomised privacy test). Writes task, claim, value in the claims' "
                     "units; the ledger holds each object's Theorem 2 (ε, δ) per released claim "
                     "and warns about objects without a guarantee. " + _COLUMNS))
    syn.add_argument("input", help="claims CSV (continuous values)")
    syn.add_argument("-o", "--output", required=True, help="output CSV of the synthetic claims")
    syn.add_argument("--seed", type=int, help="fixed seed: reproducible, NOT private")
    syn.add_argument("--allow-unsafe", action="store_true",
                     help="release although Alg. 1's guarantee as it runs is ε = ∞ (the "
                          "normalisation and bandwidth follow the claims, the candidates are "
                          "floating-point samples); refused without it")
    _settings_flags(syn, synth)

    audited = [m for m in mechanisms.members() if "audit" in m.parts]
    aud = sub.add_parser(
        "audit", help="the privacy audit of a mechanism at your parameters",
        description=("Black-box audit (Clopper-Pearson lower bound on ε at 99 %, after an event "
                     "search) and the exact ε where a closed form exists, for every neighbour "
                     "class of the mechanism. Writes the audit table to OUTPUT."))
    aud.add_argument("mechanism", choices=[m.id for m in audited])
    aud.add_argument("-o", "--output", required=True, help="output CSV of the audit")
    aud.add_argument("--epsilon", type=float, required=True)
    aud.add_argument("--domain", type=int, default=5, help="|Γ| (categorical mechanisms; 5)")
    aud.add_argument("--samples", type=int, default=100_000, help="samples per side (1e5)")
    _settings_flags(aud, audited)
    return p


def _audit(args, mechanisms):
    from . import api, audits
    from .userfiles import OutputTable

    mech = mechanisms.get(args.mechanism)
    given = _given_settings(args)
    _check_flags(mech, given)
    settings = mech.settings({**dataclasses.asdict(mech.example_settings()), **given})
    domain = args.domain if mech.answer_type == "categorical" else None
    if args.samples < 100:
        from ._checks import ParameterError

        raise ParameterError("samples", args.samples, f"--samples must be at least 100, got "
                                                      f"{args.samples}")
    cases = mech.audit_cases(settings, args.epsilon, domain_size=domain)
    if mech.release_with:  # and the sampler a release of it runs (LP: the snapped one)
        runner = mechanisms.get(mech.release_with)
        cases += runner.audit_cases(runner.example_settings(), args.epsilon, domain_size=domain)
    table = audits.run_audit(cases, seed=0, samples=args.samples,
                             search_samples=max(args.samples // 5, 1000), confidence=0.99)
    ledger = {"command": "audit", "mechanism": args.mechanism,
              "input": {"file": None, "sha256": None, "rows": 0},
              "headline": {"text": "an audit spends no privacy: it samples the mechanism on "
                                   "synthetic neighbouring inputs",
                           "per_record": {"epsilon": 0.0, "delta": 0.0, "unit": "none"},
                           "per_worker": {"epsilon": 0.0, "delta": 0.0, "rule": "no data"},
                           "float_safe": True},
              "parameters": {"epsilon": args.epsilon, "domain": domain,
                             "samples": args.samples, **dataclasses.asdict(settings)},
              "verdicts": dict(zip(table["neighbours"], table["verdict"])),
              "randomness": "seed 0 (an audit is reproducible)", "seed": 0,
              "reproducible": True}
    return api.Release(OutputTable.from_frame(table), ledger)


def _register(specs) -> None:
    from . import mechanisms

    mechanisms.load_entry_points()
    for spec in specs:
        mechanisms.load(spec)


#: Flags that take a value that may look like an option (``--epsilon -inf``).
_VALUE_FLAGS = ("--epsilon", "--seed", "--domain", "--samples")


def _join_signed_values(argv: list[str]) -> list[str]:
    """``--epsilon -inf`` → ``--epsilon=-inf`` (argparse would read ``-inf`` as an option), so
    the value reaches the checks that name the flag."""
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        if token in _VALUE_FLAGS and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            try:
                float(argv[i + 1])
            except ValueError:
                pass
            else:
                out.append(f"{token}={argv[i + 1]}")
                i += 2
                continue
        out.append(token)
        i += 1
    return out


def _message(err, flags: set[str]) -> str:
    """One line: a parameter the user gave as a flag is named as that flag."""
    parameter = getattr(err, "parameter", None)
    flag = _flag(parameter) if isinstance(parameter, str) else None
    if flag in flags and flag not in str(err):
        value = getattr(err, "value", None)
        shown = "" if value is None else f" {value!r}"
        return f"{flag}{shown}: {err}"
    return str(err)


def _infer(args, api):
    """``crowdpriv infer``: the method (optional) and input, the release behind it from the
    ledger or from --mechanism/--epsilon (a stale ledger is noted and not used)."""
    from ._checks import ParameterError
    from .inference import METHODS, known_release

    given = args.positional
    if len(given) > 2:
        raise ParameterError("infer", given, f"infer takes [METHOD] INPUT, got {len(given)} "
                             f"arguments: {given}")
    method = given[0] if len(given) == 2 else None
    if method is not None and method not in METHODS:
        raise ParameterError("method", method, f"METHOD must be one of {tuple(METHODS)}, got "
                             f"{method!r}")
    release = "auto"
    if args.mechanism is not None:
        if args.epsilon is None:
            raise ParameterError("epsilon", None, "--mechanism needs --epsilon (the release's ε)")
        settings = {} if args.spread is None else {"spread": args.spread}
        release = known_release(args.mechanism, args.epsilon, domain=args.domain,
                                settings=settings)
    elif args.epsilon is not None or args.spread is not None:
        raise ParameterError("mechanism", None, "--epsilon and --spread describe a release: "
                             "give --mechanism too")
    if args.no_ledger:
        if args.mechanism is not None:
            raise ParameterError("no_ledger", True, "--no-ledger and --mechanism contradict "
                                 "each other")
        release = None
    options = {} if args.prior is None else {"prior": args.prior}
    return api.infer(args.input, method, domain=args.domain, release=release,
                     ordinal=args.ordinal, **options)


def _check_output_folder(output: str) -> None:
    from pathlib import Path

    from .files import OutputClash

    folder = Path(output).resolve().parent
    if not folder.is_dir():
        raise OutputClash(f"the folder of -o {output} ({folder}) does not exist; create it "
                          "first")


def main(argv=None) -> int:
    from . import api, mechanisms
    from ._checks import ParameterError
    from .files import OutputClash
    from .validate import DataError

    argv = _join_signed_values(list(sys.argv[1:] if argv is None else argv))
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--register", action="append", default=[])
    known, _ = early.parse_known_args(argv)
    try:
        _register(known.register)
    except (ParameterError, ValueError, TypeError) as err:
        print(f"crowdpriv: --register: {err}", file=sys.stderr)
        return 2
    parser = _parser(mechanisms)
    args = parser.parse_args(argv)
    if args.command == "infer":
        args.input = args.positional[-1]
    sub = next(a for a in parser._actions if a.dest == "command").choices[args.command]
    flags = {opt for action in sub._actions for opt in action.option_strings}
    inputs = [args.input] if getattr(args, "input", None) else []
    try:
        from .files import check_outputs

        _check_output_folder(args.output)
        check_outputs(inputs, [args.output])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if args.command == "perturb":
                _, runner = api.release_mechanism(args.mechanism)
                given = _given_settings(args)
                _check_flags(runner, given)
                release = api.perturb(args.input, args.mechanism, epsilon=args.epsilon,
                                      domain=args.domain, seed=args.seed,
                                      allow_unsafe=args.allow_unsafe, **given)
            elif args.command == "infer":
                release = _infer(args, api)
            elif args.command == "synthesize":
                release = api.synthesize(args.input, seed=args.seed,
                                         allow_unsafe=args.allow_unsafe,
                                         **_given_settings(args))
            else:
                release = _audit(args, mechanisms)
        for w in caught:
            print(f"crowdpriv: warning: {w.message}", file=sys.stderr)
        for caveat in release.ledger.get("audit_caveats", []):
            if caveat.get("claimed") and caveat.get("exceeds_claim"):
                print(f"crowdpriv: warning: the privacy audit finds the guarantee void for "
                      f"{caveat['neighbours']}: {caveat['evidence'][:200]}", file=sys.stderr)
        ledger = api.write_release(release, args.output, inputs=inputs)
    except KeyboardInterrupt:
        print("crowdpriv: interrupted; nothing was written", file=sys.stderr)
        return 130
    except (DataError, ParameterError, OutputClash) as err:
        print(f"crowdpriv: {_message(err, flags)}", file=sys.stderr)
        return 2
    except OSError as err:
        where = getattr(err, "filename", None) or args.output
        if ".tmp-" in os.path.basename(str(where)):  # the temporary file of an output
            where = args.output
        print(f"crowdpriv: cannot write {where}: {err.strerror or err}; nothing was written",
              file=sys.stderr)
        return 2
    headline = (release.ledger.get("headline") or {}).get("text", "")
    print(f"wrote {args.output} ({release.table.rows} rows) and {ledger}: {headline}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
