"""Dataset readers, preprocessing and surrogate generators (foundation issue)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from crowdpriv.data import (
    STOCK_ATTRIBUTES,
    AnswerType,
    answer_type_of,
    build_stock_dataset,
    compare_with_paper,
    dataset_statistics,
    filter_population_claims,
    parse_pop_tuples,
    pop_tuples_to_claims,
    read_adultcontent,
    read_answer_table,
    read_clean_stock_claims,
    read_pop_data_csv,
    read_population_truth,
    read_stock_gold_day,
    read_web_mat,
    simulate_indoor,
    simulate_stock_sources,
    value_summary,
)
from crowdpriv.seeds import derive_rng
from crowdpriv.tables import claims_to_matrix, read_claims
from crowdpriv.validate import DataError


# --- population -------------------------------------------------------------------------------


def test_population_filter_rules():
    claims = pd.DataFrame(
        {
            "task": ["a", "a", "a", "b", "b", "c", "c", "d"],
            "worker": ["s1", "s2", "s1", "s1", "s2", "s1", "s2", "s1"],
            "value": [10.0, 12.0, 11.0, 5.0, 5.0, 2e8, 3.0, 7.0],
        }
    )
    out = filter_population_claims(claims)
    # a: s1's later claim (11) wins; b: all equal -> dropped; c: 2e8 dropped, then one claim
    # left -> all equal -> dropped; d: single claim -> dropped.
    assert out.to_dict("list") == {"task": ["a", "a"], "worker": ["s1", "s2"], "value": [11.0, 12.0]}


def test_population_filter_rejects_bad_threshold():
    with pytest.raises(ValueError, match="max_value"):
        filter_population_claims(pd.DataFrame(columns=["task", "worker", "value"]), max_value=0)


def test_population_counts_near_paper(mirror):
    claims = filter_population_claims(read_pop_data_csv(mirror / "population" / "pop_data.csv"))
    truth = read_population_truth(mirror / "population" / "popAnswersOut.txt")
    stats = dataset_statistics(claims, truth)
    paper = {"workers": 2344, "tasks": 1124, "claims": 4008}  # PrisCrowd (Wan et al.) figures
    for key, value in paper.items():
        assert abs(stats[key] - value) / value < 0.03, (key, stats[key], value)
    assert stats["tasks_with_truth"] == 276  # REPRODUCTION_NOTES: 276 after preprocessing
    assert (claims.groupby("task")["value"].nunique() > 1).all()


def test_pop_tuples_parser_on_raw_prefix(mirror):
    tuples = parse_pop_tuples(mirror / "population" / "popTuples1.txt")
    assert len(tuples) == 4096
    assert tuples["city"].nunique() == 1241
    # the raw file itself holds a few garbage spans (years 5, 31, 1492, 3001): kept as parsed
    assert tuples["year"].between(1990, 2010).mean() > 0.98
    assert tuples["year"].value_counts().index[0] == 2000
    claims = pop_tuples_to_claims(tuples)
    assert not claims.duplicated(["task", "worker"]).any()
    assert claims["task"].str.match(r"^.+, \d+$").all()


def test_pop_tuples_year_from_two_digit_dates(tmp_path):
    line = (
        "Springfield, Illinois\tPopulation\tInfobox City\tF\tContributor #7: A\t100\t"
        "[12/31/2004 12:00:00 AM to 11/30/2005 11:59:59 PM]\t1,234\n"
    )
    later = line.replace("\t100\t", "\t200\t").replace("1,234", "1,300")
    path = tmp_path / "t.txt"
    path.write_text(later + line)  # file order is not revision order
    tuples = parse_pop_tuples(path)
    assert tuples["year"].tolist() == [2005, 2005]
    claims = pop_tuples_to_claims(tuples)
    assert claims.to_dict("list") == {
        "task": ["springfield, illinois, 2005"],
        "worker": ["contributor #7: a"],
        "value": [1300.0],
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("only\tthree\tfields\n", "expected 8 tab-separated fields"),
        ("c\tP\tI\tF\tS\t1\t[1/1/2000 x to 12/31/2000 y]\tmany\n", "non-numeric value 'many'"),
        ("c\tP\tI\tF\tS\t1\tsometime\t12\n", "malformed time span"),
    ],
)
def test_pop_tuples_bad_lines_name_the_line(tmp_path, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(line)
    with pytest.raises(ValueError, match=message) as err:
        parse_pop_tuples(path)
    assert "bad.txt:1" in str(err.value)


def test_population_truth_non_numeric(tmp_path):
    path = tmp_path / "truth.txt"
    path.write_text("gary, indiana, 2000, lots\n")
    with pytest.raises(ValueError, match="non-numeric truth value 'lots'"):
        read_population_truth(path)


# --- AdultContent and Web ---------------------------------------------------------------------


def test_adultcontent_counts(mirror):
    d = mirror / "adultcontent"
    claims, truth = read_adultcontent(d / "labels.txt", d / "gold.txt", d / "categories.txt")
    stats = dataset_statistics(claims, truth)
    assert (stats["workers"], stats["tasks"], stats["claims"]) == (825, 11040, 89799)
    assert stats["tasks_with_truth"] == 333
    assert set(claims["value"]) <= {0.0, 1.0, 2.0, 3.0}  # G, P, R, X; no B occurs
    casefold = claims.assign(task=claims["task"].str.lower())
    assert len(casefold.drop_duplicates(["task", "worker"])) == 89796  # Sun et al.'s count
    assert stats["sparsity_min"] == pytest.approx(0.316033, abs=1e-6)  # LDP-sparse Table II
    assert stats["sparsity_max"] == pytest.approx(0.999909, abs=1e-6)


def test_adultcontent_duplicate_policy(tmp_path):
    (tmp_path / "c.txt").write_text("G\nP\nR\nX\nB\n")
    (tmp_path / "l.txt").write_text("w1\tu1\tG\nw1\tu1\tX\nw2\tu1\tP\n")
    (tmp_path / "g.txt").write_text("u1\tX\nu9\tG\n")
    last, truth = read_adultcontent(tmp_path / "l.txt", tmp_path / "g.txt", tmp_path / "c.txt")
    first, _ = read_adultcontent(
        tmp_path / "l.txt", tmp_path / "g.txt", tmp_path / "c.txt", duplicate_policy="first"
    )
    assert last["value"].tolist() == [3.0, 1.0] and first["value"].tolist() == [0.0, 1.0]
    assert truth.to_dict("list") == {"task": ["u1"], "truth": [3.0]}  # u9 is not labelled
    (tmp_path / "l.txt").write_text("w1\tu1\tQ\n")
    with pytest.raises(ValueError, match=r"label\(s\) \['Q'\]"):
        read_adultcontent(tmp_path / "l.txt", tmp_path / "g.txt", tmp_path / "c.txt")
    (tmp_path / "l.txt").write_text("w1\tu1\n")
    with pytest.raises(ValueError, match="l.txt:1: malformed line"):
        read_adultcontent(tmp_path / "l.txt", tmp_path / "g.txt", tmp_path / "c.txt")


def test_web_counts(mirror):
    claims, truth = read_web_mat(mirror / "web" / "web_processed_data.mat")
    stats = dataset_statistics(claims, truth)
    assert (stats["workers"], stats["tasks"], stats["claims"]) == (177, 2665, 15567)
    assert stats["tasks_with_truth"] == 2653
    assert claims["value"].value_counts().sort_index().tolist() == [1858, 2249, 2831, 3268, 5361]


def test_web_rejects_non_mat(tmp_path):
    path = tmp_path / "web.mat"
    path.write_bytes(b"not a mat file at all")
    with pytest.raises(ValueError, match="web.mat"):
        read_web_mat(path)


# --- stock ------------------------------------------------------------------------------------


def test_clean_stock_claims_reader(root):
    claims = read_clean_stock_claims([root / "tests" / "fixtures" / "stock-2011-07-01.txt"])
    aapl_price = claims.loc[claims["task"] == "2011-07-01|aapl|last_price"]
    assert sorted(aapl_price["value"]) == [343.26, 343.26, 343.3]
    # the two yahoo-finance lines for AAPL/MSFT are two objects; empty fields make no claim
    yahoo = claims.loc[claims["worker"] == "yahoo-finance"]
    assert len(yahoo) == 14 + 16
    volume = claims.set_index(["task", "worker"]).loc[("2011-07-01|aapl|volume", "nasdaq-com")]
    assert volume["value"] == 15447286.0


def test_clean_stock_reader_errors(tmp_path):
    path = tmp_path / "stock-2011-07-05.txt"
    path.write_text("src\tAAPL\t" + "\t".join(["1"] * 15) + "\n")
    with pytest.raises(ValueError, match="expected 18 tab-separated fields"):
        read_clean_stock_claims([path])
    path.write_text("src\tAAPL\t" + "\t".join(["1"] * 15 + ["abc"]) + "\n")
    with pytest.raises(ValueError, match="non-numeric value 'abc' for eps"):
        read_clean_stock_claims([path])


def test_stock_gold_day_and_surrogate(mirror):
    days = ["2011-07-01", "2011-07-04"]
    paths = [mirror / "stock" / "random_truth" / f"stock-{d}-random-truth.txt" for d in days]
    gold = read_stock_gold_day(paths[0].read_text(), days[0])
    assert gold["symbol"].nunique() == 200
    assert set(gold["attribute"]) <= set(STOCK_ATTRIBUTES)
    cfg = {
        "claims_from": "surrogate", "gold_days": days, "workers": 55, "coverage": [0.3, 1.0],
        "rounding_rel_sd": 0.002, "stale_rate": 0.05, "scale_rate": 0.02, "wrong_rate": 0.04,
        "wrong_log_sd": 0.5, "scale_factors": [1e3, 1e6, 1e-3], "quality_shape": 1.0,
    }
    claims, truth, sources = build_stock_dataset(paths, cfg, rng=derive_rng(1, "stock"))
    assert claims["worker"].nunique() == 55 and len(sources) == 55
    assert abs(len(truth) - 5521) / 5521 < 0.03  # PrisCrowd's 5,521 objects
    assert claims.groupby("task").size().min() >= 2
    # stale claims on 07-04 equal the 07-01 gold value of the same symbol and attribute
    stale = claims.loc[(claims["kind"] == "stale") & claims["task"].str.startswith(days[1])]
    prev = gold.set_index("task")["truth"]
    keys = stale["task"].str.replace(days[1], days[0])
    known = keys.isin(prev.index)
    assert known.mean() > 0.9
    np.testing.assert_allclose(stale.loc[known, "value"], prev.loc[keys[known]].to_numpy())
    again, _, _ = build_stock_dataset(paths, cfg, rng=derive_rng(1, "stock"))
    pd.testing.assert_frame_equal(claims, again)


def test_stock_surrogate_error_mix():
    gold = pd.DataFrame({"task": [f"o{i}" for i in range(4000)], "truth": np.full(4000, 50.0)})
    claims, _ = simulate_stock_sources(
        gold, np.full(4000, 49.0), n_workers=20, coverage=(1.0, 1.0), stale_rate=0.1,
        scale_rate=0.05, wrong_rate=0.05, quality_shape=1e6, rng=np.random.default_rng(3),
    )
    share = claims["kind"].value_counts(normalize=True)
    assert share["stale"] == pytest.approx(0.1, abs=0.01)
    assert share["scale"] == pytest.approx(0.05, abs=0.01)
    assert share["wrong"] == pytest.approx(0.05, abs=0.01)
    rounding = claims.loc[claims["kind"] == "rounding", "value"]
    assert (rounding - 50.0).abs().max() < 50.0 * 0.002 * 6
    with pytest.raises(ValueError, match="workers"):
        simulate_stock_sources(gold, np.zeros(4000), n_workers=1, rng=np.random.default_rng(0))


# --- indoor surrogate -------------------------------------------------------------------------


def test_indoor_surrogate_shape_and_determinism():
    claims, truth, users = simulate_indoor(rng=derive_rng(7, "indoor"))
    assert claims["worker"].nunique() == 247 and claims["task"].nunique() == 129
    assert len(truth) == 129 and len(users) == 247
    assert claims.groupby("task").size().min() >= 2
    per_user = claims.groupby("worker").size()
    assert per_user.max() > 5 * per_user.median()  # long tail of walked segments
    assert (claims["value"] > 0).all()
    again, _, _ = simulate_indoor(rng=derive_rng(7, "indoor"))
    pd.testing.assert_frame_equal(claims, again)


def test_indoor_surrogate_validates():
    with pytest.raises(ValueError, match="workers"):
        simulate_indoor(n_workers=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="length_range"):
        simulate_indoor(length_range=(5.0, 1.0), rng=np.random.default_rng(0))


# --- tidy tables ------------------------------------------------------------------------------


def test_read_claims_rejects_non_numeric(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("object,source,value\no1,s1,3.5\no1,s2,three\n")
    with pytest.raises(ValueError, match="line 3, column 'value': value is not a number.*'three'"):
        read_claims(path)


def test_claims_matrix_and_sparsity():
    claims = pd.DataFrame(
        {"task": ["a", "b", "a"], "worker": ["s1", "s1", "s2"], "value": [1.0, 2.0, 3.0]}
    )
    matrix = claims_to_matrix(claims)
    np.testing.assert_array_equal(matrix.values, [[1.0, 2.0], [3.0, np.nan]])
    stats = dataset_statistics(claims, pd.DataFrame({"task": ["a"], "truth": [1.0]}))
    assert (stats["sparsity_min"], stats["sparsity_max"], stats["sparsity_avg"]) == (0.0, 0.5, 0.25)
    with pytest.raises(ValueError, match="duplicate claim for task 'a' by worker 's1'"):
        claims_to_matrix(pd.concat([claims, claims.iloc[:1]]))


# --- Zheng et al.'s truth-inference benchmark: product, dog, emotion ---------------------------

TI_SPECS = {
    "product": AnswerType("categorical", 2, key="datasets.product"),
    "dog": AnswerType("categorical", 4, key="datasets.dog"),
    "emotion": AnswerType("continuous", value_range=(-100, 100), key="datasets.emotion"),
}


def _source_md_counts(mirror):
    """{dataset: (answers, tasks, workers, truths)} from the group's SOURCE.md table."""
    import re

    text = (mirror / "truth_inference_benchmark" / "SOURCE.md").read_text()
    rows = re.findall(r"^\| (product|emotion|dog) \| [^|]+ \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| "
                      r"([\d,]+) \|", text, flags=re.M)
    return {name: tuple(int(n.replace(",", "")) for n in counts) for name, *counts in rows}


