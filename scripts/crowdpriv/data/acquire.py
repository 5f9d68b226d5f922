"""Data acquisition: local mirror, HTTP(S) mirror or upstream URL, always sha256-verified.

Sources are tried in order: the local mirror folder (``<mirror_dir>/<group>/<file>``), the HTTP(S)
mirror (``<mirror_url>/<group>/<file>``), the file's upstream URL. Every copy or download is
streamed into a temporary file in the destination folder, its size and sha256 checked, and only
then renamed into place, so a failed, partial or corrupt fetch never leaves a file behind.
:func:`verify_local_copy` re-checks a file already under ``data/raw`` before it is read.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

__all__ = [
    "ChecksumError",
    "sha256_of",
    "fetch_verified",
    "mirror_file_url",
    "verify_local_copy",
]


class ChecksumError(RuntimeError):
    """A file's sha256 or size differs from the one pinned in config."""


def sha256_of(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """Return the hex sha256 digest of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def mirror_file_url(mirror_url: str, relative: str) -> str:
    """URL of ``relative`` (``<group>/<file>``, may contain ``/``) under an HTTP(S) mirror."""
    quoted = "/".join(urllib.parse.quote(part) for part in relative.split("/"))
    return mirror_url.rstrip("/") + "/" + quoted


def _check_sha256(name: str, sha256: str) -> str:
    expected = sha256.lower()
    if len(expected) != 64 or any(c not in "0123456789abcdef" for c in expected):
        raise ValueError(f"sha256 for {name} must be 64 hex digits, got {sha256!r}")
    return expected


def _mismatch(path: Path, expected: str, size: int | None) -> str | None:
    """Why ``path`` is not the pinned file (its size and sha256 against the pins), or None."""
    actual_size, actual = path.stat().st_size, sha256_of(path)
    problems = []
    if size is not None and actual_size != size:
        problems.append(f"size {actual_size} bytes, expected {size}")
    if actual != expected:
        problems.append(f"sha256 {actual}, expected {expected}")
    return "; ".join(problems) or None


def _download(url: str, target: Path, timeout: float) -> None:
    """Stream ``url`` into ``target`` (raises OSError on any network or HTTP failure)."""
    with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out, length=1 << 20)


def fetch_verified(
    dest: str | Path,
    *,
    sha256: str,
    url: str | None = None,
    mirror_path: str | Path | None = None,
    mirror_url: str | None = None,
    size: int | None = None,
    timeout: float = 60.0,
) -> str:
    """Place a verified copy of a data file at ``dest``.

    Parameters
    ----------
    dest
        Destination path (its folder is created).
    sha256
        Expected hex digest (from config).
    url
        Upstream URL, tried last.
    mirror_path
        Path of the file in a local mirror folder; tried first when it exists.
    mirror_url
        Full URL of the file on an HTTP(S) mirror (see :func:`mirror_file_url`); tried second.
    size
        Expected size in bytes (from config), checked before the digest when given.
    timeout
        Seconds before a download gives up.

    Returns
    -------
    str
        ``"mirror"``, ``"mirror_url"`` or ``"download"``: where the file came from.

    Raises
    ------
    ChecksumError
        The local mirror copy is not the pinned file (it is never silently bypassed), or every
        download delivered other bytes.
    FileNotFoundError
        No source delivered the file; the message lists every source tried and why it failed.
    """
    dest = Path(dest)
    expected = _check_sha256(dest.name, sha256)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    remedy = (
        (f"Put the file (sha256 {expected}) at {mirror_path}, s" if mirror_path else
         f"Get the file (sha256 {expected}) from its source (see the dataset's SOURCE.md) and "
         "s")
        + "et `mirror_dir` to a folder holding <group>/<file>, or `mirror_url` to an HTTP(S) "
        "mirror with that layout, or make its upstream url reachable."
    )
    try:
        if mirror_path is not None and Path(mirror_path).is_file():
            shutil.copyfile(mirror_path, tmp)
            why = _mismatch(tmp, expected, size)
            if why is not None:
                raise ChecksumError(
                    f"{dest.name}: the local mirror copy {mirror_path} is not the pinned file "
                    f"({why}). Replace it with the pinned version (see the dataset's SOURCE.md) "
                    "or, if you deliberately use another version, update its sha256 and size "
                    "in config/config.yaml."
                )
            os.replace(tmp, dest)
            return "mirror"
        failures = [f"local mirror: no file at {mirror_path}" if mirror_path else
                    "local mirror: none configured (mirror_dir)"]
        mismatched = False
        for origin, source in (("mirror_url", mirror_url), ("download", url)):
            label = "HTTP mirror" if origin == "mirror_url" else "upstream url"
            if not source:
                failures.append(f"{label}: none configured")
                continue
            try:
                _download(source, tmp, timeout)
            except (OSError, ValueError) as err:
                failures.append(f"{label} {source}: {err}")
                continue
            why = _mismatch(tmp, expected, size)
            if why is None:
                os.replace(tmp, dest)
                return origin
            mismatched = True
            failures.append(f"{label} {source}: delivered another file ({why})")
        error = ChecksumError if mismatched else FileNotFoundError
        raise error(
            f"{dest.name}: no source delivered the pinned file:\n  - "
            + "\n  - ".join(failures)
            + f"\n{remedy}"
        )
    finally:
        tmp.unlink(missing_ok=True)


def verify_local_copy(path: str | Path, *, sha256: str, size: int | None = None) -> None:
    """Raise :class:`ChecksumError` unless ``path`` (under ``data/raw``) is the pinned file.

    Run before a preprocessing step reads a raw file, so a copy damaged after it was fetched
    (edited, truncated, replaced) is never parsed.
    """
    path = Path(path)
    expected = _check_sha256(path.name, sha256)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: raw file missing; rerun to fetch it again")
    why = _mismatch(path, expected, size)
    if why is not None:
        raise ChecksumError(
            f"{path}: the local copy is damaged or was changed ({why}). Delete it and rerun: it "
            "is fetched again from the mirror or its URL and verified."
        )
