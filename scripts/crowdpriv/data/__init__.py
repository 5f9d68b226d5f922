"""Data acquisition, dataset readers, surrogate generators and dataset statistics."""

from .acquire import ChecksumError, fetch_verified, mirror_file_url, sha256_of, verify_local_copy
from .answer_tables import ANSWER_KINDS, AnswerType, answer_type_of, read_answer_table
from .crowd_labels import read_adultcontent, read_web_mat
from .custom import import_claims_table
from .indoor import simulate_indoor
from .population import (
    filter_population_claims,
    parse_pop_tuples,
    pop_tuples_to_claims,
    read_pop_data_csv,
    read_population_truth,
)
from .stats import compare_with_paper, dataset_statistics, value_summary
from .stock import (
    STOCK_ATTRIBUTES,
    build_stock_dataset,
    parse_stock_number,
    read_clean_stock_claims,
    read_stock_gold_day,
    simulate_stock_sources,
)

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