@pytest.mark.parametrize("name", sorted(TI_SPECS))
def test_truth_inference_counts_equal_source_md(mirror, name):
    """Answers, tasks, workers and truths of each dataset are SOURCE.md's (measured there with
    plain Python); every task has a truth; labels and values as SOURCE.md describes them."""
    counts = _source_md_counts(mirror)
    assert sorted(counts) == ["dog", "emotion", "product"]
    folder = mirror / "truth_inference_benchmark"
    claims, truth = read_answer_table(folder / f"{name}_answer.csv", folder / f"{name}_truth.csv",
                                      TI_SPECS[name])
    stats = dataset_statistics(claims, truth)
    ours = (stats["claims"], stats["tasks"], stats["workers"], len(truth))
    assert ours == counts[name]
    assert stats["tasks_with_truth"] == stats["tasks"] == len(truth)
    assert list(claims.columns) == ["task", "worker", "value"]
    assert list(truth.columns) == ["task", "truth"]
    summary = value_summary(claims, TI_SPECS[name])
    if name == "product":  # SOURCE.md: 19,834 zeros, 5,111 ones
        assert summary["label_counts"] == "0: 19834; 1: 5111"
    elif name == "dog":
        assert set(claims["value"]) == set(truth["truth"]) == {0.0, 1.0, 2.0, 3.0}
    else:
        assert (summary["value_min"], summary["value_max"]) == (-100.0, 100.0)
        assert not np.signbit(claims["value"].to_numpy()[claims["value"].to_numpy() == 0]).any()


