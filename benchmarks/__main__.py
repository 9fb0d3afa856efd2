"""Command line of the benchmark runner: ``python -m benchmarks --help``."""

import argparse
import dataclasses
import fnmatch
import json
import os
import sys
import time

from . import cases as case_defs
from . import chart, report
from .goals import GOALS
from .harness import Lib, Slot, WorkerPool, make_settings, run_all
from .machine import (
    LOAD_SHARE,
    LoadMonitor,
    busy_warning,
    load_average,
    machine_info,
    others_cpu_share,
    usable_cores,
    vendor_folder,
)

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(PACKAGE_DIR)
# The committed report, one folder per CPU vendor (results/amd/, results/intel/)
# and a chart of them side by side; a run writes there only with --update-report.
REPORT_OUT = os.path.join(PACKAGE_DIR, "results")
VENDORS_CHART = os.path.join(REPORT_OUT, "vendors.png")
# Every other run gets a folder of its own here (git-ignored).
RUNS_DIR = os.path.join(PACKAGE_DIR, "runs")
# Testing aid only: makes the "gradtrack" slot import another module (e.g.
# torch) so the runner can be exercised before gradtrack works.
STANDIN_ENV = "GRADTRACK_BENCH_STANDIN"

EPILOG = """\
--cases takes comma-separated patterns.  A pattern matches a case point if
it equals the case id, its group or "id/size", or is a substring of the id;
with * ? [ ] it is a glob over the same names.  Examples:
  --cases matmul            matmul and op_matmul, every size
  --cases 'matmul/1024'     one point
  --cases 'reductions,import_*'
Use --list to see the ids.  Set GRADTRACK_BENCH_STANDIN=torch to make the
gradtrack slot import torch (for testing the runner only).
"""


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Benchmark gradtrack against torch, case by case, each "
                    "library in its own process, and check the goals.")
    p.add_argument("--quick", action="store_true",
                   help="fewer and shorter samples: under 2 minutes")
    p.add_argument("--cases", default="", metavar="PATTERN",
                   help="only the matching case points (see below)")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="threads for EACH library (default: all usable cores)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where latest.json/.png/.txt go (default: a new "
                        "benchmarks/runs/<date-time>/, git-ignored)")
    p.add_argument("--update-report", action="store_true",
                   help="write the committed report, benchmarks/results/<vendor>/latest.*, "
                        "instead of a folder under benchmarks/runs/")
    p.add_argument("--libs", default="gradtrack,torch", metavar="A,B",
                   help="candidate,baseline modules (default: %(default)s); "
                        "ratios are A/B")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="kill a worker whose request takes longer than S "
                        "seconds (default: 60 with --quick, else 300)")
    p.add_argument("--list", action="store_true",
                   help="list the cases and goals, then exit")
    args = p.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    if args.out is not None and args.update_report:
        p.error("--out and --update-report name different places; give one")
    return args


def output_dir(args):
    """--out, the committed report's folder, or a fresh run folder."""
    if args.out is not None:
        return args.out
    if args.update_report:
        return os.path.join(REPORT_OUT, vendor_folder())
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = os.path.join(RUNS_DIR, stamp), 1
    while os.path.exists(path):  # two runs in one second
        n += 1
        path = os.path.join(RUNS_DIR, f"{stamp}-{n}")
    return path


