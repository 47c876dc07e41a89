"""Following symbolic links as the kernel's ``fs.protected_symlinks`` would, for writes.

Owns: :func:`protected_link`, asked before ``-o``, ``fmt -i`` and ``check --fix``
write through a path. plistspec resolves links itself (to keep the link and replace its
target), so the kernel's protection, which applies only to the ``open`` of a path,
never had a say. The rule is the kernel's (``may_follow_link`` in ``fs/namei.c``): a
link in a sticky, world-writable folder (``/tmp``) is followed only when it is owned by
the one following it or by the folder's owner. Every link of the path counts, those
naming a folder on the way included; root is no exception (the protection is made for
root's processes writing into ``/tmp``).
"""

from __future__ import annotations

import os
import stat

__all__ = ["protected_link"]

_MAX_LINKS = 40  # the kernel's MAXSYMLINKS


def _refused(folder: os.stat_result, owner: int, euid: int) -> bool:
    sticky_shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    return bool(sticky_shared) and owner not in (euid, folder.st_uid)


def protected_link(path: str) -> str | None:
    """Why writing through ``path`` would follow a link the kernel protects (a short
    reason naming the link), or None. Unreadable parts and loops are left to the write
    itself, which reports them."""
    euid = os.geteuid()
    todo = [p for p in os.path.abspath(path).split("/") if p]
    done = "/"
    links = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            done = os.path.dirname(done)
            continue
        here = os.path.join(done, part)
        try:
            st = os.lstat(here)
        except OSError:
            return None  # does not exist (yet): nothing further is followed
        if not stat.S_ISLNK(st.st_mode):
            done = here
            continue
        links += 1
        if links > _MAX_LINKS:
            return None
        try:
            folder = os.stat(done)
            target = os.readlink(here)
        except OSError:
            return None
        if _refused(folder, st.st_uid, euid):
            return (
                f"it goes through the symbolic link {here}, owned by uid {st.st_uid}, in "
                f"the sticky world-writable folder {done} (owned by uid {folder.st_uid}): "
                "a link there is followed only when it belongs to you or to the folder's "
                "owner (as the kernel's fs.protected_symlinks does); write to the file it "
                "names directly if you mean it"
            )
        if target.startswith("/"):
            done = "/"
        todo[:0] = [p for p in target.split("/") if p]
    return None
