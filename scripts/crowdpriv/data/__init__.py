"""Data acquisition, dataset readers, surrogate generators and dataset statistics.

Names are imported on first use (module ``__getattr__``), so a job that only fetches a raw
file (``crowdpriv.data.acquire``) does not pay for pandas and the readers.
"""

from __future__ import annotations

import importlib

#: Public name -> the submodule that defines it.
_WHERE = {
    "ChecksumError": "acquire",
    "fetch_verified": "acquire",
    "mirror_file_url": "acquire",
    "sha256_of": "acquire",
    "verify_local_copy": "acquire",
    "ANSWER_KINDS": "answer_tables",
    "AnswerType": "answer_tables",
    "answer_type_of": "answer_tables",
    "read_answer_table": "answer_tables",
    "read_adultcontent": "crowd_labels",
    "read_web_mat": "crowd_labels",
    "import_claims_table": "custom",
    "simulate_indoor": "indoor",
    "filter_population_claims": "population",
    "parse_pop_tuples": "population",
    "pop_tuples_to_claims": "population",
    "read_pop_data_csv": "population",
    "read_population_truth": "population",
    "compare_with_paper": "stats",
    "dataset_statistics": "stats",
    "value_summary": "stats",
    "STOCK_ATTRIBUTES": "stock",
    "build_stock_dataset": "stock",
    "parse_stock_number": "stock",
    "read_clean_stock_claims": "stock",
    "read_stock_gold_day": "stock",
    "simulate_stock_sources": "stock",
}


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "ANSWER_KINDS",
    "AnswerType",
    "answer_type_of",
    "read_answer_table",
    "ChecksumError",
    "fetch_verified",
    "mirror_file_url",
    "verify_local_copy",
    "sha256_of",
    "import_claims_table",
    "read_adultcontent",
    "read_web_mat",
    "simulate_indoor",
    "filter_population_claims",
    "parse_pop_tuples",
    "pop_tuples_to_claims",
    "read_pop_data_csv",
    "read_population_truth",
    "compare_with_paper",
    "dataset_statistics",
    "value_summary",
    "STOCK_ATTRIBUTES",
    "build_stock_dataset",
    "parse_stock_number",
    "read_clean_stock_claims",
    "read_stock_gold_day",
    "simulate_stock_sources",
]
