"""Files a user names are read only when they are regular files, and only so far: a FIFO, /dev/zero or a folder
as a cases file or memory scenario is one clear error at once (it used to hang or read until memory ran out); a
code-map folder holding a FIFO maps the rest; a tarball that unpacks to far more than it weighs is refused."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import threading
import time
from pathlib import Path

import pytest

from rguard_core.codemap import tree as tree_mod
from rguard_core.codemap.model import TreeInfo
from rguard_core.commands.main import main
from rguard_core.errors import SourceError
from rguard_core.files import read_regular


def _quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run the CLI in a thread so that a hang fails the test in seconds instead of blocking the suite."""
    out: dict[str, int] = {}
    t = threading.Thread(target=lambda: out.setdefault("rc", main(argv)), daemon=True)
    t.start()
    t.join(timeout=20)
    assert not t.is_alive(), f"{argv} is still running after 20 s"
    return out["rc"], capsys.readouterr().err


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
@pytest.mark.parametrize("command", [["eval", "check", "--cases"], ["memory", "load"]])
def test_a_non_regular_file_is_one_clear_error(
    tmp_path: Path, kind: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "fifo":
        target = tmp_path / "cases.yaml"
        os.mkfifo(target)
    elif kind == "zero":
        target = Path("/dev/zero")
    else:
        target = tmp_path
    t0 = time.monotonic()
    rc, err = _quick([*command, str(target)], capsys)
    assert rc == 2 and str(target) in err, err
    assert ("not a regular file" in err or "is a folder" in err) and "Traceback" not in err
    assert time.monotonic() - t0 < 10


def test_a_regular_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(Exception, match="over the 0 MB limit"):
        read_regular(big, "cases file", limit=1024)
    assert read_regular(big, "cases file", limit=4096) == b"x" * 2048


def test_a_code_map_folder_with_a_fifo_maps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("import os\n", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.py")
    tree = tree_mod.tree_from_folder(tmp_path)
    assert "app.py" in tree.contents and "pipe.py" not in tree.contents
    assert tree.skipped.get("not_a_regular_file") == 1


def test_a_decompression_bomb_is_refused_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    zeros = io.BytesIO()
    with tarfile.open(fileobj=zeros, mode="w") as tar:
        member = tarfile.TarInfo("top/zeros.py")
        member.size = 64 * 1024 * 1024
        tar.addfile(member, io.BytesIO(bytes(member.size)))
    packed = gzip.compress(zeros.getvalue(), compresslevel=9)
    assert len(packed) < 1024 * 1024  # well under a megabyte on the wire
    monkeypatch.setattr(tree_mod, "MAX_UNPACKED_BYTES", 8 * 1024 * 1024)
    t0 = time.monotonic()
    with pytest.raises(SourceError, match="unpacks to more than 8 MB"):
        tree_mod.read_tar(io.BytesIO(packed), TreeInfo("tarball", "", "main", "bomb.tar.gz"), strip_top=True)
    assert time.monotonic() - t0 < 5
