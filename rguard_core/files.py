"""Reading a file a user named: only a regular file, only up to a size bound.

``open()`` on a FIFO waits for a writer that may never come, and ``/dev/zero`` never ends; both were reported
hanging `memory load` and `eval check --cases`. The file is opened without blocking, checked with fstat to be a
regular file, then read up to ``limit`` bytes (one more tells us it is larger)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InvalidInput

MAX_INPUT_BYTES = 50 * 1024 * 1024  # a cases file or a memory scenario; the largest shipped is well under 1 MB


class NotARegularFile(InvalidInput):
    """The path names a FIFO, a device, a socket or a folder."""


def read_regular(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The file's bytes. FileNotFoundError when it does not exist (callers word it); InvalidInput when it is not
    a regular file or is larger than ``limit``."""
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe, device or socket)"
            raise NotARegularFile(f"{what} {p} is {kind}; give a file")
        if st.st_size > limit:
            raise InvalidInput(
                f"{what} {p} is {st.st_size // (1024 * 1024)} MB, over the {limit // (1024 * 1024)} MB limit"
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            data = fh.read(limit + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:  # it grew while we read it
        raise InvalidInput(f"{what} {p} is over the {limit // (1024 * 1024)} MB limit")
    return data


def is_regular(path: str | Path) -> bool:
    """Without following a link: a regular file (what a folder walk may open)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
