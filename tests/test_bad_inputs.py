"""Every bad input of tests/bad_inputs.py gets a clear error; docs/bad_inputs.md is current."""

from __future__ import annotations

import pytest

from bad_inputs import CASES, ROOT, message_of, render_table


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_gets_a_clear_message(case, tmp_path):
    message = message_of(case, tmp_path)
    missing = [fragment for fragment in case.expect if fragment not in message]
    assert not missing, f"{case.name}: {missing} not in {message!r}"


def test_at_least_thirty_bad_inputs_are_catalogued():
    assert len(CASES) >= 30 and len({c.name for c in CASES}) == len(CASES)


def test_docs_table_is_current():
    """docs/bad_inputs.md is what `python tests/bad_inputs.py` prints today."""
    assert (ROOT / "docs/bad_inputs.md").read_text() == render_table()
