"""The parent side of the benchmark: workers, alternation, probes.

Each library lives in its own worker process (``benchmarks/worker.py``);
two libraries in one process would share a CPU between two thread pools that
both busy-wait, which is what was measured as a 24-36x
slowdown.  The parent itself never imports a library.

For every (case, point) the parent prepares the case in each worker
(set-up, warm-up, calibration of the inner loop count), then collects
samples in rounds, taking turns between the libraries and rotating who goes
first, so that slow drifts of the machine (thermal, other tenants) hit both
libraries alike.  A worker that raises reports an error for that case only;
a worker that crashes or hangs is killed and restarted for the next case.
"""

import dataclasses
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import time

from . import worker as worker_side
from .cases.process import ACT_ENV  # NOTE [Activation memory probe]

WORKER_SCRIPT = worker_side.__file__
MAX_TIMEOUTS = 3  # hangs of one library before its remaining cases are skipped
REWARM_LIMIT_S = 0.05  # steps longer than this get no re-warm call


class WorkerError(Exception):
    """The worker died, hung, or answered garbage."""

    timed_out = False


class WorkerTimeout(WorkerError):
    """The worker did not answer in time and was killed."""

    timed_out = True


class LibraryUnavailable(Exception):
    """The library cannot be imported; every case of it is an error."""


@dataclasses.dataclass(frozen=True)
class Lib:
    """One library column of the report."""

    label: str  # unique name in the report: "gradtrack", "torch", "torch#2"
    module: str  # what the worker imports
    standin: bool = False  # True when the gradtrack slot imports something else


@dataclasses.dataclass(frozen=True)
class Slot:
    """A library, or a library with a case variant, as one timing series."""

    lib: Lib
    variant: object = None  # cases.Variant or None

    @property
    def id(self):
        return self.lib.label if self.variant is None else \
            f"{self.lib.label} [{self.variant.name}]"

    @property
    def process_key(self):
        """Which worker process runs this slot."""
        if self.variant is not None and self.variant.own_process:
            return self.id
        return self.lib.label


@dataclasses.dataclass
class Settings:
    """How hard to measure; ``quick`` and full runs differ only here."""

    quick: bool
    threads: int
    rounds: int  # samples per library per point, taken in turns
    target_sample_s: float  # one sample lasts at least this long
    warmup_s: float
    point_budget_s: float  # slow steps get fewer rounds beyond this
    timeout_s: float  # per request; a worker over it is killed
    switch_pause_s: float  # let the other pool's spinning threads park
    import_repeats: int
    peak_rss_repeats: int


def make_settings(quick, threads, timeout_s=None):
    """Settings for a quick (< 2 min) or a full run."""
    if timeout_s is None:
        timeout_s = 60.0 if quick else 300.0
    if quick:
        return Settings(True, threads, rounds=5, target_sample_s=0.02,
                        warmup_s=0.05, point_budget_s=3.0, timeout_s=timeout_s,
                        switch_pause_s=0.002, import_repeats=3,
                        peak_rss_repeats=1)
    return Settings(False, threads, rounds=15, target_sample_s=0.025,
                    warmup_s=0.25, point_budget_s=20.0, timeout_s=timeout_s,
                    switch_pause_s=0.005, import_repeats=9, peak_rss_repeats=3)


