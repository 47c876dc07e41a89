"""What a file was when it was read, to tell later whether it is still that file.

Owns: :class:`FileState` (its real path, whether the path given was a symbolic link, its
directory's and its own device and inode, size, modification time and SHA-256 of its
content) and :func:`file_state`, which :func:`plistspec.cli._io.read_buffer` calls for
every file it reads; :mod:`plistspec.cli._rewrite` checks it before rewriting the file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import NamedTuple

__all__ = ["FileState", "file_state"]


class FileState(NamedTuple):
    """A regular file as it was read (see the module doc)."""

    target: str  # the real path of the file read
    linked: bool  # the path given was a symbolic link
    dir_id: tuple[int, int]  # (st_dev, st_ino) of target's directory
    file_id: tuple[int, int]
    size: int
    mtime_ns: int
    digest: bytes


def file_state(path: str, st: os.stat_result, data: bytes) -> FileState | None:
    """The state of the file ``path`` just read as ``data`` through a descriptor whose
    ``fstat`` is ``st``; None when the path does not name that file any more (it
    changed while it was read) or is not a regular file."""
    if not stat.S_ISREG(st.st_mode):
        return None
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
        target = os.path.realpath(path)
        now = os.stat(target, follow_symlinks=False)
        dst = os.stat(os.path.dirname(target))
    except (OSError, ValueError):
        return None
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        return None
    return FileState(
        target,
        linked,
        (dst.st_dev, dst.st_ino),
        (st.st_dev, st.st_ino),
        st.st_size,
        st.st_mtime_ns,
        hashlib.sha256(data).digest(),
    )
