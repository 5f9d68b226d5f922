"""The command line never destroys a user's file and never leaves a partial one (issue 26).

Every case runs ``crowdpriv.cli.main`` in process on small files: a bad input or flag gets one
line naming the flag or file, line, column and value, exit status 2, and leaves no file; an
output that is an input (or another output) is refused and the input's bytes are unchanged; an
interrupt or a full disk in the middle of writing leaves nothing behind.
"""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from crowdpriv import cli, files


@pytest.fixture()
def work(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "docs/examples", tmp_path / "ex")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _digest(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run(capsys, *argv):
    code = cli.main(list(argv))
    err = capsys.readouterr().err
    return code, err


A, C = "ex/answers.csv", "ex/claims.csv"

CASES = [
    # (name, argv, fragments of the one error line)
    ("output is the input", ["perturb", "rr", A, "-o", A, "--epsilon", "1", "--domain", "5"],
     ["output ex/answers.csv is the input ex/answers.csv"]),
    ("output is the input through another path",
     ["perturb", "rr", A, "-o", "ex/../ex/answers.csv", "--epsilon", "1", "--domain", "5"],
     ["is the input"]),
    ("infer output is the input", ["infer", "crh", C, "-o", C], ["is the input"]),
    ("output is a folder", ["perturb", "rr", A, "-o", "ex", "--epsilon", "1", "--domain", "5"],
     ["output ex is a folder"]),
    ("output folder is missing",
     ["perturb", "rr", A, "-o", "nowhere/out.csv", "--epsilon", "1", "--domain", "5"],
     ["does not exist; create it first"]),
    ("input missing", ["perturb", "rr", "missing.csv", "-o", "o.csv", "--epsilon", "1",
                       "--domain", "5"], ["missing.csv: answers file not found"]),
    ("input is a folder", ["perturb", "rr", "ex", "-o", "o.csv", "--epsilon", "1",
                           "--domain", "5"], ["ex: is a folder"]),
    ("epsilon zero", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "0", "--domain", "5"],
     ["--epsilon 0.0", "finite number > 0"]),
    ("epsilon -inf", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "-inf", "--domain", "5"],
     ["--epsilon -inf"]),
    ("epsilon nan", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "nan", "--domain", "5"],
     ["--epsilon", "nan"]),
    ("epsilon 1e308 (LP)", ["perturb", "lp", A, "-o", "o.csv", "--epsilon", "1e308",
                            "--domain", "5"], ["--epsilon 1e+308", "too large"]),
    ("epsilon 1e308 (PPTD)", ["perturb", "pptd", C, "-o", "o.csv", "--epsilon", "1e308",
                              "--lambda1", "2", "--allow-unsafe"], ["--epsilon 1e+308"]),
    ("seed negative", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1", "--domain", "5",
                       "--seed", "-1"], ["--seed", "-1", ">= 0"]),
    ("domain missing", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1"],
     ["needs --domain"]),
    ("domain 1", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1", "--domain", "1"],
     ["--domain 1", "integer >= 2"]),
    ("domain too large", ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1", "--domain",
                          "1000000000"], ["--domain 1000000000", "63 labels"]),
    ("domain smaller than the labels",
     ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1", "--domain", "3"],
     ["answers.csv, line", "column 'label'", "outside the label domain 0..2"]),
    ("lambda1 missing", ["perturb", "pptd", C, "-o", "o.csv", "--epsilon", "1"],
     ["needs --lambda1"]),
    ("a flag the mechanism does not use",
     ["perturb", "rr", A, "-o", "o.csv", "--epsilon", "1", "--domain", "5", "--lambda1", "2"],
     ["--lambda1 is not a setting of rr"]),
    ("another flag the mechanism does not use",
     ["perturb", "two-layer", A, "-o", "o.csv", "--epsilon", "1", "--domain", "5", "--d", "3"],
     ["--d is not a setting of two-layer"]),
    ("t not below k", ["synthesize", C, "-o", "o.csv", "--k", "5", "--t", "5",
                       "--allow-unsafe"], ["--t 5", "1 <= t < k=5"]),
    ("unsafe release without the flag",
     ["perturb", "mf", A, "-o", "o.csv", "--epsilon", "1", "--domain", "5"],
     ["ε = ∞", "--allow-unsafe"]),
    ("audit samples too few", ["audit", "rr", "-o", "o.csv", "--epsilon", "1", "--samples",
                               "5"], ["--samples", "at least 100"]),
]


