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


def _snakemake(root, workdir, *args):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d", str(workdir),
         "--cores", "1", *args],
        capture_output=True, text=True, timeout=300,
    )


@pytest.mark.e2e
def test_workflow_rejects_corrupt_mirror_file(root, tmp_path):
    """A checksum-failing file stops the run with a clear message and leaves no output."""
    mirror = tmp_path / "mirror" / "web"
    mirror.mkdir(parents=True)
    (mirror / "web_processed_data.mat").write_bytes(b"corrupted copy")
    work = tmp_path / "work"
    target = "data/raw/web/web_processed_data.mat"
    result = _snakemake(root, work, target, "--config", f"mirror_dir={tmp_path / 'mirror'}")
    assert result.returncode != 0
    log = (work / "results/logs/data/fetch/web/web_processed_data.mat.log").read_text()
    assert "not the pinned file" in log and "web_processed_data.mat" in log
    assert "ced56d6819b7102b30ec35bdbc2db68a31f819d6c7d653c07b087f1274ff7d5e" in log
    assert not (work / target).exists()
    assert not any((work / "data/raw/web").glob("*.part"))


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