def resolve_libs(spec):
    """Lib entries for '--libs a,b'; duplicate names get '#2' labels."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not 1 <= len(names) <= 2:
        raise SystemExit("--libs takes one or two module names, e.g. gradtrack,torch")
    libs, seen = [], {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        label = name if seen[name] == 1 else f"{name}#{seen[name]}"
        module, standin = name, False
        if name == "gradtrack" and os.environ.get(STANDIN_ENV):
            module, standin = os.environ[STANDIN_ENV], True
        libs.append(Lib(label, module, standin))
    return libs


def _pattern_hits(case, point, pattern):
    names = [case.id, case.group, f"{case.id}/{point.label}"]
    if any(ch in pattern for ch in "*?["):
        return any(fnmatch.fnmatchcase(n, pattern) for n in names)
    return pattern in names or pattern in case.id


def select_items(spec):
    """(case, point) pairs matching the --cases patterns, in case order."""
    patterns = [p.strip() for p in spec.split(",") if p.strip()]
    return [(case, point) for case in case_defs.CASES for point in case.points
            if not patterns or any(_pattern_hits(case, point, pat)
                                   for pat in patterns)]


def print_case_list():
    for case in case_defs.CASES:
        kind = "timed" if case.timed else f"probe:{case.probe}"
        sizes = ", ".join(p.label or "-" for p in case.points)
        variants = "".join(f"  [variant: {v.name}]" for v in case.variants)
        print(f"{case.id:24} {kind:14} {case.title}  ({sizes}){variants}")
    print("\nGoals (ratio candidate/baseline must be <=):")
    for g in GOALS:
        print(f"  {g.case:24} {g.point or 'all sizes':10} {g.max_ratio:<5g} {g.why}")


class _NoProgress:
    """Stands in for tqdm when it is not installed."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, s, refresh=True):
        pass

    def close(self):
        pass


def make_progress(total):
    """A tqdm bar on stderr (stdout stays clean for the table)."""
    try:
        from tqdm import tqdm
    except ImportError:
        print("(tqdm is not installed: no progress bar)", file=sys.stderr)
        return _NoProgress()
    return tqdm(total=total, file=sys.stderr, unit="pt", desc="benchmarks",
                dynamic_ncols=True, leave=False)


def start_libraries(libs, pool):
    """Start each library's worker up front, so failures show at once."""
    notes = []
    pool.start([Slot(lib) for lib in libs])
    for lib in libs:
        if lib.label in pool.unavailable:
            notes.append(f"{lib.label} is not usable ({pool.unavailable[lib.label]}); "
                         f"its cases are reported as errors, the others still run.")
        if lib.standin:
            notes.append(f"{lib.label} slot is a STAND-IN importing "
                         f"'{lib.module}' ({STANDIN_ENV}); not real gradtrack numbers.")
    return notes


def header_lines(libs, pool, machine, settings, n_items):
    """What is being compared, where, and how."""
    ram = machine["ram_bytes"] / 2 ** 30 if machine["ram_bytes"] else 0
    lines = [f"gradtrack benchmarks: {'quick' if settings.quick else 'full'} run, "
             f"{n_items} case points, {settings.threads} threads per library",
             f"  machine: {machine['cpu']}, {machine['cores_usable']} cores, "
             f"{ram:.1f} GiB RAM, {machine['os']}, Python {machine['python']}"]
    for lib in libs:
        info = pool.info.get(lib.label)
        if info is None:
            lines.append(f"  {lib.label}: NOT IMPORTABLE (see the note below)")
            continue
        if not info["threads_applied"]:
            threads = f"threads NOT set: {info['threads_note']}"
        elif info["threads_reported"] is None:
            threads = f"threads set to {settings.threads} (no get_num_threads)"
        else:
            threads = f"threads {info['threads_reported']}"
        lines.append(f"  {lib.label}: {info['module']} {info['version']}, {threads}")
    env = machine["thread_env"]
    lines.append("  thread env: " + (", ".join(f"{k}={v}" for k, v in env.items())
                                     if env else "(none set)"))
    return lines


def prepare_out(out):
    out_dir = os.path.abspath(out)
    log_dir = os.path.join(out_dir, "logs")
    os.makedirs(log_dir, exist_ok=True)
    for name in os.listdir(log_dir):  # logs describe the latest run only
        if name.endswith(".log"):
            os.remove(os.path.join(log_dir, name))
    return out_dir, log_dir


def measure(items, libs, settings, pool):
    """Run the cases with a progress bar; (records, interrupted).

    Each record gets the share of the CPU other processes used while it was
    measured, so a row taken under load can be marked as such.
    """
    records = []
    monitor = LoadMonitor()

    def keep(case, point, slots, outcome):
        record = report.build_record(case, point, slots, outcome, libs)
        share = monitor.share()
        record["others_cpu_share"] = share
        record["loaded"] = share is not None and share >= LOAD_SHARE
        records.append(record)

    progress = make_progress(len(items))
    try:
        run_all(items, libs, settings, pool, progress, keep)
    except KeyboardInterrupt:
        return records, True
    finally:
        progress.close()
    return records, False