def describe_exit(returncode):
    """'exit code 3' or 'killed by SIGSEGV'."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


def crash_summary(path):
    """What a worker's log says about its death, in one line.

    faulthandler (enabled in the worker) prints the Python stack on a fatal
    signal; its innermost frame says where the library crashed.  Otherwise
    the last line is the summary line of a traceback.
    """
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 16384))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    text = text.rsplit("=== worker", 1)[-1]  # this worker's part only
    lines = [ln.strip() for ln in text.splitlines()[1:] if ln.strip()]
    for i, line in enumerate(lines):
        if line.startswith("Fatal Python error"):
            frames = [ln for ln in lines[i:] if ln.startswith("File ")]
            return f"{line}; {frames[0]}"[:300] if frames else line[:300]
    return lines[-1][:300] if lines else ""


class WorkerProcess:
    """A running worker and its JSON-lines channel."""

    def __init__(self, key, module, threads, log_path, env=None):
        self.key = key
        self.log_path = log_path
        child_env = dict(os.environ)
        child_env.update(env or {})
        with open(log_path, "ab") as log:
            log.write(f"=== worker {key}: import {module}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [sys.executable, WORKER_SCRIPT, "--module", module,
                 "--threads", str(threads)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                env=child_env)
        self._buffer = b""

    @property
    def alive(self):
        return self.proc.poll() is None

    def request(self, msg, timeout):
        """Send one request, wait at most ``timeout`` s for its reply."""
        if not self.alive or self.proc.stdin.closed:
            raise WorkerError(self._death())
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerError(self._death()) from None
        return self.receive(timeout)

    def receive(self, timeout):
        """Read one reply line; WorkerError on death or timeout."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise WorkerTimeout(f"timed out after {timeout:g} s (worker killed)")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise WorkerError(self._death())
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            raise WorkerError(f"bad reply from worker: {line[:200]!r}") from None

    def _death(self):
        """Why the worker is gone: exit status plus its last log line."""
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        tail = crash_summary(self.log_path)
        return f"worker crashed ({describe_exit(code)})" + (f": {tail}" if tail else "")

    def kill(self):
        if self.alive:
            self.proc.kill()
        self.proc.wait()

    def close(self):
        """Ask the worker to exit; kill it if it does not within 10 s."""
        if self.alive:
            try:
                self.proc.stdin.write(b'{"cmd": "exit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class WorkerPool:
    """Starts workers on first use and restarts them after a crash."""

    def __init__(self, settings, log_dir):
        self.settings = settings
        self.log_dir = log_dir
        self.workers = {}  # process key -> WorkerProcess
        self.unavailable = {}  # process key -> import error
        self.timeouts = {}  # process key -> how many requests timed out
        self.info = {}  # process key -> what the worker said at start-up

    def get(self, slot):
        """The running worker of ``slot``; starts (or restarts) it if needed."""
        self.start([slot])
        key = slot.process_key
        if key in self.unavailable:
            raise LibraryUnavailable(self.unavailable[key])
        return self.workers[key]

    def start(self, slots):
        """Start the workers of ``slots`` together: imports overlap."""
        waiting = {}
        for slot in slots:
            key = slot.process_key
            current = self.workers.get(key)
            if key in self.unavailable or key in waiting or (
                    current is not None and current.alive):
                continue
            env = slot.variant.env if slot.variant is not None else None
            log = os.path.join(self.log_dir, _file_name(key) + ".log")
            waiting[key] = (slot, WorkerProcess(key, slot.lib.module,
                                                self.settings.threads, log, env))
        for key, (slot, proc) in waiting.items():
            self._greet(slot, proc)

    def _greet(self, slot, proc):
        """Wait for a new worker's hello: it imported the library, or not."""
        try:
            hello = proc.receive(self.settings.timeout_s)
        except WorkerError as exc:
            hello = {"ready": False, "error": f"{slot.lib.module}: {exc}"}
        if not hello.get("ready"):
            proc.close()
            self.unavailable[proc.key] = hello.get("error", "worker failed to start")
            return
        self.workers[proc.key] = proc
        self.info.setdefault(proc.key, hello["info"])

    def discard(self, proc, timed_out=False):
        """Forget a worker that crashed or hung; the next get() restarts it.

        After MAX_TIMEOUTS hangs the library is given up on, so that a
        library that hangs everywhere cannot stretch the run to hours.
        """
        proc.close()
        if self.workers.get(proc.key) is proc:
            del self.workers[proc.key]
        if timed_out:
            count = self.timeouts[proc.key] = self.timeouts.get(proc.key, 0) + 1
            if count >= MAX_TIMEOUTS:
                self.unavailable[proc.key] = (
                    f"skipped: {count} requests timed out earlier in this run")

    def close(self):
        for proc in list(self.workers.values()):
            proc.close()
        self.workers.clear()


def _file_name(key):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in key)


