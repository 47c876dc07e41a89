"""Rewriting an input file in place (``fmt -i``, ``check --fix``), never over an edit or a
file that is not the one read.

Owns: :func:`check_rewritable` and :func:`rewrite_file`, which compares the file with
the :class:`plistspec.cli._filestate.FileState` recorded when it was read.

Between reading a file and writing it back plistspec works for a while; an editor may
save the file meanwhile, or someone may replace it by a symbolic link to another file.
Just before the rename (or, for a file written in place, on the descriptor written) the
file is checked to be still the one read: same directory (held open, so a directory
swapped in the path changes nothing), not a symbolic link unless it was one when read
(and then still to the same file), same device and inode, size, modification time and
SHA-256 of the content. Otherwise nothing is written and the file is named in a PS904
error. Everything happens relative to the directory descriptor, with ``O_NOFOLLOW``: a
link that appears after the read is never followed. (A save in the microseconds between
the last check and the rename cannot be seen; that is the one window left.)
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat

from plistspec.cli._filestate import FileState
from plistspec.cli._io import InputError, _refuse, _write_all, encode_bytes

__all__ = ["check_rewritable", "rewrite_file"]


def check_rewritable(path: str, name: str) -> None:
    """Refuse to rewrite what is not a writable regular file, or a path through a link
    the kernel's ``fs.protected_symlinks`` would not follow (before any work)."""
    from plistspec.cli._links import protected_link

    why = protected_link(path)
    if why is not None:
        raise _refuse(name, why, "rewrite")
    st = os.stat(path)  # read_text_layout just opened it
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(name, "not a regular file", "rewrite")
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise _refuse(name, "the file is read-only", "rewrite")


def _changed(name: str, why: str) -> InputError:
    return InputError(
        f"{name}: error: not rewritten: {why} since plistspec read it; nothing was written "
        "(run the command again on the file as it is now) [PS904]",
        f"{why} since it was read",
        code="PS904",
    )


def _digest(fd: int) -> bytes:
    h = hashlib.sha256()
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return h.digest()
        h.update(chunk)


def _verify(path: str, dfd: int, base: str, name: str, state: FileState) -> os.stat_result:
    """Raise PS904 unless ``base`` in the directory ``dfd`` is still the file read."""
    dst = os.fstat(dfd)
    if (dst.st_dev, dst.st_ino) != state.dir_id:
        raise _changed(name, "its directory was moved or replaced")
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
        real = os.path.realpath(path)
    except (OSError, ValueError):
        raise _changed(name, "it was removed or renamed") from None
    if linked and not state.linked:
        raise _changed(name, "it was replaced by a symbolic link")
    if real != state.target:
        raise _changed(name, "the path now names another file")
    try:
        st = os.stat(base, dir_fd=dfd, follow_symlinks=False)
    except OSError:
        raise _changed(name, "it was removed or renamed") from None
    if not stat.S_ISREG(st.st_mode):
        raise _changed(name, "it was replaced by something other than a regular file")
    if (st.st_dev, st.st_ino) != state.file_id:
        raise _changed(name, "it was replaced by another file (saved by another program?)")
    if st.st_size != state.size or st.st_mtime_ns != state.mtime_ns:
        raise _changed(name, "it was modified (saved by another program?)")
    try:
        fd = os.open(base, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
    except OSError:
        raise _changed(name, "it was replaced") from None
    try:
        again = os.fstat(fd)
        if (again.st_dev, again.st_ino) != state.file_id or _digest(fd) != state.digest:
            raise _changed(name, "it was modified (saved by another program?)")
    finally:
        os.close(fd)
    return st


def rewrite_file(
    path: str,
    name: str,
    text: str | bytes | bytearray | list[bytes],
    state: FileState | None,
) -> None:
    """Replace the file ``path`` (read as ``state``) by ``text``, keeping what the file
    is: its mode (setuid/setgid too), owner and group where allowed, its BOM and line
    endings (``text`` already carries them), and its hard links; refuse (PS904) when it
    is no longer the file read (module doc).

    A file with one link is replaced atomically (a temporary file in its directory, then
    renamed over it); a symbolic link keeps pointing at its target, whose content is
    replaced. A file with several hard links is written in place through the same inode
    (so every name sees the new text), and so is a file owned by another user (a
    replacement could not be given back its owner); if that write fails the old content
    is written back. ``text`` may be the bytes already, or a list of such chunks."""
    data = text if not isinstance(text, str) else encode_bytes(text, name)
    if state is None:
        raise _changed(name, "it changed while it was read")
    directory, base = os.path.split(state.target)
    try:  # O_PATH: a directory one may write but not list is still held
        dfd = os.open(directory, getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
    except FileNotFoundError:
        raise _changed(name, "its directory was moved or removed") from None
    except OSError as e:
        raise _refuse(name, e.strerror or str(e), "rewrite") from None
    tmp: str | None = None
    try:
        st = _verify(path, dfd, base, name, state)
        euid = os.geteuid()
        if st.st_nlink <= 1 and (euid == 0 or st.st_uid == euid):
            tmp = f".plistspec-{secrets.token_hex(8)}.tmp"
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dfd
            )
            with os.fdopen(fd, "wb") as f:
                _write_all(f, data)
                f.flush()
                try:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                except OSError:
                    try:
                        os.fchown(f.fileno(), -1, st.st_gid)
                    except OSError:
                        pass
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))  # after chown (setgid)
                os.fsync(f.fileno())
            _verify(path, dfd, base, name, state)  # just before the rename
            os.replace(tmp, base, src_dir_fd=dfd, dst_dir_fd=dfd)
            tmp = None
            return
        # Several links, or another user's file (a new file could not get its owner back):
        # the same inode is rewritten, which keeps links, owner, group and mode.
        fd = os.open(base, os.O_RDWR | os.O_NOFOLLOW, dir_fd=dfd)
        with os.fdopen(fd, "r+b") as f:
            now = os.fstat(fd)
            old = f.read()
            if (
                (now.st_dev, now.st_ino) != state.file_id
                or now.st_mtime_ns != state.mtime_ns
                or hashlib.sha256(old).digest() != state.digest
            ):
                raise _changed(name, "it was modified (saved by another program?)")
            try:
                f.seek(0)
                _write_all(f, data)
                f.truncate()
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                f.seek(0)
                f.write(old)
                f.truncate()
                f.flush()
                raise
    except InputError:
        raise
    except OSError as e:
        raise _refuse(name, e.strerror or str(e), "rewrite") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)