def write_outputs(document, out_dir, text):
    """latest.json, latest.txt and (with two libraries) latest.png, and
    latest_growth.png when the run timed the growth chart's cases."""
    paths = [report.write_json(document, out_dir)]
    txt = os.path.join(out_dir, "latest.txt")
    with open(txt, "w") as f:
        f.write(text + "\n")
    paths.append(txt)
    png = os.path.join(out_dir, "latest.png")
    growth = os.path.join(out_dir, "latest_growth.png")
    for old in (png, growth):
        if os.path.exists(old):
            os.remove(old)  # never leave an older run's chart next to this JSON
    if len(document["libraries"]) >= 2 and document["results"]:
        try:
            paths.append(chart.draw_chart(document, png))
            drawn = chart.draw_growth(document, growth)
            if drawn:
                paths.append(drawn)
        except ImportError as exc:
            print(f"no chart: {exc}", file=sys.stderr)
    return paths


def draw_vendors_chart():
    """Redraw results/vendors.png from every vendor's committed report; None
    without matplotlib or with no report to draw."""
    documents = {}
    for name in sorted(os.listdir(REPORT_OUT)):
        path = os.path.join(REPORT_OUT, name, "latest.json")
        if os.path.isfile(path):
            with open(path) as f:
                documents[name] = json.load(f)
    try:
        return chart.draw_vendors(documents, VENDORS_CHART)
    except ImportError as exc:
        print(f"no vendor chart: {exc}", file=sys.stderr)
        return None


def main(argv=None):
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # µ and ≤ on odd terminals
    args = parse_args(argv)
    if args.list:
        print_case_list()
        return 0
    libs, items = resolve_libs(args.libs), select_items(args.cases)
    if not items:
        print(f"no case matches {args.cases!r}; see --list", file=sys.stderr)
        return 2
    settings = make_settings(args.quick, args.threads or usable_cores(), args.timeout)
    out_dir, log_dir = prepare_out(output_dir(args))
    machine = machine_info(REPO_ROOT)
    pool = WorkerPool(settings, log_dir)
    started = time.time()
    try:
        notes = start_libraries(libs, pool)
        busy = busy_warning(machine["others_cpu_share_start"])
        if busy:
            notes.append(busy)
        head = header_lines(libs, pool, machine, settings, len(items))
        head += [f"  NOTE: {n}" for n in notes]
        print("\n".join(head), flush=True)
        records, interrupted = measure(items, libs, settings, pool)
    finally:
        pool.close()
    machine["others_cpu_share_end"] = others_cpu_share()
    machine["load_average_end"] = load_average()
    document = report.new_document(
        mode="quick" if settings.quick else "full", command=sys.argv,
        started=machine["date"], duration_s=round(time.time() - started, 1),
        interrupted=interrupted, settings=dataclasses.asdict(settings),
        machine=machine, libraries=report.library_section(libs, pool),
        candidate=libs[0].label, baseline=libs[1].label if len(libs) > 1 else None,
        notes=notes, goals=[dataclasses.asdict(g) for g in GOALS],
        results=records, summary=report.summarize_goals(records),
        load=report.load_section(machine, records, LOAD_SHARE),
        extra_goals=report.extra_goals(records, machine, libs))
    text = report.render_report(document)
    paths = write_outputs(document, out_dir, "\n".join(head + [""]) + "\n" + text)
    if args.update_report:
        drawn = draw_vendors_chart()
        if drawn:
            paths.append(drawn)
    print("\n" + text)
    print(f"\n{'INTERRUPTED after' if interrupted else 'Done in'} "
          f"{document['duration_s']:.0f} s. Wrote " + ", ".join(paths))
    if interrupted:
        return 130
    usable = any(info["available"] for info in document["libraries"].values())
    return 0 if usable else 1


if __name__ == "__main__":
    sys.exit(main())
