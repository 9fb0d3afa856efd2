"""The side of the benchmark that runs inside one library's process.

The parent (``benchmarks/harness.py``) starts this file as a script::

    python benchmarks/worker.py --module torch --threads 2

and then drives it with one JSON object per line on stdin; each request gets
one JSON line back.  Only one library is ever imported here, so its thread
pool has the process (and, while it is being measured, the CPU) to itself.

The replies travel on a private copy of the original stdout; fd 1 itself is
pointed at stderr, so anything the library prints (Python or C++) lands in the
worker's log instead of corrupting the protocol.

``--probe peak_rss`` instead runs the MLP training step N times in this fresh
process and reports its peak RSS; ``--probe activation_memory --mode M`` runs one
forward and backward of a deep MLP (plain or checkpointed) and reports how far the
peak RSS rose above the RSS before it.  The import probe is ``IMPORT_PROBE``
below, run with ``python -c`` so that nothing but the interpreter is loaded
before ``import T``.
"""

import argparse
import faulthandler
import gc
import importlib
import itertools
import json
import math
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
MAX_INNER = 10_000_000
PROBE_TAG = "GT_BENCH_PROBE"

# Run as `python -c IMPORT_PROBE.format(module=...)`.  It avoids every import
# it can (no json, no importlib) so that the RSS is the library's own.
IMPORT_PROBE = """\
import sys, time
# An editable (scikit-build-core) install re-runs the CMake build check on
# import; that is the developer's build system, not the library's import.
for finder in sys.meta_path:
    if hasattr(finder, 'rebuild_flag'):
        finder.rebuild_flag = False
t0 = time.perf_counter_ns()
import {module}
t1 = time.perf_counter_ns()
rss = -1
try:
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                rss = int(line.split()[1]) * 1024
except OSError:
    import resource, sys
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss = r if sys.platform == 'darwin' else r * 1024
print('{tag}', t1 - t0, rss)
"""


def error_line(exc):
    """The last line Python would print for ``exc``, with its type name."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    line = text.splitlines()[-1] if text else type(exc).__name__
    if not line.startswith(type(exc).__name__):
        line = f"{type(exc).__name__}: ...{line}"
    return line[:400]


def time_loop(step, n):
    """Nanoseconds taken by ``n`` calls of ``step()``.

    ``itertools.repeat`` is the cheapest Python loop; the clock is read only
    around the whole loop, so the per-iteration harness cost is one loop
    step plus one call (measured and reported as ``harness_overhead_ns``).
    """
    loop = itertools.repeat(None, n)
    clock = time.perf_counter_ns
    start = clock()
    for _ in loop:
        step()
    return clock() - start


def calibrate(step, target_ns, warmup_ns):
    """Warm ``step`` up, then choose the inner loop count of one sample.

    The first call is timed on its own (lazy initialisation shows up there).
    Warm-up batches double in size so that µs-scale steps do not spend the
    warm-up reading the clock.
    """
    first_ns = time_loop(step, 1)
    spent, calls = 0, 0
    while calls == 0 or spent < warmup_ns:
        batch = max(1, calls)
        spent += time_loop(step, batch)
        calls += batch
    per_call = max(spent / calls, 1.0)
    inner = min(MAX_INNER, max(1, math.ceil(target_ns / per_call)))
    return {"inner": inner, "per_call_ns": per_call, "first_call_ns": first_ns,
            "warmup_calls": calls + 1}


def read_status_bytes(field):
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``), or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def max_rss_bytes():
    """ru_maxrss in bytes (Linux reports KiB, macOS bytes)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024


def apply_threads(T, n):
    """Give the library ``n`` intra-op threads; say what actually happened."""
    setter = getattr(T, "set_num_threads", None)
    getter = getattr(T, "get_num_threads", None)
    info = {"threads_requested": n, "threads_applied": False,
            "threads_reported": None, "threads_note": ""}
    if setter is None:
        info["threads_note"] = f"{T.__name__} has no set_num_threads()"
    else:
        setter(n)
        info["threads_applied"] = True
    if getter is not None:
        info["threads_reported"] = getter()
    return info


def library_info(T, threads):
    """Version, location, threads and harness overhead, for the report."""
    info = {"module": T.__name__,
            "version": str(getattr(T, "__version__", "unknown")),
            "file": getattr(T, "__file__", None),
            "pid": os.getpid()}
    info.update(apply_threads(T, threads))

    def empty():
        pass

    time_loop(empty, 100_000)  # warm the loop itself
    info["harness_overhead_ns"] = time_loop(empty, 1_000_000) / 1_000_000
    return info