GOOD_ANSWERS = "question,worker,answer\nq2,w1,1\nq1,w1,0\nq1,w2,1\n"
GOOD_GOLD = "question,truth\nq1,1\nq2,0\n"


def _ti(tmp_path, answers=GOOD_ANSWERS, gold=GOOD_GOLD, spec=TI_SPECS["product"]):
    (tmp_path / "answer.csv").write_text(answers)
    (tmp_path / "truth.csv").write_text(gold)
    return read_answer_table(tmp_path / "answer.csv", tmp_path / "truth.csv", spec)


def test_truth_inference_reader_holds_on_a_good_pair(tmp_path):
    claims, truth = _ti(tmp_path)
    assert claims.to_dict("list") == {"task": ["q1", "q1", "q2"], "worker": ["w1", "w2", "w1"],
                                      "value": [0.0, 1.0, 1.0]}
    assert truth.to_dict("list") == {"task": ["q1", "q2"], "truth": [1.0, 0.0]}
    claims, _ = _ti(tmp_path, "question,worker,answer\nq1,w1,-0\nq2,w1,-100\n",
                    "question,truth\nq1,100\nq2,-0\n", TI_SPECS["emotion"])
    assert claims["value"].tolist() == [0.0, -100.0] and not np.signbit(claims["value"][0])


