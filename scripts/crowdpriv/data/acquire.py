"""Data acquisition: copy from a local mirror or download, always verifying sha256.

The file lands at its destination only after its checksum matched (it is written to a temporary
file in the same folder and renamed), so a failed fetch never leaves a partial or corrupt file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path

__all__ = ["ChecksumError", "sha256_of", "fetch_verified"]


class ChecksumError(RuntimeError):
    """A file's sha256 differs from the one pinned in config."""


def sha256_of(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """Return the hex sha256 digest of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_verified(
    dest: str | Path,
    *,
    sha256: str,
    url: str | None = None,
    mirror_path: str | Path | None = None,
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
        Upstream URL, used when no mirror copy exists.
    mirror_path
        Path of the file in a local mirror; used when it exists.
    timeout
        Seconds before a download gives up.

    Returns
    -------
    str
        ``"mirror"`` or ``"download"``: where the file came from.

    Raises
    ------
    FileNotFoundError
        Neither a mirror copy nor a URL is available, or the download failed.
    ChecksumError
        The copied or downloaded bytes do not have the expected sha256.
    """
    dest = Path(dest)
    expected = sha256.lower()
    if len(expected) != 64 or any(c not in "0123456789abcdef" for c in expected):
        raise ValueError(f"sha256 for {dest.name} must be 64 hex digits, got {sha256!r}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        if mirror_path is not None and Path(mirror_path).is_file():
            origin, where = "mirror", str(mirror_path)
            shutil.copyfile(mirror_path, tmp)
        elif url:
            origin, where = "download", url
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
                    shutil.copyfileobj(response, out)
            except OSError as err:
                raise FileNotFoundError(
                    f"{dest.name}: download from {url} failed ({err}); and no mirror copy at "
                    f"{mirror_path!s}. Put the file (sha256 {expected}) there, or set "
                    "`mirror_dir` in config to a folder that holds it."
                ) from err
        else:
            raise FileNotFoundError(
                f"{dest.name}: no mirror copy at {mirror_path!s} and no URL configured. "
                f"Put the file (sha256 {expected}) there or configure its url."
            )
        actual = sha256_of(tmp)
        if actual != expected:
            raise ChecksumError(
                f"{dest.name}: sha256 mismatch for the copy from {where}: expected {expected}, "
                f"got {actual}. The file is corrupt or a different version; replace it with the "
                "pinned version (see the dataset's SOURCE.md) or, if you deliberately use another "
                "version, update its sha256 in config/config.yaml."
            )
        os.replace(tmp, dest)
        return origin
    finally:
        tmp.unlink(missing_ok=True)
