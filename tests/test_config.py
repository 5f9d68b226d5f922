"""The config schema: defaults validate, unknown keys and bad values are clear errors."""

from __future__ import annotations

import copy

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

REPETITION_KEYS = {"repetitions"}


def _validate(root, config):
    validate(copy.deepcopy(config), schema=str(root / "workflow/schemas/config.schema.yaml"))


def _paths_to(config, names, prefix=()):
    """Every path in the nested config whose last key is one of ``names``."""
    for key, value in config.items():
        if key in names:
            yield (*prefix, key)
        if isinstance(value, dict):
            yield from _paths_to(value, names, (*prefix, key))


def _set(config, path, value):
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def test_default_and_override_configs_validate(root, default_config):
    _validate(root, default_config)
    for override in ("config/quick.yaml", "tests/e2e/config.yaml"):
        merged = copy.deepcopy(default_config)
        _deep_update(merged, yaml.safe_load((root / override).read_text()) or {})
        _validate(root, merged)


def _deep_update(base, extra):
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _deep_update(base[key], value)
        else:
            base[key] = value


@pytest.mark.parametrize(
    "path",
    [("sed",), ("datasets", "population", "max_vlaue"), ("raw", "web", "web_processed_data.mat", "md5")],
)
def test_unknown_key_is_an_error(root, default_config, path):
    _set(default_config, path, 1)
    with pytest.raises(WorkflowError, match=f"'{path[-1]}' was unexpected"):
        _validate(root, default_config)


def test_negative_repetitions_rejected(root, default_config):
    paths = list(_paths_to(default_config, REPETITION_KEYS))
    assert paths, "the config should define repetition counts"
    for path in paths:
        broken = copy.deepcopy(default_config)
        _set(broken, path, -1)
        with pytest.raises(WorkflowError, match="-1 is less than the minimum"):
            _validate(root, broken)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("seed",), -5, "-5 is less than the minimum"),
        (("raw", "web", "web_processed_data.mat", "sha256"), "xyz", "does not match"),
        (("raw", "truth_inference_benchmark", "dog_answer.csv", "url"),
         "https://example.org/s4_Dog data/answer.csv", "does not match"),
        (("datasets", "adultcontent", "duplicate_policy"), "middle", "is not one of"),
        (("datasets", "stock_surrogate", "coverage"), [0.0, 1.0], "less than or equal to"),
        (("datasets", "indoor_surrogate", "workers"), 1, "less than the minimum"),
        (("datasets", "product", "answer_type"), "ordinal", "is not one of"),
        (("datasets", "dog", "domain_size"), 1, "less than the minimum"),
        (("datasets", "emotion", "domain_size"), 4, "should not be valid under"),
        (("datasets", "product", "value_range"), [0, 1], "should not be valid under"),
        (("datasets", "emotion", "value_range"), [0], "is too short"),
        (("datasets", "emotion", "answers_file"), "emotion_answer.csv", "does not match"),
        (("datasets", "product", "published", "tasks"), 0, "less than the minimum"),
    ],
)
def test_bad_values_named(root, default_config, path, value, message):
    _set(default_config, path, value)
    with pytest.raises(WorkflowError, match=message):
        _validate(root, default_config)


def test_categorical_dataset_needs_its_domain_size(root, default_config):
    del default_config["datasets"]["dog"]["domain_size"]
    with pytest.raises(WorkflowError, match="'domain_size' is a required property"):
        _validate(root, default_config)


def test_every_config_key_is_documented(root, default_config):
    """config/README.md names every key of config/config.yaml (raw file entries aside)."""
    import re

    doc = (root / "config/README.md").read_text()
    missing = []

    def walk(node, path):
        for key, value in node.items():
            if path[:1] == ("raw",):
                return
            if not re.search(rf"(?<![\w-]){re.escape(str(key))}(?![\w-])", doc):
                missing.append(".".join((*path, str(key))))
            if isinstance(value, dict):
                walk(value, (*path, str(key)))

    walk(default_config, ())
    assert not missing, missing