# Each check: an input it lets through (holds) and one it stops (fails), with the message's
# file, line, column and value. (spec, good answers, good truth, bad answers, bad truth, file,
# fragments.)
_P, _E = TI_SPECS["product"], TI_SPECS["emotion"]
TI_CHECKS = {
    "answers header": (_P, GOOD_ANSWERS, None, "task,worker,value\nq1,w1,0\n", None, "answer.csv",
                       ["lacks column(s) ['question', 'answer']",
                        "found ['task', 'worker', 'value']",
                        "Name the header question, worker, answer"]),
    "extra column": (_P, GOOD_ANSWERS, None, "question,worker,answer,time\nq1,w1,0,3\n", None,
                     "answer.csv", ["line 1", "expected exactly ['question', 'worker', 'answer']",
                                    "'question,worker,answer,time'"]),
    "truth header": (_P, None, GOOD_GOLD, None, "question,gold\nq1,1\n", "truth.csv",
                     ["lacks column(s) ['truth']"]),
    "blank question id": (_P, "question,worker,answer\nq1,w1,0\nq2,w1,1\n", None,
                          "question,worker,answer\nq1,w1,0\n,w1,1\n", None, "answer.csv",
                          ["line 3", "column 'question'", "empty question id", "value ''"]),
    "blank worker id": (_P, None, None, "question,worker,answer\nq1,w1,0\nq2, ,1\n", None,
                        "answer.csv", ["line 3", "column 'worker'", "empty worker id"]),
    "duplicate (question, worker)": (
        _P, "question,worker,answer\nq1,w1,0\nq1,w2,0\nq2,w1,1\n", None,
        "question,worker,answer\nq1,w1,0\nq2,w1,1\nq1,w1,1\n", None, "answer.csv",
        ["line 4", "duplicate row for question='q1', worker='w1'"]),
    "label above K-1": (_P, "question,worker,answer\nq1,w1,1\nq2,w1,0\n", None,
                        "question,worker,answer\nq1,w1,2\nq2,w1,0\n", None, "answer.csv",
                        ["line 2", "column 'answer'", "outside the label domain 0..1",
                         "datasets.product.domain_size = 2", "value '2'"]),
    "non-integer label": (_P, "question,worker,answer\nq1,w1,1.0\nq2,w1,0\n", None,
                          "question,worker,answer\nq1,w1,0.5\nq2,w1,0\n", None, "answer.csv",
                          ["line 2", "column 'answer'", "value '0.5'"]),
    "non-finite answer": (_E, "question,worker,answer\nq1,w1,3\nq2,w1,-3\n", None,
                          "question,worker,answer\nq1,w1,3\nq2,w1,inf\n", None, "answer.csv",
                          ["line 3", "column 'answer'", "not finite", "'inf'"]),
    "non-numeric answer": (_E, None, None, "question,worker,answer\nq1,w1,yes\nq2,w1,1\n", None,
                           "answer.csv", ["line 2", "column 'answer'", "not a number", "'yes'"]),
    "value outside value_range": (
        _E, "question,worker,answer\nq1,w1,100\nq2,w1,-100\n", None,
        "question,worker,answer\nq1,w1,100\nq2,w1,-101\n", None, "answer.csv",
        ["line 3", "column 'answer'", "outside the range [-100, 100]",
         "datasets.emotion.value_range", "value '-101'"]),
    "truth label out of domain": (_P, None, "question,truth\nq1,1\nq2,0\n", None,
                                  "question,truth\nq1,1\nq2,3\n", "truth.csv",
                                  ["line 3", "column 'truth'", "outside the label domain 0..1"]),
    "duplicate truth": (_P, None, None, None, "question,truth\nq1,1\nq2,0\nq1,0\n", "truth.csv",
                        ["line 4", "duplicate row for question='q1'", "one truth row"]),
    "truth for an unknown question": (
        _P, None, None, None, "question,truth\nq1,1\nq2,0\nq9,1\n", "truth.csv",
        ["line 4", "column 'question'", "nobody answered", "value 'q9'"]),
    "question without truth": (
        _P, None, None, "question,worker,answer\nq2,w1,1\nq1,w1,0\nq3,w2,1\n", None, "answer.csv",
        ["line 4", "column 'question'", "no truth row in", "truth.csv", "value 'q3'"]),
}


