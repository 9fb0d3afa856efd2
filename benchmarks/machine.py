"""What machine, software and environment a benchmark run happened on.

Everything is read without importing numpy, torch or gradtrack: the parent
process must stay free of their thread pools.  Library versions as seen
*inside* each worker are added by the harness.
"""

import datetime
import os
import platform
import re
import subprocess
import sys
import time
from importlib import metadata

# Variables that change how the libraries thread or pick kernels.  They are
# recorded, never changed: the run uses the environment it was given.
THREAD_ENV = re.compile(r"^(OPENBLAS_|OMP_|MKL_|GOMP_|KMP_|GRADTRACK_)")


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else platform's guess."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores():
    """Cores this process may run on (affinity), else the logical count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def total_ram_bytes():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _cpu_times():
    """(busy, total) jiffies over all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def others_cpu_share(interval=0.5):
    """Share of all CPUs busy during ``interval`` s while this process sleeps.

    Measured when no worker runs, so it is other processes' load (a build,
    another benchmark).  None where /proc/stat does not exist.
    """
    try:
        busy0, total0 = _cpu_times()
        time.sleep(interval)
        busy1, total1 = _cpu_times()
    except (OSError, ValueError, IndexError):
        return None
    return round((busy1 - busy0) / max(1, total1 - total0), 3)


# Other processes' share of the CPU at or above which a run, or a row, is
# marked as measured under load.
LOAD_SHARE = 0.15


def _tree_jiffies(pid):
    """CPU ticks used by ``pid`` and every descendant, dead or alive.

    A reaped child's ticks move into its parent's cutime/cstime, so summing
    utime+stime+cutime+cstime over the live tree never loses or repeats any.
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total = sum(int(x) for x in fields[11:15])
    except (OSError, ValueError, IndexError):
        return 0
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except (OSError, ValueError):
        children = []
    return total + sum(_tree_jiffies(c) for c in children)


class LoadMonitor:
    """Other processes' CPU share between calls, this run's own use excluded.

    The runner's parent, its workers and the probes' fresh interpreters are
    all descendants of this process; whatever else kept the CPUs busy is load.
    """

    def __init__(self):
        self._last = self._read()

    @staticmethod
    def _read():
        try:
            busy, total = _cpu_times()
        except (OSError, ValueError, IndexError):
            return None
        return busy, total, _tree_jiffies(os.getpid())

    def share(self):
        """Others' share of all CPUs since the last call (None if unknown)."""
        now, last = self._read(), self._last
        self._last = now
        if now is None or last is None or now[1] <= last[1]:
            return None
        others = (now[0] - last[0]) - (now[2] - last[2])
        return round(min(1.0, max(0.0, others / (now[1] - last[1]))), 3)


def load_average():
    """The 1-minute load average, or None."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _cpu_fields():
    """The first processor's flags, MHz, vendor and family from /proc/cpuinfo."""
    fields = {"flags": set(), "mhz": None, "vendor": None, "family": None}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip().lower(), value.strip()
                if key == "flags" and not fields["flags"]:
                    fields["flags"] = set(value.split())
                elif key == "cpu mhz" and fields["mhz"] is None:
                    fields["mhz"] = float(value)
                elif key == "vendor_id" and fields["vendor"] is None:
                    fields["vendor"] = value
                elif key == "cpu family" and fields["family"] is None:
                    fields["family"] = int(value)
    except (OSError, ValueError):
        pass
    return fields


VENDOR_FOLDERS = {"AuthenticAMD": "amd", "GenuineIntel": "intel"}


def vendor_folder(vendor=None):
    """The committed report's folder for a CPU vendor: ``amd``, ``intel``, or the
    vendor id in lower case (``other`` when /proc/cpuinfo names none)."""
    if vendor is None:
        vendor = _cpu_fields()["vendor"]
    if not vendor:
        return "other"
    return VENDOR_FOLDERS.get(vendor) or re.sub(r"[^a-z0-9]+", "-", vendor.lower()).strip("-")


def fma_datapath(flags, vendor, family):
    """(float32 lanes per FMA unit, FMA units per core) of an x86 core.

    Current x86 server cores have two FMA units.  Their width is the widest
    vector the core executes in one pass: AVX-512 on Intel parts that have it,
    but AMD's cores before Zen 5 (family 26) execute a 512-bit instruction as
    two 256-bit halves, so a Zen 4 with AVX-512 still does two 8-lane FMAs a
    cycle, like Zen 3.
    """
    wide = "avx512f" in flags and not (vendor == "AuthenticAMD" and (family or 0) < 26)
    if wide:
        return 16, 2
    if {"avx2", "fma"} <= flags or "avx512f" in flags:
        return 8, 2
    return 4, 1


def peak_flops_formula():
    """float32 peak from the CPU's spec: cores x lanes x FMA units x 2 x clock.

    The clock is the one /proc/cpuinfo reports, so turbo can make the real
    peak higher (the FMA loop case measures it).
    """
    cpu = _cpu_fields()
    if cpu["mhz"] is None:
        return None
    lanes, units = fma_datapath(cpu["flags"], cpu["vendor"], cpu["family"])
    cores = usable_cores()
    return {"flops": cores * lanes * units * 2 * cpu["mhz"] * 1e6, "cores": cores,
            "lanes": lanes, "units": units, "flops_per_fma": 2, "mhz": cpu["mhz"]}


def cache_sizes():
    """{"L1d": bytes, "L2": bytes, "L3": bytes} of the first CPU, as far as sysfs says."""
    sizes = {}
    root = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return sizes
    for entry in entries:
        try:
            with open(os.path.join(root, entry, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(root, entry, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(root, entry, "size")) as f:
                text = f.read().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        try:
            size = int(text.rstrip("KMG")) * scale
        except ValueError:
            continue
        sizes["L1d" if level == "1" else f"L{level}"] = size
    return sizes


def busy_warning(share):
    """A warning when other processes compete for the CPU, else None."""
    if share is None or share < LOAD_SHARE:
        return None
    return (f"other processes kept {share:.0%} of the CPU busy just before the "
            f"run: timings will be noisy (the ratios less so, since the "
            f"libraries take turns).")


def dist_version(name):
    """Installed distribution version, or None (nothing is imported)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def git_revision(repo_root):
    """``git describe`` of the source tree, or None outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "-C", repo_root, "describe", "--always", "--dirty"],
            capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def machine_info(repo_root):
    """A JSON-ready description of the machine and the software on it."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "vendor": vendor_folder(),
        "cores_logical": os.cpu_count(),
        "cores_usable": usable_cores(),
        "ram_bytes": total_ram_bytes(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "packages": {name: dist_version(name)
                     for name in ("numpy", "torch", "gradtrack",
                                  "scipy-openblas32")},
        "thread_env": {k: v for k, v in sorted(os.environ.items())
                       if THREAD_ENV.match(k)},
        "git": git_revision(repo_root),
        "others_cpu_share_start": others_cpu_share(),
        "load_average_start": load_average(),
        "peak_flops_formula": peak_flops_formula(),
        "caches": cache_sizes(),
    }
