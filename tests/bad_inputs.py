"""Catalogue of bad inputs and the message each gets (issue 10).

Every case writes its input into a fresh folder, runs the code the pipeline runs on it, and
expects a clear error: which exception, and fragments the message must contain (file, line,
column, value, remedy). ``tests/test_bad_inputs.py`` runs every case; ``python
tests/bad_inputs.py`` renders the table in ``docs/bad_inputs.md`` (a test keeps it current).
"""

from __future__ import annotations

import copy
import hashlib
import http.server
import re
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from crowdpriv._checks import ParameterError  # noqa: E402
from crowdpriv.data import (  # noqa: E402
    AnswerType,
    ChecksumError,
    fetch_verified,
    import_claims_table,
    read_answer_table,
)
from crowdpriv.data.acquire import verify_local_copy  # noqa: E402
from crowdpriv.ldp_sparse._experiments import _check_epsilons  # noqa: E402
from crowdpriv.pptd import weight_comparison  # noqa: E402
from crowdpriv.priscrowd import usable_claims  # noqa: E402
from crowdpriv.runtime import config_key_message  # noqa: E402
from crowdpriv.tables import align_truth, read_claims, read_truth  # noqa: E402
from crowdpriv.validate import DataError  # noqa: E402

GOOD_CLAIMS = "task,worker,value\nt1,w1,1\nt1,w2,2\nt2,w1,3\nt2,w2,4\n"
GOOD_TRUTH = "task,truth\nt1,1\nt2,3\n"
LABELS = dict(domain_size=5, domain_key="ldp_sparse.real_domain_size")


@dataclass
class Case:
    """One bad input: ``run(folder)`` must raise ``error`` whose message contains ``expect``."""

    name: str
    run: object
    error: type
    expect: list[str] = field(default_factory=list)


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def claims_case(name, text, expect, **kw):
    return Case(f"claims: {name}", lambda d: read_claims(_write(d, "claims.csv", text), **kw),
                DataError, ["claims.csv", *expect])


def truth_case(name, text, expect, **kw):
    return Case(f"truth: {name}", lambda d: read_truth(_write(d, "truth.csv", text), **kw),
                DataError, ["truth.csv", *expect])


def _custom(d, claims, truth):
    return import_claims_table(_write(d, "claims.csv", claims), _write(d, "truth.csv", truth))


def _priscrowd(d, claims, truth):
    c, t = _write(d, "claims.csv", claims), _write(d, "truth.csv", truth)
    return usable_claims(read_claims(c), read_truth(t), claims_path=c, truth_path=t)


def _align(d, claims, truth, require):
    c, t = _write(d, "claims.csv", claims), _write(d, "truth.csv", truth)
    tasks = read_claims(c)["task"].unique()
    return align_truth(read_truth(t), tasks, t, require=require)


GOOD_ANSWERS = "question,worker,answer\nq1,w1,0\nq1,w2,1\nq2,w1,1\n"
GOOD_GOLD = "question,truth\nq1,1\nq2,0\n"
PRODUCT = AnswerType("categorical", 2, key="datasets.product")
EMOTION = AnswerType("continuous", value_range=(-100, 100), key="datasets.emotion")


def answer_table_case(name, answers, truth, expect, spec=PRODUCT):
    """Zheng et al.'s answer.csv/truth.csv pair (rule preprocess_answer_table)."""
    def run(d):
        return read_answer_table(_write(d, "answer.csv", answers), _write(d, "truth.csv", truth),
                                 spec)

    return Case(f"benchmark answers: {name}", run, DataError, expect)


def _config_error(edit):
    """Validate the default config after ``edit`` against the schema, as Snakemake does."""

    def run(_):
        from snakemake.utils import validate

        config = copy.deepcopy(yaml.safe_load((ROOT / "config/config.yaml").read_text()))
        edit(config)
        validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))

    return run


def _startup_error(edit):
    """The checks across keys Snakemake makes at start-up, before any job
    (crowdpriv.config_checks), on the default config after ``edit``."""

    def run(_):
        from crowdpriv.config_checks import check_config

        config = copy.deepcopy(yaml.safe_load((ROOT / "config/config.yaml").read_text()))
        edit(config)
        check_config(config)

    return run


def _translated(raise_it, keys, params):
    """What start_job shows for the ParameterError ``raise_it()`` raises inside a job."""

    def run(_):
        try:
            raise_it()
        except ParameterError as err:
            raise ValueError(config_key_message(err, keys, params)) from err

    return run


def _raw_copy(d, content, pinned=b"pinned bytes\n", size=True):
    path = _write(d, "labels.txt", content)
    digest = hashlib.sha256(pinned).hexdigest()
    verify_local_copy(path, sha256=digest, size=len(pinned) if size else None)