@pytest.mark.parametrize("name, argv, fragments", CASES, ids=[c[0] for c in CASES])
def test_a_bad_command_gets_one_line_and_leaves_every_file_as_it_was(work, capsys, name, argv,
                                                                      fragments):
    before = _digest(work)
    code, err = run(capsys, *argv)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("crowdpriv: "), err
    missing = [f for f in fragments if f not in err]
    assert not missing, (missing, err)
    assert "Traceback" not in err
    assert _digest(work) == before  # nothing written, nothing changed


def _table(work, name, text):
    path = work / name
    path.write_text(text)
    return path.name


@pytest.mark.parametrize("text, fragments", [
    ("", ["the answers file is empty"]),
    ("task,worker,label\n", ["empty (a header but no data rows)"]),
    ("task,worker\nt1,w1\n", ["lacks column(s) ['label or value']"]),
    ("task,worker,label,value\nt1,w1,1,1\n", ["both 'label' and 'value'"]),
    ("task,worker,label\nt1,w1,1\nt1,w1,2\n", ["line 3", "duplicate row for task='t1'"]),
    ("task,worker,label\nt1, w1,1\n", ["line 2", "column 'worker'", "leading or trailing"]),
    ("task,worker,label\n,w1,1\n", ["line 2", "column 'task'", "empty task id"]),
    ("task,worker,label\nt1,w1,x\n", ["line 2", "column 'label'", "not a number", "'x'"]),
    ("task,worker,label\nt1,w1,\n", ["line 2", "column 'label'", "empty"]),
    ("task,worker,label\nt1,w1,1,9\n", ["malformed CSV"]),
    (b"task,worker,label\nt1,w\xff1,1\n", ["not UTF-8"]),
])
def test_a_bad_answers_file_names_file_line_column_and_value(work, capsys, text, fragments):
    path = work / "bad.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    before = _digest(work)
    code, err = run(capsys, "perturb", "rr", "bad.csv", "-o", "o.csv", "--epsilon", "1",
                    "--domain", "5")
    assert code == 2 and "bad.csv" in err, err
    assert all(f in err for f in fragments), (fragments, err)
    assert _digest(work) == before


def test_extra_outputs_may_not_be_the_input(work, capsys):
    """infer writes <stem>.weights.csv beside its output: that file may not be the input."""
    shutil.copy(work / C, work / "truths.weights.csv")
    before = _digest(work)
    code, err = run(capsys, "infer", "crh", "truths.weights.csv", "-o", "truths.csv")
    assert code == 2 and "truths.weights.csv is the input" in err, err
    assert _digest(work) == before


def test_a_ledger_may_not_overwrite_the_input(work, capsys):
    shutil.copy(work / A, work / "out.csv.privacy.json")
    before = _digest(work)
    code, err = run(capsys, "perturb", "rr", "out.csv.privacy.json", "-o", "out.csv",
                    "--epsilon", "1", "--domain", "5")
    assert code == 2 and "is the input" in err
    assert _digest(work) == before


