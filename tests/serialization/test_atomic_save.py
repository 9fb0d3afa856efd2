"""Saving to a path is atomic (a killed or failed save leaves the previous checkpoint whole),
and a path that cannot be written gets torch's RuntimeError, which is also the matching
OSError subclass."""

import errno
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import gradtrack as gt
from gradtrack._serialization import files

OLD = {"step": 1, "w": gt.full((1000,), 1.0)}


def _write_old(path):
    gt.save(OLD, path)
    assert gt.load(path)["step"] == 1


def _assert_old_intact(path):
    back = gt.load(path)
    assert back["step"] == 1 and back["w"].tolist() == [1.0] * 1000


def _leftovers(directory, name):
    return [n for n in os.listdir(directory) if n != name]


def test_missing_parent_is_torchs_runtime_error_and_file_not_found(torch, tmp_path):
    target = tmp_path / "missing" / "x.pt"
    with pytest.raises(RuntimeError) as theirs:
        torch.save({}, target)
    with pytest.raises(RuntimeError) as ours:
        gt.save({}, target)
    assert str(ours.value) == str(theirs.value)
    assert isinstance(ours.value, FileNotFoundError) and ours.value.errno == errno.ENOENT


def test_directory_target_is_torchs_runtime_error_and_is_a_directory(torch, tmp_path):
    with pytest.raises(RuntimeError) as theirs:
        torch.save({}, tmp_path)
    with pytest.raises(RuntimeError) as ours:
        gt.save({}, tmp_path)
    assert str(ours.value) == str(theirs.value)
    assert isinstance(ours.value, IsADirectoryError) and ours.value.errno == errno.EISDIR


def test_unwritable_directory_is_runtime_error_and_permission_error(torch, tmp_path,
                                                                    monkeypatch):
    # Tests run as root here, where chmod cannot make a directory unwritable: the
    # refusal the kernel would give is simulated at the one place save creates a file.
    with pytest.raises(RuntimeError) as theirs:
        torch.save({}, tmp_path)
    expected = str(theirs.value).replace(os.strerror(errno.EISDIR), os.strerror(errno.EACCES))

    def refuse(path, flags, mode=0o777):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(files.os, "open", refuse)
    with pytest.raises(RuntimeError) as ours:
        gt.save({}, tmp_path / "x.pt")
    assert str(ours.value) == expected
    assert isinstance(ours.value, PermissionError) and ours.value.errno == errno.EACCES


def test_failed_pickling_leaves_the_old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    _write_old(path)

    class Unpicklable:
        def __reduce__(self):
            raise TypeError("cannot pickle this")

    with pytest.raises(TypeError, match="cannot pickle this"):
        gt.save({"step": 2, "w": gt.zeros(1000), "x": Unpicklable()}, path)
    _assert_old_intact(path)
    assert _leftovers(tmp_path, "ckpt.pt") == []


def test_success_leaves_no_temporary_file_and_keeps_permissions(tmp_path):
    path = tmp_path / "ckpt.pt"
    _write_old(path)
    os.chmod(path, 0o640)
    gt.save({"step": 2}, path)
    assert gt.load(path) == {"step": 2}
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert _leftovers(tmp_path, "ckpt.pt") == []


def _run_child(tmp_path, *parts):
    code = "".join(textwrap.dedent(part) for part in ("""
        import os, resource, signal, sys
        import gradtrack as gt
        from gradtrack._serialization import files, writer
        path = sys.argv[1]
    """,) + parts)
    return subprocess.run([sys.executable, "-c", code, str(tmp_path / "ckpt.pt")],
                          capture_output=True, text=True, timeout=120)


NEW = "new = {'step': 2, 'w': gt.zeros(1_000_000), 'v': gt.ones(1_000_000)}\n"


@pytest.mark.parametrize("moment", ["mid_records", "before_rename"])
def test_save_killed_leaves_the_old_checkpoint_whole(tmp_path, moment):
    _write_old(tmp_path / "ckpt.pt")
    if moment == "mid_records":
        patch = """
            write = writer.ArchiveWriter.write
            def dying_write(self, name, data):
                if name == "data/1":
                    data = bytes(data)[:1000]
                    write(self, name + "_part", data)
                    os.kill(os.getpid(), signal.SIGKILL)
                write(self, name, data)
            writer.ArchiveWriter.write = dying_write
        """
    else:
        patch = """
            files.os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        """
    result = _run_child(tmp_path, patch, NEW, "gt.save(new, path)\n")
    assert result.returncode == -signal.SIGKILL, result.stderr
    _assert_old_intact(tmp_path / "ckpt.pt")


def test_save_stopped_by_a_full_disk_raises_oserror_and_leaves_the_old_file(tmp_path):
    _write_old(tmp_path / "ckpt.pt")
    # A file-size limit stands in for a full disk: writes past it fail with EFBIG
    # (Python ignores SIGXFSZ, so the write returns the error).
    result = _run_child(tmp_path, """
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, resource.RLIM_INFINITY))
    """, NEW, """
        try:
            gt.save(new, path)
        except OSError as e:
            print("OSError", e.errno)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["OSError", str(errno.EFBIG)]
    _assert_old_intact(tmp_path / "ckpt.pt")
    assert _leftovers(tmp_path, "ckpt.pt") == []


def test_load_racing_rewrites_sees_whole_checkpoints(tmp_path):
    path = tmp_path / "ckpt.pt"
    gt.save({"k": 0, "w": gt.zeros(20_000)}, path)
    stop = threading.Event()

    def rewrite():
        k = 0
        while not stop.is_set():
            k += 1
            gt.save({"k": k, "w": gt.full((20_000,), float(k))}, path)

    writer_thread = threading.Thread(target=rewrite)
    writer_thread.start()
    try:
        for _ in range(60):
            back = gt.load(path)
            assert back["w"].min().item() == back["w"].max().item() == back["k"]
    finally:
        stop.set()
        writer_thread.join(timeout=60)
    assert _leftovers(tmp_path, "ckpt.pt") == []