@pytest.mark.parametrize("check", sorted(TI_CHECKS))
def test_truth_inference_reader_check_holds_and_fails(tmp_path, check):
    spec, good_a, good_t, bad_a, bad_t, file, fragments = TI_CHECKS[check]
    good_a = good_a or (GOOD_ANSWERS if spec is _P else "question,worker,answer\nq1,w1,5\n"
                        "q2,w1,-5\n")
    good_t = good_t or (GOOD_GOLD if spec is _P else "question,truth\nq1,5\nq2,-5\n")
    claims, truth = _ti(tmp_path, good_a, good_t, spec)  # holds
    assert len(claims) == good_a.count("\n") - 1 and len(truth) == good_t.count("\n") - 1
    with pytest.raises(DataError) as err:  # fails
        _ti(tmp_path, bad_a or good_a, bad_t or good_t, spec)
    message = str(err.value)
    assert str(tmp_path / file) in message
    missing = [f for f in fragments if f not in message]
    assert not missing, (missing, message)


def test_answer_type_of_reads_the_config_block():
    config = {"datasets": {"product": {"answer_type": "categorical", "domain_size": 2},
                           "emotion": {"answer_type": "continuous", "value_range": [-100, 100]},
                           "web": {}}}
    product = answer_type_of(config, "product")
    assert (product.kind, product.domain_size, product.value_range) == ("categorical", 2, None)
    emotion = answer_type_of(config, "emotion")
    assert (emotion.kind, emotion.domain_size, emotion.value_range) == ("continuous", None,
                                                                        (-100.0, 100.0))
    assert AnswerType(**emotion.to_dict()) == emotion
    with pytest.raises(ValueError, match=r"datasets.web declares no answer_type .*'emotion', "
                                         r"'product'"):
        answer_type_of(config, "web")
    with pytest.raises(ValueError, match="dataset 'nope' has no block"):
        answer_type_of(config, "nope")
    config["datasets"]["product"]["domain_size"] = 1
    with pytest.raises(ValueError, match="datasets.product.domain_size must be an integer >= 2"):
        answer_type_of(config, "product")
    config["datasets"]["emotion"]["value_range"] = [5, 5]
    with pytest.raises(ValueError, match=r"datasets.emotion.value_range must be finite"):
        answer_type_of(config, "emotion")
    with pytest.raises(ValueError, match="answer_type must be one of"):
        AnswerType("ordinal")


