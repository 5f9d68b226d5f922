"""Data acquisition: mirror copy, download, sha256 verification, no partial output."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from crowdpriv.data import ChecksumError, fetch_verified, sha256_of


def _file(tmp_path, name="data.txt", content=b"hello crowd\n"):
    path = tmp_path / name
    path.write_bytes(content)
    return path, hashlib.sha256(content).hexdigest()


def test_mirror_copy_verified(tmp_path):
    source, digest = _file(tmp_path)
    dest = tmp_path / "out" / "data.txt"
    assert fetch_verified(dest, sha256=digest, mirror_path=source) == "mirror"
    assert dest.read_bytes() == source.read_bytes() and sha256_of(dest) == digest


def test_download_when_mirror_missing(tmp_path):
    source, digest = _file(tmp_path)
    dest = tmp_path / "out" / "data.txt"
    origin = fetch_verified(
        dest, sha256=digest, url=source.as_uri(), mirror_path=tmp_path / "absent.txt"
    )
    assert origin == "download" and dest.read_bytes() == source.read_bytes()


def test_checksum_mismatch_leaves_nothing(tmp_path):
    source, digest = _file(tmp_path)
    wrong = "0" * 64
    dest = tmp_path / "out" / "data.txt"
    with pytest.raises(ChecksumError) as err:
        fetch_verified(dest, sha256=wrong, mirror_path=source)
    message = str(err.value)
    assert "data.txt" in message and wrong in message and digest in message
    assert "replace it" in message.lower()  # says what to do
    assert list((tmp_path / "out").iterdir()) == []  # no partial or temporary file


def test_missing_everywhere_names_file_hash_and_remedy(tmp_path):
    digest = "a" * 64
    dest = tmp_path / "out" / "labels.txt"
    with pytest.raises(FileNotFoundError) as err:
        fetch_verified(dest, sha256=digest, mirror_path=tmp_path / "mirror" / "labels.txt")
    assert "labels.txt" in str(err.value) and digest in str(err.value)
    assert "mirror_dir" in str(err.value) or "Put the file" in str(err.value)
    with pytest.raises(FileNotFoundError, match="upstream url file://.*nowhere.txt"):
        fetch_verified(dest, sha256=digest, url=(tmp_path / "nowhere.txt").as_uri())
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_bad_sha256_in_config(tmp_path):
    source, _ = _file(tmp_path)
    with pytest.raises(ValueError, match="64 hex digits"):
        fetch_verified(tmp_path / "x", sha256="abc", mirror_path=source)


def test_download_of_a_quoted_url_with_a_space(tmp_path):
    """Upstream paths with a space (zhydhkcws/crowd_truth_infer's `s4_Dog data`) are fetched
    through their URL-quoted form (%20), as config lists them."""
    folder = tmp_path / "s4_Dog data"
    folder.mkdir()
    source, digest = _file(folder, "answer.csv", b"question,worker,answer\n1,1,3\n")
    assert "%20" in source.as_uri()
    dest = tmp_path / "out" / "dog_answer.csv"
    assert fetch_verified(dest, sha256=digest, url=source.as_uri()) == "download"
    assert dest.read_bytes() == source.read_bytes()


# --- the truth-inference benchmark group (Zheng et al. 2017's datasets) ------------------------

TI_GROUP = "truth_inference_benchmark"


def _source_md_rows(mirror):
    """(file, commit, path in repo, bytes, sha256) of each row of the group's SOURCE.md table."""
    import re

    text = (mirror / TI_GROUP / "SOURCE.md").read_text()
    commit = re.search(r"crowd_truth_infer @ ([0-9a-f]{40})", text).group(1)
    rows = re.findall(r"^\| (\w+\.csv) \| [^|]+ \| ([^|]+?) \| (\d+) \| ([0-9a-f]{64}) \|$",
                      text, flags=re.M)
    return commit, rows


def test_truth_inference_pins_match_source_md(mirror, default_config):
    """config raw.truth_inference_benchmark: each file's URL (URL-quoted path at SOURCE.md's
    commit), size and sha256 are SOURCE.md's, and the mirror holds exactly those bytes."""
    from urllib.parse import quote

    commit, rows = _source_md_rows(mirror)
    group = default_config["raw"][TI_GROUP]
    assert sorted(name for name, *_ in rows) == sorted(group) and len(rows) == 6
    for name, path, size, digest in rows:
        entry = group[name]
        upstream = f"https://raw.githubusercontent.com/zhydhkcws/crowd_truth_infer/{commit}"
        assert entry["url"] == f"{upstream}/{quote(path)}", name
        assert (entry["size"], entry["sha256"]) == (int(size), digest), name
        copy = mirror / TI_GROUP / name
        assert (copy.stat().st_size, sha256_of(copy)) == (int(size), digest), name
    dog = group["dog_answer.csv"]["url"]
    assert " " not in dog and "s4_Dog%20data" in dog


def test_truth_inference_file_from_mirror_then_corrupt_copy_rejected(mirror, default_config,
                                                                      tmp_path):
    """dog_answer.csv: the mirror copy (<mirror_dir>/<group>/<file>) is taken and verified; a
    copy with one byte changed (same size) is rejected, naming both digests, leaving nothing."""
    entry = default_config["raw"][TI_GROUP]["dog_answer.csv"]
    pins = dict(sha256=entry["sha256"], size=entry["size"], url=None)
    dest = tmp_path / "data" / "raw" / TI_GROUP / "dog_answer.csv"
    good = mirror / TI_GROUP / "dog_answer.csv"
    assert fetch_verified(dest, mirror_path=good, **pins) == "mirror"
    assert dest.read_bytes() == good.read_bytes()

    corrupt = tmp_path / "mirror" / TI_GROUP / "dog_answer.csv"
    corrupt.parent.mkdir(parents=True)
    data = bytearray(good.read_bytes())
    data[-2] = ord("0") if data[-2] != ord("0") else ord("1")  # one label changed
    corrupt.write_bytes(bytes(data))
    dest2 = tmp_path / "other" / "dog_answer.csv"
    with pytest.raises(ChecksumError) as err:
        fetch_verified(dest2, mirror_path=corrupt, **pins)
    message = str(err.value)
    assert "not the pinned file" in message and entry["sha256"] in message
    assert f"sha256 {sha256_of(corrupt)}, expected {entry['sha256']}" in message
    assert "bytes, expected" not in message  # same size: only the digest differs
    assert list(dest2.parent.iterdir()) == []


def _snakemake(root, workdir, *args):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d", str(workdir),
         "--cores", "1", *args],
        capture_output=True, text=True, timeout=300,
    )