class CaseRunner:
    """Holds the prepared steps of this process and answers requests."""

    def __init__(self, T):
        self.T = T
        self.prepared = {}  # key -> (step, cleanup)

    def handle(self, msg):
        cmd = msg.get("cmd")
        if cmd == "prepare":
            return self.prepare(msg)
        if cmd == "sample":
            return self.sample(msg)
        if cmd == "release":
            self.release(msg.get("key"))
            return {"ok": True}
        return {"error": f"unknown command {cmd!r}"}

    def prepare(self, msg):
        from benchmarks import cases

        case = cases.by_id(msg["case"])
        point = case.point(msg["point"])
        self.release(msg["key"])  # a retry must not keep the old state alive
        cases.seed(self.T)
        made = case.setup(self.T, point.value, **msg.get("options", {}))
        step, cleanup = made if isinstance(made, tuple) else (made, None)
        self.prepared[msg["key"]] = (step, cleanup)
        # A first use can import more of the library (torch.optim pulls in
        # ~1.4 s and thousands of objects); freeze them like the import.
        gc.collect()
        gc.freeze()
        return calibrate(step, msg["target_ns"], msg["warmup_ns"])

    def sample(self, msg):
        step, _ = self.prepared[msg["key"]]
        gc.collect()  # start each sample with no garbage pending
        # This process sat idle while the other library ran: its threads are
        # parked and its caches cold.  On this VM the first call after a pause
        # was measured up to 3x slower, so re-warm first (the parent chooses
        # how much: ~10% of a sample).
        if msg.get("rewarm"):
            time_loop(step, msg["rewarm"])
        return {"ns": time_loop(step, msg["inner"])}

    def release(self, key):
        keys = list(self.prepared) if key is None else [key]
        for k in keys:
            entry = self.prepared.pop(k, None)
            if entry is not None and entry[1] is not None:
                entry[1]()
        gc.collect()


def claim_stdout():
    """A private file for protocol replies; fd 1 then goes to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(2, 1)
    return proto


def send(proto, obj):
    proto.write(json.dumps(obj) + "\n")
    proto.flush()


def import_library(module):
    """Import the library; (module, None) or (None, error line)."""
    try:
        return importlib.import_module(module), None
    except (Exception, SystemExit) as exc:
        traceback.print_exc()
        return None, f"cannot import {module}: {error_line(exc)}"


def serve(proto, module, threads):
    """The request loop of a long-lived worker."""
    T, err = import_library(module)
    if T is None:
        send(proto, {"ready": False, "error": err})
        return 1
    info = library_info(T, threads)
    # Move everything imported so far out of the collector's sight: a full
    # collection over torch's ~165k objects costs 80 ms, which would make
    # the per-sample gc.collect() below dominate the run time.
    gc.collect()
    gc.freeze()
    send(proto, {"ready": True, "info": info})
    runner = CaseRunner(T)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("cmd") == "exit":
            break
        try:
            reply = runner.handle(msg)
        except Exception as exc:  # a missing feature: report, keep serving
            traceback.print_exc()
            sys.stderr.flush()
            if msg.get("cmd") == "prepare":
                runner.prepared.pop(msg.get("key"), None)
            reply = {"error": error_line(exc)}
        send(proto, reply)
    runner.release(None)
    return 0


def run_probe(proto, module, threads, measure):
    """Import the library, set its threads, send ``measure(T)``'s reply; an import error
    or an exception in ``measure`` is sent as the reply instead. The exit status."""
    T, err = import_library(module)
    if T is None:
        send(proto, {"error": err})
        return 1
    try:
        apply_threads(T, threads)
        reply = measure(T)
    except Exception as exc:
        traceback.print_exc()
        send(proto, {"error": error_line(exc)})
        return 1
    send(proto, reply)
    return 0


def probe_peak_rss(proto, module, threads, steps):
    """Run ``steps`` MLP training steps, then report the process's peak RSS."""
    def measure(T):
        from benchmarks import cases

        cases.seed(T)
        mlp = cases.by_id("mlp_step")
        step = mlp.setup(T, mlp.points[0].value)
        for _ in range(steps):
            step()
        return {"peak_bytes": read_status_bytes("VmHWM") or max_rss_bytes(),
                "ru_maxrss_bytes": max_rss_bytes(), "steps": steps}
    return run_probe(proto, module, threads, measure)


def reset_peak_rss():
    """Set VmHWM back to the current VmRSS; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def probe_activation_memory(proto, module, threads, mode):
    """One deep-MLP forward + backward (``mode``: plain or checkpointed) in this fresh
    process; report how far its peak RSS rose above the RSS before it.
    NOTE [Activation memory probe] in benchmarks/cases/process.py."""
    def measure(T):
        from benchmarks.cases import process

        T.manual_seed(0)
        model = process.build_deep_mlp(T)
        fwd_bwd = process.activation_step(T, model, mode)
        fwd_bwd(T.randn(process.ACT_WARMUP_BATCH, process.ACT_WIDTH))
        model.zero_grad()
        x = T.randn(process.ACT_BATCH, process.ACT_WIDTH)
        gc.collect()
        before = read_status_bytes("VmRSS")
        if before is None or not reset_peak_rss():
            raise RuntimeError("needs Linux's /proc/self/status and /proc/self/clear_refs")
        fwd_bwd(x)
        peak = read_status_bytes("VmHWM")
        return {"peak_delta_bytes": peak - before, "rss_before_bytes": before,
                "peak_bytes": peak, "mode": mode}
    return run_probe(proto, module, threads, measure)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--probe", choices=["peak_rss", "activation_memory"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--mode", default="plain")
    args = parser.parse_args(argv)
    proto = claim_stdout()
    # On a segfault in the library, print the Python stack to the log so
    # the report can say which call crashed.
    faulthandler.enable()
    if args.probe == "peak_rss":
        return probe_peak_rss(proto, args.module, args.threads, args.steps)
    if args.probe == "activation_memory":
        return probe_activation_memory(proto, args.module, args.threads, args.mode)
    return serve(proto, args.module, args.threads)


if __name__ == "__main__":
    # Started as a script, sys.path[0] is benchmarks/ itself; swap it for the
    # repository root so that `benchmarks.cases` imports as a package and no
    # module of ours can shadow a top-level one.
    if sys.path and os.path.abspath(sys.path[0]) == HERE:
        sys.path[0] = REPO_ROOT
    sys.exit(main())