def test_published_numbers_from_config_beside_ours():
    """compare_with_paper takes a dataset's paper numbers from its config block: equal counts
    give no note, a differing one is named, null counts (unverified) show the block's note."""
    stats = pd.DataFrame([{"dataset": "product", "workers": 176, "tasks": 8315, "claims": 24945,
                           "sparsity_min": 0.6, "sparsity_max": 0.99, "sparsity_avg": 0.98}])
    paper = pd.DataFrame(columns=["paper", "dataset", "sources", "objects", "claims",
                                  "sparsity_max", "sparsity_min", "sparsity_avg", "note"])
    block = {"paper": "Zheng et al. 2017", "table": "Table 5", "tasks": 8315, "claims": 24945,
             "workers": 176, "note": "unverified"}
    same = compare_with_paper(stats, paper, published={"product": block}).iloc[0]
    assert same["paper"] == "Zheng et al. 2017" and same["note"] == ""
    assert (same["paper_tasks"], same["paper_claims"], same["paper_workers"]) == (8315, 24945, 176)
    other = compare_with_paper(stats, paper, published={"product": {**block, "workers": 170}})
    assert other.iloc[0]["note"].startswith("workers 176 vs paper 170. unverified")
    assert other.iloc[0]["rel_diff_workers"] == pytest.approx(6 / 170)
    unknown = {**block, "tasks": None, "claims": None, "workers": None}
    none = compare_with_paper(stats, paper, published={"product": unknown}).iloc[0]
    assert none["note"] == "unverified" and pd.isna(none["paper_tasks"])
    assert compare_with_paper(stats, paper).iloc[0][["paper", "note"]].tolist() == ["", ""]