@pytest.mark.e2e
@pytest.mark.parametrize("group, name", [("web", "web_processed_data.mat"),
                                         (TI_GROUP, "dog_answer.csv")])
def test_workflow_rejects_corrupt_mirror_file(root, tmp_path, default_config, group, name):
    """A checksum-failing file stops the run with a clear message and leaves no output."""
    mirror = tmp_path / "mirror" / group
    mirror.mkdir(parents=True)
    (mirror / name).write_bytes(b"corrupted copy")
    work = tmp_path / "work"
    target = f"data/raw/{group}/{name}"
    result = _snakemake(root, work, target, "--config", f"mirror_dir={tmp_path / 'mirror'}")
    assert result.returncode != 0
    log = (work / f"results/logs/data/fetch/{group}/{name}.log").read_text()
    assert "not the pinned file" in log and name in log
    assert default_config["raw"][group][name]["sha256"] in log
    assert not (work / target).exists()
    assert not any((work / f"data/raw/{group}").glob("*.part"))


@pytest.mark.e2e
def test_workflow_rejects_missing_mirror_file(root, tmp_path):
    """No mirror copy and a failing download: a clear error naming the file, no output."""
    override = tmp_path / "override.yaml"
    digest = "1f675434aad38a99f7e63bc80c2b98d9e2122b77b2ee2e87636559d87ee06f3f"
    override.write_text(
        "raw:\n  adultcontent:\n    categories.txt:\n"
        f"      url: {(tmp_path / 'nowhere.txt').as_uri()}\n      sha256: {digest}\n"
    )
    work = tmp_path / "work"
    target = "data/raw/adultcontent/categories.txt"
    result = _snakemake(
        root, work, target, "--configfile", str(root / "config/config.yaml"), str(override),
        "--config", f"mirror_dir={tmp_path / 'empty'}",
    )
    assert result.returncode != 0
    log = (work / "results/logs/data/fetch/adultcontent/categories.txt.log").read_text()
    assert "categories.txt" in log and digest in log and "Put the file" in log
    assert not (work / target).exists()


@pytest.mark.e2e
def test_workflow_rejects_unknown_config_key(root, tmp_path):
    result = _snakemake(root, tmp_path / "work", "-n", "--config", "sed=1")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Additional properties are not allowed ('sed' was unexpected)" in output
