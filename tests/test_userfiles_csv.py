"""OutputTable's own CSV text is byte for byte what DataFrame.to_csv writes."""

import numpy as np
import pandas as pd
import pytest

from crowdpriv.userfiles import FLOAT_FORMAT, OutputTable


def pandas_text(table: OutputTable) -> str:
    return table.frame().to_csv(index=False, header=False, float_format=FLOAT_FORMAT,
                                lineterminator="\n")


@pytest.mark.parametrize("values", [
    np.array([0.1, -0.0, 1e-300, np.nan, np.inf, -np.inf, 2.0, -6.0, 1 / 3, 12345678901.5]),
    np.array([0.5, np.nan, 3.25], dtype=np.float32),
    np.array([-3, 0, 7], dtype=np.int8),
    np.array([2**40, -1, 0], dtype=np.int64),
])
def test_plain_text_matches_pandas(values):
    n = len(values)
    ids = np.array(["t1", "t 2", "t-3", "é4"] * 3, dtype=object)
    table = OutputTable([("task", np.arange(n) % 4, ids), ("worker", np.arange(n) % 3,
                                                           np.array(["w0", "w1", "w2"])),
                         ("value", values, None)])
    assert table._plain_text(0, n) == pandas_text(table)


@pytest.mark.parametrize("labels", [["a,b", "c"], ['say "hi"', "c"], ["x\ny", "c"], ["", "c"]])
def test_plain_text_leaves_quoting_to_pandas(labels):
    table = OutputTable([("task", np.array([0, 1]), np.array(labels, dtype=object)),
                         ("value", np.array([1.5, 2.0]), None)])
    assert table._plain_text(0, 2) is None
