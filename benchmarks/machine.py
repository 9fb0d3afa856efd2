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


def busy_warning(share):
    """A warning when other processes compete for the CPU, else None."""
    if share is None or share < 0.15:
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
    }
