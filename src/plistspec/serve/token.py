"""The bearer token ``plistspec serve --http`` requires when none is given.

Owns: where that token lives and how it is made. Every HTTP bind, loopback included,
requires ``Authorization: Bearer TOKEN`` (any local account can reach 127.0.0.1);
without ``--auth-token-file`` the token is this file:

    $XDG_STATE_HOME/plistspec/http-token   (default ~/.local/state/plistspec/http-token)

The folder is made 0700 and must be yours and closed to others (a folder of yours that
others may enter is closed; one of another user is refused). The file is kept from run
to run, so a client configured once goes on working: it is used when it is a regular
file of yours, mode 0600 (nothing for group or others), holding one token; otherwise a
new one (``secrets.token_urlsafe(32)``) replaces it, written to a 0600 temporary file
renamed into place. Nothing here prints: problems are :class:`TokenError`.
"""

from __future__ import annotations

import os
import secrets
import stat

__all__ = ["TokenError", "token_path", "default_token", "valid_token"]

NAME = "http-token"


class TokenError(Exception):
    """The token file cannot be used or made; the message says why and where."""


def token_path() -> str:
    """Where the token is kept (the folder may not exist yet)."""
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):  # the XDG spec: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise TokenError(
                "no home folder to keep the token in (HOME is unset); give --auth-token-file"
            )
        state = os.path.join(home, ".local", "state")
    return os.path.join(state, "plistspec", NAME)


def valid_token(raw: bytes) -> str | None:
    """The token in a file's content (its first line, stripped), or None when it is not
    one line of printable ASCII without spaces, at most 4096 bytes."""
    if len(raw) > 4096:
        return None
    try:
        token = raw.decode("ascii").strip().split("\n")[0].strip()
    except UnicodeDecodeError:
        return None
    if not token or not all(33 <= ord(c) < 127 for c in token):
        return None
    return token


def _private_folder(folder: str) -> None:
    """Make ``folder`` (0700) or check that it is a folder of ours closed to others."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise TokenError(f"{folder} is not a folder (a symbolic link?); give --auth-token-file")
    if st.st_uid != os.geteuid():
        raise TokenError(
            f"{folder} belongs to uid {st.st_uid}, not to you: the token cannot be kept "
            "there; give --auth-token-file"
        )
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


def _existing(path: str) -> str | None:
    """The token already in ``path`` if it can be trusted as ours and private."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            return None  # another's, or readable by others: it may be known; replace it
        return valid_token(os.read(fd, 4097))
    finally:
        os.close(fd)


def default_token() -> tuple[str, str, bool]:
    """``(token, path, made)``: the token of the file (``made``: just written)."""
    path = token_path()
    folder = os.path.dirname(path)
    try:
        _private_folder(folder)
        token = _existing(path)
        if token is not None:
            return token, path, False
        token = secrets.token_urlsafe(32)
        tmp = os.path.join(folder, f".{NAME}-{secrets.token_hex(8)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(token + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        raise TokenError(
            f"cannot keep the token in {path}: {e.strerror or e}; give --auth-token-file"
        ) from None
    return token, path, True