def _fig7_min_claims():
    """PPTD Fig. 7 on 10 workers x 5 tasks with min_claims = 50 (> any worker's claims)."""
    import numpy as np

    values = np.arange(50, dtype=float).reshape(10, 5)
    weight_comparison(values, values.mean(0), seed=1, dataset="toy", epsilon=1.0, lam1=1.0,
                      b=2.0, eta=0.9, delta=0.1, shown=7, min_claims=50, repetitions=1)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _http_fetch(d, served: bytes, pinned: bytes):
    """Fetch through a throw-away HTTP mirror serving ``served`` for a file pinned to ``pinned``."""
    (d / "srv" / "g").mkdir(parents=True)
    (d / "srv" / "g" / "f.txt").write_bytes(served)
    handler = lambda *a, **k: _Quiet(*a, directory=str(d / "srv"), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        fetch_verified(d / "out" / "f.txt", sha256=hashlib.sha256(pinned).hexdigest(),
                       mirror_url=f"http://127.0.0.1:{server.server_port}/g/f.txt",
                       url=None, mirror_path=d / "no-mirror" / "f.txt", timeout=5)
    finally:
        server.shutdown()
        server.server_close()


CASES = [
    claims_case("empty file (0 bytes)", b"", ["the claims file is empty", "header line"]),
    claims_case("whitespace-only file", "  \n\n", ["the claims file is empty"]),
    claims_case("header, no rows", "task,worker,value\n", ["is empty (a header but no data"]),
    claims_case("missing column", "task,worker\nt1,w1\n", ["lacks column(s) ['value']"]),
    claims_case("wrong column names", "a,b,c\n1,2,3\n",
                ["lacks column(s) ['task', 'worker', 'value']", "found ['a', 'b', 'c']"]),
    claims_case("both alias and name", "object,task,worker,value\no,o,w,1\n",
                ["both 'object' and 'task'"]),
    claims_case("malformed row (extra field)", "task,worker,value\nt1,w1,1,9\n",
                ["malformed CSV", "as many fields"]),
    claims_case("empty task id", "task,worker,value\nt1,w1,1\n,w2,2\n",
                ["line 3", "column 'task'", "empty task id", "value ''"]),
    claims_case("whitespace-only task id", "task,worker,value\n  ,w1,1\n",
                ["line 2", "column 'task'", "empty task id", "value '  '"]),
    claims_case("empty worker id", "task,worker,value\nt1,w1,1\nt2,,2\n",
                ["line 3", "column 'worker'", "empty worker id"]),
    claims_case("space-padded worker id", "task,worker,value\nt1, w1,1\n",
                ["line 2", "column 'worker'", "leading or trailing spaces", "' w1'"]),
    claims_case("non-numeric value", "task,worker,value\nt1,w1,warm\n",
                ["line 2", "column 'value'", "not a number", "'warm'"]),
    claims_case("empty value", "task,worker,value\nt1,w1,1\nt2,w1,\n",
                ["line 3", "column 'value'", "value is empty"]),
    claims_case("NaN value", "task,worker,value\nt1,w1,nan\n",
                ["line 2", "column 'value'", "not finite", "'nan'"]),
    claims_case("+inf value", "task,worker,value\nt1,w1,inf\n", ["line 2", "not finite"]),
    claims_case("-inf value", "task,worker,value\nt1,w1,1\nt1,w2,-inf\n",
                ["line 3", "not finite", "'-inf'"]),
    claims_case("duplicate (task, worker) claim", "task,worker,value\nt1,w1,1\nt1,w1,2\n",
                ["line 3", "duplicate row for task='t1', worker='w1'", "Keep one claim"]),
    claims_case("label outside the domain", "task,worker,value\nt1,w1,5\n",
                ["line 2", "outside the label domain 0..4", "ldp_sparse.real_domain_size"],
                **LABELS),
    claims_case("non-integer label", "task,worker,value\nt1,w1,1.5\n",
                ["line 2", "outside the label domain", "1.5"], **LABELS),
    claims_case("negative label", "task,worker,value\nt1,w1,0\nt2,w1,-1\n",
                ["line 3", "outside the label domain"], **LABELS),
    truth_case("empty file", b"", ["the truth file is empty"]),
    truth_case("missing truth column", "task,gold\nt1,1\n", ["lacks column(s) ['truth']"]),
    truth_case("blank task id", "task,truth\nt1,1\n ,2\n", ["line 3", "empty task id"]),
    truth_case("NaN truth", "task,truth\nt1,NaN\n", ["line 2", "column 'truth'", "not finite"]),
    truth_case("infinite truth", "task,truth\nt1,1e999\n", ["line 2", "not finite"]),
    truth_case("duplicate truth rows", "task,truth\nt1,1\nt1,2\n",
               ["line 3", "duplicate row for task='t1'", "one truth row per task"]),
    truth_case("gold label outside the domain", "task,truth\nt1,7\n",
               ["line 2", "column 'truth'", "outside the label domain 0..4"], **LABELS),
    answer_table_case("another header", "task,worker,value\nq1,w1,0\n", GOOD_GOLD,
                      ["answer.csv", "lacks column(s) ['question', 'answer']"]),
    answer_table_case("extra column", "question,worker,answer,time\nq1,w1,0,3\n", GOOD_GOLD,
                      ["answer.csv", "line 1", "expected exactly"]),
    answer_table_case("blank question id", "question,worker,answer\nq1,w1,0\n,w1,1\n",
                      GOOD_GOLD,
                      ["answer.csv", "line 3", "column 'question'", "empty question id"]),
    answer_table_case("duplicate (question, worker)", GOOD_ANSWERS + "q1,w1,1\n", GOOD_GOLD,
                      ["answer.csv", "line 5", "duplicate row for question='q1', worker='w1'"]),
    answer_table_case("label outside K (product, K = 2)", "question,worker,answer\nq1,w1,2\n",
                      GOOD_GOLD, ["answer.csv", "line 2", "outside the label domain 0..1",
                                  "datasets.product.domain_size = 2"]),
    answer_table_case("non-integer label", "question,worker,answer\nq1,w1,0.5\n", GOOD_GOLD,
                      ["answer.csv", "line 2", "outside the label domain", "'0.5'"]),
    answer_table_case("non-finite value (emotion)", "question,worker,answer\nq1,w1,nan\n",
                      GOOD_GOLD, ["answer.csv", "line 2", "not finite"], EMOTION),
    answer_table_case("value outside value_range (emotion)",
                      "question,worker,answer\nq1,w1,101\nq2,w1,0\n", GOOD_GOLD,
                      ["answer.csv", "line 2", "outside the range [-100, 100]",
                       "datasets.emotion.value_range"], EMOTION),
    answer_table_case("truth for an unknown question", GOOD_ANSWERS, GOOD_GOLD + "q9,1\n",
                      ["truth.csv", "line 4", "column 'question'", "nobody answered", "'q9'"]),
    answer_table_case("question without truth", GOOD_ANSWERS + "q3,w1,0\n", GOOD_GOLD,
                      ["answer.csv", "line 5", "no truth row in", "'q3'"]),
    Case("custom dataset: blank id in truth", lambda d: _custom(d, GOOD_CLAIMS, "task,truth\n,1\n"),
         DataError, ["truth.csv", "line 2", "empty task id"]),
    Case("PrisCrowd: every object has one claim",
         lambda d: _priscrowd(d, "task,worker,value\nt1,w1,1\nt2,w1,2\n", GOOD_TRUTH),
         DataError, ["claims.csv", "every one of the 2 objects has a single claim"]),
    Case("PrisCrowd: no usable object has a truth",
         lambda d: _priscrowd(d, GOOD_CLAIMS, "task,truth\nt9,1\n"),
         DataError, ["truth.csv", "no object with two or more claims has a truth row"]),
    Case("LDP-sparse: no claimed task has gold",
         lambda d: _align(d, GOOD_CLAIMS, "task,truth\nt9,1\n", "any"),
         DataError, ["truth.csv", "no claimed task has a truth row"]),
    Case("PPTD: a claimed task lacks truth",
         lambda d: _align(d, GOOD_CLAIMS, "task,truth\nt1,1\n", "all"),
         DataError, ["truth.csv", "1 claimed task(s) have no truth row", "task 't2'"]),
    Case("raw file truncated after download", lambda d: _raw_copy(d, b"pinned"),
         ChecksumError, ["labels.txt", "damaged or was changed", "size 6 bytes, expected 13",
                         "Delete it and rerun"]),
    Case("raw file edited, same size", lambda d: _raw_copy(d, b"PINNED bytes\n"),
         ChecksumError, ["labels.txt", "sha256", "Delete it and rerun"]),
    Case("raw file: local mirror copy corrupt",
         lambda d: fetch_verified(d / "out" / "x.txt", sha256="0" * 64, size=3,
                                  mirror_path=_write(d, "x.txt", b"abcd")),
         ChecksumError, ["x.txt", "is not the pinned file", "size 4 bytes, expected 3"]),
    Case("raw file: no source reachable",
         lambda d: fetch_verified(d / "out" / "x.txt", sha256="0" * 64,
                                  mirror_path=d / "mirror" / "x.txt",
                                  mirror_url="http://127.0.0.1:9/g/x.txt",
                                  url=(d / "nowhere.txt").as_uri(), timeout=2),
         FileNotFoundError, ["x.txt: no source delivered the pinned file", "local mirror: no file",
                             "HTTP mirror http://127.0.0.1:9/g/x.txt", "upstream url file://",
                             "or `mirror_url` to an HTTP(S) mirror"]),
    Case("raw file: HTTP mirror serves other bytes",
         lambda d: _http_fetch(d, b"other", b"pinned"),
         ChecksumError, ["f.txt", "HTTP mirror", "delivered another file"]),
    Case("config: unknown key", _config_error(lambda c: c.update(sed=1)),
         Exception, ["'sed' was unexpected"]),
    Case("config: mirror_url not a URL", _config_error(lambda c: c.update(mirror_url="ftp://x")),
         Exception, ["'ftp://x' does not match"]),
    Case("config: epsilon <= 0",
         _config_error(lambda c: c["ldp_sparse"]["fig2"]["epsilons"].__setitem__(3, 0)),
         Exception, ["0 is less than or equal to the minimum of 0"]),
    Case("config: sha256 not 64 hex digits",
         _config_error(lambda c: c["raw"]["web"]["web_processed_data.mat"].update(sha256="ab")),
         Exception, ["'ab' does not match"]),
    Case("job: a value the code rejects, named by key path",
         _translated(lambda: _check_epsilons([0.5, 1, 2, 0.0]),
                     {"epsilon": "ldp_sparse.fig2.epsilons"},
                     {"experiment": {"epsilons": [0.5, 1, 2, 0.0]}}),
         ValueError, ["config key ldp_sparse.fig2.epsilons[3] = 0.0", "must be a finite number"]),
    Case("config, before any job: release size above m (priscrowd.fig4.m)",
         _startup_error(lambda c: c["priscrowd"]["fig4"].update(m=[1, 10, 40])),
         ValueError, ["config key priscrowd.fig4.m[2] = 40", "[1, m=30]"]),
    Case("config, before any job: Theorem 2's t not below k",
         _startup_error(lambda c: c["priscrowd"].update(t=5)),
         ValueError, ["config key priscrowd.t = 5", "1 <= t < k=5"]),
    Case("config, before any job: a range that decreases",
         _startup_error(lambda c: c["pptd"]["synthetic"].update(truth_range=[10.0, 0.0])),
         ValueError, ["config key pptd.synthetic.truth_range = [10.0, 0.0]", "increasing"]),
    Case("config, before any job: LP's NULL fill outside Γ",
         _startup_error(lambda c: c["ldp_sparse"]["mechanisms"].update(lp_null_fill=7)),
         ValueError, ["config key ldp_sparse.mechanisms.lp_null_fill = 7", "Γ = 0..4"]),
    Case("job: PPTD Fig. 7 min_claims leaves too few workers",
         _translated(lambda: _fig7_min_claims(), {"min_claims": "pptd.fig7.min_claims"},
                     {"exp": {"min_claims": 50, "shown": 7}}),
         ValueError, ["config key pptd.fig7.min_claims = 50", "leaves 0 workers"]),
]


def message_of(case: Case, folder: Path) -> str:
    """Run ``case`` in ``folder``; return its error message (raise if none or another kind)."""
    try:
        case.run(folder)
    except case.error as err:
        return str(err)
    raise AssertionError(f"{case.name}: no {case.error.__name__} raised")


def render_table() -> str:
    rows = ["| # | bad input | error | message |", "|---|---|---|---|"]
    for number, case in enumerate(CASES, 1):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                message = message_of(case, Path(tmp))
                kind = case.error.__name__
            except Exception as err:  # noqa: BLE001 - another exception kind: show it
                message, kind = str(err), type(err).__name__
            message = message.replace(tmp, "<dir>").replace(str(ROOT), "<repo>")
            message = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", message)
        message = " ".join(message.split()).replace("|", "\\|")
        if len(message) > 400:
            message = message[:400] + " …"
        rows.append(f"| {number} | {case.name} | {kind} | {message} |")
    header = (
        "# Bad inputs and the messages they get\n\n"
        "Generated by `python tests/bad_inputs.py > docs/bad_inputs.md`; every row is a test in "
        "`tests/test_bad_inputs.py` (clear message, right exception), and the end-to-end tests "
        "check the same errors through Snakemake (non-zero exit, message on the terminal, no "
        "partial output, earlier outputs untouched). Lines count the header as line 1.\n\n"
    )
    return header + "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_table())