# --------------------------------------------------------------------------
# timed cases

@dataclasses.dataclass
class _Prepared:
    """A slot whose case is set up in its worker and ready for samples."""

    slot: Slot
    proc: WorkerProcess
    inner: int  # calls per sample
    rewarm: int  # untimed calls before each sample
    rounds: int  # samples this slot will take
    calibration: dict
    samples: list = dataclasses.field(default_factory=list)


def slots_for(case, point, libs):
    """The default slot of every library, then the variant slots of the point."""
    slots = [Slot(lib) for lib in libs]
    for variant in case.variants:
        if variant.runs_at(point):
            slots += [Slot(lib, variant) for lib in libs
                      if variant.libs is None or lib.label in variant.libs]
    return slots


def summarize(values, **extra):
    """Median, min and max of the samples (seconds or bytes)."""
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values), "samples": values, **extra}


def _ask(proc, msg, pool, settings):
    """One request; a crash or hang becomes an error and a fresh worker later."""
    try:
        return proc.request(msg, settings.timeout_s)
    except WorkerError as exc:
        pool.discard(proc, exc.timed_out)
        return {"error": str(exc)}


def _prepare(case, point, slot, pool, settings):
    """Set up, warm up and calibrate one slot: a _Prepared or an error dict."""
    try:
        proc = pool.get(slot)
    except LibraryUnavailable as exc:
        return {"error": str(exc), "unavailable": True}
    msg = {"cmd": "prepare", "key": slot.id, "case": case.id,
           "point": point.label,
           "options": slot.variant.options if slot.variant else {},
           "target_ns": int(settings.target_sample_s * 1e9),
           "warmup_ns": int(settings.warmup_s * 1e9)}
    reply = _ask(proc, msg, pool, settings)
    if "error" in reply:
        return reply
    inner, per_call_s = reply["inner"], reply["per_call_ns"] / 1e9
    # Re-warm with ~10% of a sample; a step long enough to absorb a thread
    # wake-up on its own needs none.
    rewarm = 0 if per_call_s > REWARM_LIMIT_S else max(1, inner // 10)
    # A step so slow that the rounds would blow the budget takes fewer.
    round_s = (inner + rewarm) * per_call_s
    rounds = max(1, min(settings.rounds, int(settings.point_budget_s / round_s)))
    return _Prepared(slot, proc, inner, rewarm, rounds, reply)


def cpu_time_ns(pid):
    """CPU time used so far by all threads of a process (None if unreadable)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total


def wait_until_idle(pid, poll_s=0.002, busy_share=0.05, limit_s=0.2):
    """Wait until process ``pid`` stops using the CPU (at most ``limit_s``).

    OpenMP workers spin after a parallel region before they sleep: libgomp's
    default is 300 000 rounds, ~10 ms here, and a library can choose more.
    A sample taken meanwhile shares its cores with them, so whichever library
    ran last would slow down the other one's sample.
    """
    deadline = time.perf_counter() + limit_s
    before = cpu_time_ns(pid)
    while before is not None and time.perf_counter() < deadline:
        time.sleep(poll_s)
        after = cpu_time_ns(pid)
        if after is None or after - before <= busy_share * poll_s * 1e9:
            return
        before = after


def _sample_rounds(prepared, pool, settings, results):
    """Take samples in turns; the first to go rotates every round."""
    last_proc = None
    for rnd in range(settings.rounds):
        shift = rnd % max(1, len(prepared))
        for prep in prepared[shift:] + prepared[:shift]:
            if rnd >= prep.rounds or prep.slot.id in results:
                continue
            if last_proc is not None and prep.proc is not last_proc:
                # The other worker's threads may still spin for a while
                # after its last op; do not let them steal this sample's CPU.
                time.sleep(settings.switch_pause_s)
                wait_until_idle(last_proc.proc.pid)
            reply = _ask(prep.proc, {"cmd": "sample", "key": prep.slot.id,
                                     "inner": prep.inner, "rewarm": prep.rewarm},
                         pool, settings)
            last_proc = prep.proc
            if "error" in reply:
                results[prep.slot.id] = {"error": reply["error"]}
            else:
                prep.samples.append(reply["ns"] / prep.inner / 1e9)


def run_timed_point(case, point, slots, pool, settings):
    """Time one (case, point) in every slot: {slot id: stats or error}."""
    results, prepared = {}, []
    for slot in slots:
        outcome = _prepare(case, point, slot, pool, settings)
        if isinstance(outcome, _Prepared):
            prepared.append(outcome)
        else:
            results[slot.id] = outcome
    _sample_rounds(prepared, pool, settings, results)
    for prep in prepared:
        if prep.slot.id not in results:
            cal = prep.calibration
            results[prep.slot.id] = summarize(
                prep.samples, inner=prep.inner,
                first_call_s=cal["first_call_ns"] / 1e9,
                warmup_calls=cal["warmup_calls"])
        if prep.proc.alive:
            _ask(prep.proc, {"cmd": "release", "key": prep.slot.id}, pool, settings)
    return results


# --------------------------------------------------------------------------
# probes: numbers that need a fresh interpreter per measurement

class ProbeError(Exception):
    pass


def _rotate(items, shift):
    shift %= max(1, len(items))
    return items[shift:] + items[:shift]


def _run_child(argv, timeout, env=None):
    """Run a probe process; its stdout, or ProbeError with the reason."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ProbeError(f"timed out after {timeout:g} s") from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [""]
        raise ProbeError(f"{describe_exit(done.returncode)}: {lines[-1][:300]}")
    return done.stdout


def import_once(module, timeout):
    """(seconds, rss_bytes) of `import module` in a fresh interpreter."""
    if not all(part.isidentifier() for part in module.split(".")):
        raise ProbeError(f"not a module name: {module!r}")
    code = worker_side.IMPORT_PROBE.format(module=module, tag=worker_side.PROBE_TAG)
    # A user's Python caches bytecode (pip compiles it at install); a shell with
    # PYTHONDONTWRITEBYTECODE would time the compiler instead.  The discarded
    # first round writes the cache.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = _run_child([sys.executable, "-c", code], timeout, env=env)
    for line in reversed(out.splitlines()):
        if line.startswith(worker_side.PROBE_TAG):
            _, ns, rss = line.split()
            return int(ns) / 1e9, int(rss)
    raise ProbeError("import probe printed no result")


def _json_probe(module, threads, probe, args, timeout, what, env=None):
    """The JSON reply a worker's ``probe`` prints last, run in a fresh process."""
    out = _run_child([sys.executable, WORKER_SCRIPT, "--module", module,
                      "--threads", str(threads), "--probe", probe, *args], timeout, env=env)
    try:
        reply = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ProbeError(f"{what} probe printed no result") from None
    if "error" in reply:
        raise ProbeError(reply["error"])
    return reply


def peak_rss_once(module, threads, steps, timeout):
    """The probe's JSON reply after `steps` MLP steps in a fresh process."""
    return _json_probe(module, threads, "peak_rss", ["--steps", str(steps)], timeout, "peak RSS")


def activation_memory_once(module, threads, mode, timeout):
    """The probe's JSON reply after one deep-MLP forward + backward in ``mode``."""
    return _json_probe(module, threads, "activation_memory", ["--mode", mode], timeout,
                       "activation memory", env={**os.environ, **ACT_ENV})


def run_probe_rounds(libs, rounds, measure, skip=None):
    """Call measure(lib) for each library in turns, ``rounds`` times over.

    Every result is kept: a caller that wants a warm-up drops the first itself.

    Returns {label: [result, ...]} or {label: {"error": ...}}.  ``skip`` maps
    labels already known to be broken to their error.
    """
    out = {lib.label: [] for lib in libs}
    errors = dict(skip or {})
    for rnd in range(rounds):
        for lib in _rotate(list(libs), rnd):
            if lib.label in errors:
                continue
            try:
                out[lib.label].append(measure(lib))
            except ProbeError as exc:
                errors[lib.label] = str(exc)
    out.update({label: {"error": err} for label, err in errors.items()
                if label in out})
    return out


def run_import_probe(libs, settings, skip=None):
    """{label: {"seconds": stats, "rss_bytes": stats}} or errors."""
    # One extra first round warms the page cache; it is not counted.
    raw = run_probe_rounds(libs, 1 + settings.import_repeats,
                           lambda lib: import_once(lib.module, settings.timeout_s),
                           skip)
    result = {}
    for label, runs in raw.items():
        if isinstance(runs, dict):
            result[label] = runs
            continue
        runs = runs[1:] or runs
        result[label] = {"seconds": summarize([r[0] for r in runs]),
                         "rss_bytes": summarize([r[1] for r in runs])}
    return result


def _probe_stats(raw, key, details):
    """{label: {key: stats of each run's key, with details(runs)}}, errors kept as they are."""
    result = {}
    for label, runs in raw.items():
        if isinstance(runs, dict):  # an error
            result[label] = runs
            continue
        result[label] = {key: summarize([r[key] for r in runs], **details(runs))}
    return result


def run_peak_rss_probe(libs, settings, steps, skip=None):
    """{label: {"peak_bytes": stats}} or errors."""
    raw = run_probe_rounds(
        libs, settings.peak_rss_repeats,
        lambda lib: peak_rss_once(lib.module, settings.threads, steps,
                                  settings.timeout_s), skip)
    return _probe_stats(raw, "peak_bytes", lambda runs: {
        "steps": steps, "ru_maxrss_bytes": max(r["ru_maxrss_bytes"] for r in runs)})


def run_activation_probe(libs, settings, mode, skip=None):
    """{label: {"peak_delta_bytes": stats}} or errors, for one mode."""
    raw = run_probe_rounds(
        libs, settings.peak_rss_repeats,
        lambda lib: activation_memory_once(lib.module, settings.threads, mode,
                                           settings.timeout_s), skip)
    return _probe_stats(raw, "peak_delta_bytes", lambda runs: {
        "mode": mode, "rss_before_bytes": [r["rss_before_bytes"] for r in runs]})


# --------------------------------------------------------------------------
# the whole run

def run_probe_case(case, point, libs, settings, cache, skip):
    """Probe results for one probe case; probes shared by cases run once."""
    # the activation probe measures something else at each point
    key = (case.probe, point.value) if case.probe == "activation_memory" else case.probe
    if key not in cache:
        if case.probe == "import":
            cache[key] = run_import_probe(libs, settings, skip)
        elif case.probe == "peak_rss":
            cache[key] = run_peak_rss_probe(libs, settings, point.value, skip)
        elif case.probe == "activation_memory":
            cache[key] = run_activation_probe(libs, settings, point.value, skip)
        else:
            raise ValueError(f"unknown probe {case.probe!r}")
    return {label: res if "error" in res else res[case.metric]
            for label, res in cache[key].items()}


def run_all(items, libs, settings, pool, progress, on_result):
    """Run every (case, point) in ``items``; hand each outcome to on_result.

    on_result(case, point, slots, {slot id: stats or error}).
    """
    probe_cache = {}
    for case, point in items:
        progress.set_postfix_str(f"{case.id} {point.label}".strip(), refresh=True)
        if case.timed:
            slots = slots_for(case, point, libs)
            outcome = run_timed_point(case, point, slots, pool, settings)
        else:
            slots = [Slot(lib) for lib in libs]
            skip = {lib.label: pool.unavailable[lib.label]
                    for lib in libs if lib.label in pool.unavailable}
            outcome = run_probe_case(case, point, libs, settings, probe_cache, skip)
        on_result(case, point, slots, outcome)
        progress.update(1)
