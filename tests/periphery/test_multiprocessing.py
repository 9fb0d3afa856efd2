"""``torch.multiprocessing``: the standard library's names, ``spawn`` running ranks and
reporting the first failure as torch does (exception type, rank, message), and tensors
crossing a queue (as copies). Each case starts processes, with a timeout."""

import subprocess
import sys
import textwrap

import pytest

import gradtrack.multiprocessing as mp

SCRIPT = textwrap.dedent("""
    import sys
    lib = __import__(sys.argv[1])
    mp = __import__(sys.argv[1] + ".multiprocessing", fromlist=["spawn"])

    def work(i, q):
        q.put((i, (lib.full((2,), float(i)) * 2).tolist()))

    def bad(i):
        if i == 1:
            raise ValueError("boom")

    def exits(i):
        sys.exit(3 if i == 0 else 0)

    if __name__ == "__main__":
        q = mp.get_context("spawn").SimpleQueue()
        mp.spawn(work, args=(q,), nprocs=2)
        print(sorted([q.get(), q.get()]))
        for f in (bad, exits):
            try:
                mp.spawn(f, nprocs=2)
            except Exception as e:
                lines = str(e).splitlines()
                print(type(e).__name__, e.error_index, lines[:3], lines[-1])
""")


def test_spawn_matches_torch(tmp_path):
    # The failure lines are torch 2.13's, measured with the same script (torch's spawn
    # is not run here: each of its processes imports torch, seconds apiece).
    script = tmp_path / "ranks.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), "gradtrack"], capture_output=True,
                         text=True, timeout=180, cwd=tmp_path)
    assert out.stdout.splitlines() == [
        "[(0, [0.0, 0.0]), (1, [2.0, 2.0])]",
        "ProcessRaisedException 1 ['', '', '-- Process 1 terminated with the following error:'] "
        "ValueError: boom",
        "ProcessExitedException 0 ['process 0 terminated with exit code 3'] process 0 "
        "terminated with exit code 3"], out.stderr


def test_tensor_crosses_a_queue_as_a_copy(tmp_path):
    script = tmp_path / "send.py"
    script.write_text(textwrap.dedent("""
        import gradtrack
        import gradtrack.multiprocessing as mp

        def work(i, q):
            q.put(gradtrack.arange(3.0) * (i + 1))

        if __name__ == "__main__":
            q = mp.get_context("spawn").SimpleQueue()
            mp.spawn(work, args=(q,), nprocs=1)
            t = q.get()
            print(t.tolist(), t.requires_grad, t.dtype)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.stdout == "[0.0, 1.0, 2.0] False gradtrack.float32\n", out.stderr


def test_standard_library_names():
    import multiprocessing
    assert mp.Process is multiprocessing.Process and mp.Queue is multiprocessing.Queue
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError, match="Invalid sharing strategy"):
        mp.set_sharing_strategy("shm")