@pytest.mark.parametrize("fault, code, words", [
    (KeyboardInterrupt(), 130, "interrupted; nothing was written"),
    (OSError(errno.ENOSPC, "No space left on device"), 2, "No space left on device"),
    (PermissionError(errno.EACCES, "Permission denied"), 2, "Permission denied"),
    (OSError(errno.EROFS, "Read-only file system"), 2, "Read-only file system"),
])
def test_an_interrupt_or_a_write_error_mid_way_leaves_no_file(work, capsys, monkeypatch, fault,
                                                               code, words):
    calls = {"n": 0}
    real = files.CsvWriter.write

    def failing(self, text, rows=0):
        calls["n"] += 1
        if calls["n"] == 2:  # after the header, in the middle of the data
            raise fault
        return real(self, text, rows)

    monkeypatch.setattr(files.CsvWriter, "write", failing)
    before = _digest(work)
    got, err = run(capsys, "perturb", "lp", A, "-o", "out.csv", "--epsilon", "1", "--domain",
                   "5", "--seed", "1")
    assert got == code and words in err, err
    assert _digest(work) == before  # no out.csv, no ledger, no temporary file


def test_an_old_ledger_never_describes_new_data(work, capsys):
    code, _ = run(capsys, "perturb", "rr", A, "-o", "out.csv", "--epsilon", "1", "--domain",
                  "5", "--seed", "1")
    assert code == 0
    first = json.loads((work / "out.csv.privacy.json").read_text())
    code, _ = run(capsys, "perturb", "rr", A, "-o", "out.csv", "--epsilon", "2", "--domain",
                  "5", "--seed", "2")
    second = json.loads((work / "out.csv.privacy.json").read_text())
    assert code == 0 and second["data"]["sha256"] != first["data"]["sha256"]
    from crowdpriv.ledger import read_ledger

    assert read_ledger(work / "out.csv")["parameters"]["epsilon"] == 2.0
    # infer notes a stale ledger and does not use it
    (work / "out.csv").write_text((work / "out.csv").read_text() + "t99,w99,1\n")
    code, err = run(capsys, "infer", "out.csv", "-o", "t.csv")
    assert code == 0 and "describes other data" in err and "not used" in err
    ledger = json.loads((work / "t.csv.privacy.json").read_text())
    assert ledger["known_release"] is None and ledger["mechanism"] == "ds"  # naive default
    # fails: with the ledger intact, the default is the mechanism-aware one
    code, _ = run(capsys, "perturb", "rr", A, "-o", "fresh.csv", "--epsilon", "1", "--domain",
                  "5", "--seed", "3")
    code, err = run(capsys, "infer", "fresh.csv", "-o", "t2.csv")
    ledger = json.loads((work / "t2.csv.privacy.json").read_text())
    assert code == 0 and ledger["known_release"]["mechanism"] == "rr-exact"  # the sampler that ran
    assert ledger["mechanism"] == "aware-one-coin-ds" and "not used" not in err


def test_api_inputs_with_missing_ids_or_labels_get_their_row(work):
    import crowdpriv
    from crowdpriv.validate import DataError

    frame = pd.DataFrame({"task": ["t1", None], "worker": ["w1", "w2"], "label": [1, 2]})
    with pytest.raises(DataError, match="task is missing"):
        crowdpriv.perturb(frame, "rr", epsilon=1.0, domain=5)
    frame = pd.DataFrame({"task": ["t1", "t2"], "worker": ["w1", "w2"], "label": [1, float("nan")]})
    with pytest.raises(DataError, match="label is (missing|not finite)"):
        crowdpriv.perturb(frame, "rr", epsilon=1.0, domain=5)


def test_a_read_only_output_folder_gets_one_line_and_no_file(work, capsys, monkeypatch):
    """A folder that refuses new files (read-only, as a read-only results folder): the
    temporary file cannot be created; one line names the output, nothing is written."""
    import builtins

    def refuse(path, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(files, "open", refuse, raising=False)  # every writer of crowdpriv.files
    before = _digest(work)
    got, err = run(capsys, "perturb", "rr", A, "-o", "out.csv", "--epsilon", "1", "--domain",
                   "5", "--seed", "1")
    assert got == 2 and "cannot write out.csv: Read-only file system; nothing was written" in err
    assert len([ln for ln in err.splitlines() if "warning" not in ln]) == 1, err
    assert _digest(work) == before