def test_benchmark_datasets_declare_type_and_k_in_config(default_config, mirror):
    """The default config declares what the benchmark stage needs: product K = 2, dog K = 4,
    emotion continuous in [-100, 100]; and the mirror's files agree with the declaration."""
    declared = {name: answer_type_of(default_config, name) for name in TI_SPECS}
    assert {n: (s.kind, s.domain_size, s.value_range) for n, s in declared.items()} == {
        "product": ("categorical", 2, None), "dog": ("categorical", 4, None),
        "emotion": ("continuous", None, (-100.0, 100.0))}
    folder = mirror / "truth_inference_benchmark"
    for name, spec in declared.items():
        block = default_config["datasets"][name]
        assert block["answers_file"] == f"truth_inference_benchmark/{name}_answer.csv"
        assert block["truth_file"] == f"truth_inference_benchmark/{name}_truth.csv"
        read_answer_table(folder / f"{name}_answer.csv", folder / f"{name}_truth.csv", spec)
    with pytest.raises(DataError, match="outside the label domain 0..2"):  # dog is not K = 3
        read_answer_table(folder / "dog_answer.csv", folder / "dog_truth.csv",
                          AnswerType("categorical", 3, key="datasets.dog"))


# --- the table checks give what a per-row check gives (crowdpriv.validate) --------------------


def _per_row_id_problem(ids):
    """The per-row id check the distinct-id one replaced: (problem, count, first row) or None."""
    ids = pd.Series(ids).astype(str)
    stripped = ids.str.strip()
    for bad, problem in (((stripped == "").to_numpy(), "empty"),
                         ((stripped != ids).to_numpy(), "leading or trailing spaces")):
        rows = np.flatnonzero(bad)
        if rows.size:
            return problem, rows.size, rows[0]
    return None


@pytest.mark.parametrize("ids", [
    ["a", "b", "a"], ["a", None, "b"], ["a", "", "a", ""], ["a", " a", "b", " a"],
    ["x", "y\u00a0", "y\u00a0"], ["1", "2", " "], [None, None],
])
def test_check_ids_reports_what_a_per_row_check_reports(ids):
    from crowdpriv.validate import DataError, check_ids

    expected = _per_row_id_problem(ids)
    df = pd.DataFrame({"task": ids})
    if expected is None:
        check_ids(df, "t.csv", ["task"])
        return
    problem, count, row = expected
    with pytest.raises(DataError, match=f"{problem}.*\\({count} row\\(s\\) in all\\).*") as err:
        check_ids(df, "t.csv", ["task"])
    assert f"line {row + 2}" in str(err.value)


@pytest.mark.parametrize("cells", [
    ["-0", "\u00a01"], ["-0", " 1.5"], ["1", " 2 ", "3"], ["1e3", "nan"], ["1", "x", "\u00a0"],
    [" inf", "2"], ["-0", "1"],
])
def test_parse_finite_parses_as_the_stripped_column(cells):
    """The same floats, signs of zero included, and the same first bad row as parsing the
    stripped column (what every cell was parsed as before)."""
    from crowdpriv.validate import DataError, parse_finite

    df = pd.DataFrame({"value": cells})
    reference = pd.to_numeric(df["value"].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(reference))
    if bad.size:
        with pytest.raises(DataError, match=f"line {bad[0] + 2}.*\\({bad.size} row\\(s\\)"):
            parse_finite(df, "c.csv", "value")
        return
    got = parse_finite(df, "c.csv", "value")
    assert np.array_equal(got, reference) and np.array_equal(np.signbit(got),
                                                             np.signbit(reference))


@pytest.mark.parametrize("rows", [
    [("a", "s1"), ("a", "s2"), ("a", "s1"), ("b", "s1"), ("a", "s1")],
    [("a", "s1")], [("a", None), ("a", None), ("b", "s")], [],
])
def test_repeated_keys_are_found_as_pandas_finds_them(rows):
    from crowdpriv.validate import _duplicated

    df = pd.DataFrame(rows, columns=["task", "worker"])
    assert np.array_equal(_duplicated(df, ["task", "worker"]),
                          df.duplicated(["task", "worker"]).to_numpy())
