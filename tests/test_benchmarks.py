"""The benchmark runner, end to end, as a user runs it.

Every test starts ``python -m benchmarks`` in a subprocess from the repository
root and checks what it writes.  Nothing here asserts anything about speed:
the point is that the runner covers every case, never crashes on a broken or
missing library, computes the ratios and evaluates the goals.

Time: ``test_quick_run_*`` share one ``--quick`` run of every case with the
real gradtrack and torch (about a minute on the 2-core dev machine; most of it
is torch's 1.5 s import, repeated by the import-time probe).  The other runs
use a few cases only and take a few seconds each.

Two testing aids of the runner are used here:
``GRADTRACK_BENCH_STANDIN=<module>`` makes the "gradtrack" slot import
another module (torch, a fake that crashes, or one that does not exist), so the
ratio and error paths are exercised whatever state gradtrack is in.
"""

import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import env_for_rss_child

pytest.importorskip("torch")  # the baseline every ratio needs
pytest.importorskip("matplotlib")  # the chart

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # `benchmarks` lives at the root, not in the wheel

from benchmarks import cases as bench_cases  # noqa: E402
from benchmarks.goals import GOALS, goal_for  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_bench(out_dir, *args, env=None, timeout=900):
    """Run the runner; return (completed process, parsed latest.json).

    Its memory cases measure peak RSS, so the child runs as env_for_rss_child sets up.
    """
    full_env = env_for_rss_child()
    full_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--out", str(out_dir), *args],
        cwd=REPO, env=full_env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with open(Path(out_dir) / "latest.json") as f:
        return done, json.load(f)


def by_key(document):
    return {(r["case"], r["point"]): r for r in document["results"]}


def assert_stats_or_error(result):
    """A library's entry: numbers that make sense, or an explicit error."""
    if "error" in result:
        assert isinstance(result["error"], str) and result["error"].strip()
        return False
    assert result["n"] >= 1 and len(result["samples"]) == result["n"]
    assert 0 < result["min"] <= result["median"] <= result["max"]
    return True


def assert_ratio_and_goal(record, cand="gradtrack", base="torch"):
    """ratio = median/median when both ran; goal met iff ratio <= target."""
    a, b = record["libs"][cand], record["libs"][base]
    if "error" in a or "error" in b:
        assert record["ratio"] is None
    else:
        assert record["ratio"] == pytest.approx(a["median"] / b["median"])
    goal = goal_for(record["case"], record["point"])
    if goal is None:
        assert record["goal"] is None
        return
    assert record["goal"]["max_ratio"] == goal.max_ratio
    expected = None if record["ratio"] is None else record["ratio"] <= goal.max_ratio
    assert record["goal"]["met"] is expected


def assert_valid_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 300 and height > 200
    assert data.rstrip(b"\0")[-8:-4] == b"IEND"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One real --quick run with the default libraries (gradtrack, torch)."""
    out = tmp_path_factory.mktemp("bench_quick")
    done, doc = run_bench(out, "--quick")
    return out, done, doc


def test_quick_run_reports_every_case_for_both_libraries(quick_run):
    _, _, doc = quick_run
    records = by_key(doc)
    expected = {(c.id, p.label) for c in bench_cases.CASES for p in c.points}
    assert set(records) == expected
    assert len(doc["results"]) == len(expected)  # each exactly once
    for record in doc["results"]:
        assert set(record["libs"]) == {"gradtrack", "torch"}
        assert_stats_or_error(record["libs"]["gradtrack"])
        # torch is the reference: it must always produce numbers
        assert assert_stats_or_error(record["libs"]["torch"]), record


def test_quick_run_computes_ratios_and_evaluates_every_goal(quick_run):
    _, _, doc = quick_run
    records = by_key(doc)
    for record in doc["results"]:
        assert_ratio_and_goal(record)
    for goal in GOALS:
        case = bench_cases.by_id(goal.case)
        points = [p.label for p in case.points if goal.point in (None, p.label)]
        assert points, f"goal {goal} names no point"
        for label in points:
            assert records[(goal.case, label)]["goal"] is not None
    s = doc["summary"]
    assert s["goals_total"] == s["goals_met"] + s["goals_missed"] + s["goals_unknown"]
    assert s["goals_total"] == sum(1 for r in doc["results"] if r["goal"])


def test_quick_run_reports_variants_machine_and_threads(quick_run):
    _, _, doc = quick_run
    mlp = by_key(doc)[("mlp_step", "b64")]
    assert {v["lib"] for v in mlp["variants"]} == {"gradtrack", "torch"}
    for variant in mlp["variants"]:
        assert_stats_or_error(variant["result"])
    # the read loop runs beside the 16M reductions only, in both libraries,
    # and the floor goal divides by it round by round
    by = by_key(doc)
    assert by[("sum", "1K")]["variants"] == []
    for case in ("sum", "sum_dim", "mean", "max"):
        rec = by[(case, "16M")]
        assert [(v["variant"], v["lib"]) for v in rec["variants"]] == [
            ("bare read loop", "gradtrack"), ("bare read loop", "torch")]
    floor = {e["case"]: e for e in doc["extra_goals"]["floor"]}
    assert set(floor) == {"sum", "sum_dim", "mean", "max"}
    assert all(floor["sum"]["paired"].values())
    machine = doc["machine"]
    for key in ("cpu", "cores_usable", "ram_bytes", "os", "python", "date",
                "packages", "thread_env"):
        assert key in machine
    assert doc["settings"]["threads"] >= 1
    torch_info = doc["libraries"]["torch"]
    assert torch_info["available"] is True and torch_info["threads_applied"]
    assert torch_info["threads_reported"] == doc["settings"]["threads"]


def test_quick_run_writes_table_png_and_text(quick_run):
    out, done, doc = quick_run
    assert_valid_png(out / "latest.png")
    assert (out / "latest.txt").read_text().strip()
    header = next(line for line in done.stdout.splitlines() if line.startswith("case"))
    for column in ("size", "gradtrack", "torch", "ratio", "goal", "met?"):
        assert column in header
    assert "Goals:" in done.stdout


def test_quick_run_reports_autocast_step_and_checkpointed_memory(quick_run):
    _, done, doc = quick_run
    by = by_key(doc)
    autocast = by[("mlp_autocast_step", "b64")]
    assert autocast["goal"]["max_ratio"] == 1.0 and autocast["unit"] == "s"
    modes = ("plain", "checkpoint", "checkpoint_sequential")
    for mode in modes:
        rec = by[("activation_memory", mode)]
        assert rec["unit"] == "B" and rec["goal"]["max_ratio"] == 1.0
        for result in rec["libs"].values():
            if "error" not in result:  # a peak delta of tens of MiB, not of noise
                assert 16 << 20 < result["median"] < 1 << 30
                assert result["mode"] == mode
    saving = {e["point"]: e["ratios"] for e in doc["extra_goals"]["checkpoint_memory"]}
    assert set(saving) == set(modes[1:])
    # torch frees each recomputed block after its backward: its checkpointed peak is
    # well under the plain one (measured 0.55 and 0.37)
    assert saving["checkpoint"]["torch"] < 0.8
    assert saving["checkpoint_sequential"]["torch"] < 0.85
    assert "Activation checkpointing: peak of the checkpointed fwd+bwd" in done.stdout


def test_standin_yields_numeric_ratios_and_goal_verdicts(tmp_path):
    """With torch in both slots every ratio exists and every goal is decided."""
    _, doc = run_bench(tmp_path, "--quick", "--cases", "op_add,matmul/1024,mlp_step",
                       env={"GRADTRACK_BENCH_STANDIN": "torch"})
    assert doc["libraries"]["gradtrack"]["standin"] is True
    assert {r["case"] for r in doc["results"]} == {"op_add", "matmul", "mlp_step"}
    for record in doc["results"]:
        assert record["ratio"] is not None and record["ratio"] > 0
        assert record["goal"]["met"] in (True, False)
        assert_ratio_and_goal(record)
        for variant in record["variants"]:
            assert variant["ratio"] is not None
    assert_valid_png(tmp_path / "latest.png")


FAKE_LIBRARY = '''
"""A library that crashes, hangs or raises, depending on the case."""
import os, signal, time

__version__ = "0-broken"

def set_num_threads(n):
    pass

def randn(*shape, requires_grad=False):
    if shape == (1,):                  # op_add: the process dies
        os.kill(os.getpid(), signal.SIGSEGV)
    if shape == (2, 3):                # graph_sq_sum: the process hangs
        time.sleep(3600)
    raise NotImplementedError("randn is not written yet")
'''


def test_broken_library_gives_error_entries_not_a_crash(tmp_path):
    fake_dir = tmp_path / "fake"
    fake_dir.mkdir()
    (fake_dir / "brokenlib.py").write_text(textwrap.dedent(FAKE_LIBRARY))
    env = {"GRADTRACK_BENCH_STANDIN": "brokenlib",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(fake_dir),
                                                       os.environ.get("PYTHONPATH")]))}
    out = tmp_path / "out"
    done, doc = run_bench(out, "--quick", "--timeout", "10", "--cases",
                          "op_add/no grad,graph_sq_sum,add/1K", env=env)
    records = by_key(doc)
    errors = {key: r["libs"]["gradtrack"].get("error", "") for key, r in records.items()}
    assert "SIGSEGV" in errors[("op_add", "no grad")]
    assert "timed out" in errors[("graph_sq_sum", "2x3")]
    assert "NotImplementedError: randn is not written yet" in errors[("add", "1K")]
    for record in doc["results"]:
        assert assert_stats_or_error(record["libs"]["torch"])  # torch unaffected
        assert record["ratio"] is None
        if record["goal"]:
            assert record["goal"]["met"] is None
    assert "Errors" in done.stdout


def test_unimportable_gradtrack_still_runs_torch(tmp_path):
    done, doc = run_bench(tmp_path, "--quick", "--cases", "op_mul/no grad",
                          env={"GRADTRACK_BENCH_STANDIN": "no_such_module_for_bench"})
    assert doc["libraries"]["gradtrack"]["available"] is False
    assert "not usable" in done.stdout
    (record,) = doc["results"]
    assert "No module named" in record["libs"]["gradtrack"]["error"]
    assert assert_stats_or_error(record["libs"]["torch"])


def test_list_names_every_case_and_goal():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--list"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for case in bench_cases.CASES:
        assert case.id in done.stdout
    assert "Goals" in done.stdout


def test_every_goal_names_an_existing_case_point():
    for goal in GOALS:
        case = bench_cases.by_id(goal.case)
        if goal.point is not None:
            case.point(goal.point)  # raises KeyError if the size is misspelt


# --------------------------------------------------------------------------
# where a run writes, runs under load, the floor and peak checks

def test_default_run_writes_a_run_folder_not_the_committed_report():
    runs = REPO / "benchmarks" / "runs"
    report = REPO / "benchmarks" / "results" / "latest.json"
    before = set(runs.iterdir()) if runs.exists() else set()
    stamp = report.stat().st_mtime_ns if report.exists() else None
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--libs", "torch",
                           "--cases", "op_add/no grad"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    new = set(runs.iterdir()) - before
    try:
        assert len(new) == 1
        (folder,) = new
        assert (folder / "latest.json").exists() and str(folder) in done.stdout
        assert (report.stat().st_mtime_ns if report.exists() else None) == stamp
    finally:
        import shutil

        for folder in new:
            shutil.rmtree(folder)


def test_out_and_update_report_together_are_refused():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--out", "x",
                           "--update-report"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--update-report" in done.stderr


def _fake_record(case, point, cand, base, share=0.0, group="g"):
    def stats(x):
        return {"median": x, "min": x, "max": x, "n": 1, "samples": [x]}

    return {"case": case, "point": point, "group": group, "title": case, "detail": "",
            "unit": "s", "libs": {"gradtrack": stats(cand), "torch": stats(base)},
            "ratio": cand / base, "goal": None, "variants": [],
            "others_cpu_share": share, "loaded": share >= 0.15}


def _fake_document(records, machine_share=0.0):
    from benchmarks import report
    from benchmarks.harness import Lib

    libs = [Lib("gradtrack", "gradtrack"), Lib("torch", "torch")]
    machine = {"others_cpu_share_start": machine_share, "others_cpu_share_end": 0.0,
               "peak_flops_formula": {"flops": 100e9}, "cpu": "test CPU",
               "cores_usable": 2, "ram_bytes": 2 ** 30, "python": "3", "date":
               "2026-01-01T00:00:00"}
    return report.new_document(
        mode="quick", settings={"threads": 2}, machine=machine,
        libraries={"gradtrack": {"module": "gradtrack"}, "torch": {"module": "torch"}},
        results=records, summary=report.summarize_goals(records),
        load=report.load_section(machine, records, 0.15),
        extra_goals=report.extra_goals(records, machine, libs))


def test_a_loaded_row_marks_the_whole_run_table_and_chart(tmp_path):
    from benchmarks import chart, report

    quiet = _fake_document([_fake_record("matmul", "64", 1.0, 2.0)])
    assert quiet["load"]["under_load"] is False
    text = report.render_report(quiet)
    assert "UNDER LOAD" not in text and "0.5*" not in text
    doc = _fake_document([_fake_record("matmul", "64", 1.0, 2.0),
                          _fake_record("matmul", "128", 3.0, 2.0, share=0.4)])
    assert doc["load"]["under_load"] is True and doc["load"]["rows_loaded"] == 1
    text = report.render_report(doc)
    assert text.startswith("UNDER LOAD: other processes used up to 40% of the CPU")
    assert "0.5*" in text and "1.5*" in text and "40%" in text
    chart.draw_chart(doc, tmp_path / "c.png")
    assert_valid_png(tmp_path / "c.png")
    # a busy machine just before the run is enough, even if no row saw it
    assert _fake_document([_fake_record("matmul", "64", 1.0, 2.0)],
                          machine_share=0.5)["load"]["under_load"] is True


def test_a_noisy_fma_loop_marks_the_run_even_when_no_process_is_seen(tmp_path):
    # On a VM the host's other tenants show neither as processes nor as steal;
    # the FMA loop, fixed work in registers, slows down when they run.
    from benchmarks import chart, report

    def fma(samples):
        rec = _fake_record("fma_peak", "peak", 1.0, 1.0)
        for lab in rec["libs"]:
            rec["libs"][lab] = {"median": sorted(samples)[len(samples) // 2],
                                "min": min(samples), "max": max(samples),
                                "n": len(samples), "samples": samples}
        return rec

    quiet = _fake_document([_fake_record("matmul", "64", 1.0, 2.0), fma([1.0, 1.03, 1.05])])
    assert quiet["load"]["under_load"] is False
    assert quiet["load"]["fma_spread"] == pytest.approx(1.03)
    doc = _fake_document([_fake_record("matmul", "64", 1.0, 2.0), fma([1.0, 1.3, 1.4])])
    load = doc["load"]
    assert load["noisy_host"] is True and load["other_processes"] is False
    assert load["under_load"] is True and load["fma_spread"] == pytest.approx(1.3)
    text = report.render_report(doc)
    assert text.startswith("UNDER LOAD: the FMA loop's median sample took 30% longer than "
                           "its fastest (fma_peak peak, gradtrack worker;")
    assert "other processes" not in text.splitlines()[0] and "0.5*" in text
    chart.draw_chart(doc, tmp_path / "c.png")
    assert_valid_png(tmp_path / "c.png")
    # the variant timed in turns with matmul/1024 counts too
    mm = _fake_record("matmul", "1024", 1.0, 1.0)
    mm["variants"] = [{"variant": "FMA loop, same FLOPs", "lib": "torch",
                       "options": {"fma_loop": True}, "ratio": None,
                       "result": fma([1.0, 1.2, 1.25])["libs"]["torch"]}]
    assert report.fma_spread([mm]) == (pytest.approx(1.2), "matmul 1024, torch worker")
    # both reasons at once
    both = _fake_document([_fake_record("matmul", "64", 1.0, 2.0, share=0.4),
                           fma([1.0, 1.3, 1.4])])
    assert len(report.load_reasons(both["load"])) == 2


def test_checkpoint_saving_divides_each_library_by_its_plain_run():
    from benchmarks import report

    records = [_fake_record("activation_memory", "plain", 100.0, 140.0),
               _fake_record("activation_memory", "checkpoint", 60.0, 70.0),
               _fake_record("activation_memory", "checkpoint_sequential", 80.0, 105.0)]
    records[2]["libs"]["gradtrack"] = {"error": "boom"}
    doc = _fake_document(records)
    saving = {e["point"]: e["ratios"] for e in doc["extra_goals"]["checkpoint_memory"]}
    assert saving == {"checkpoint": {"gradtrack": pytest.approx(0.6),
                                     "torch": pytest.approx(0.5)},
                      "checkpoint_sequential": {"gradtrack": None,
                                                "torch": pytest.approx(0.75)}}
    text = report.render_report(doc)
    assert "checkpoint             gradtrack 0.600, torch 0.500" in text
    assert "checkpoint_sequential  gradtrack ?, torch 0.750" in text
    # without the plain point there is nothing to divide by
    assert _fake_document(records[1:])["extra_goals"]["checkpoint_memory"] == []


def test_floor_and_peak_goals_are_computed_from_the_same_run():
    from benchmarks.cases import FMA_FLOPS

    records = [_fake_record("read_floor", "16M", 0.010, 0.012),
               _fake_record("sum", "16M", 0.0105, 0.020),
               _fake_record("max", "16M", 0.0120, 0.013),
               _fake_record("fma_peak", "peak", FMA_FLOPS / 150e9, FMA_FLOPS / 140e9),
               _fake_record("matmul", "1024", 2 * 1024 ** 3 / 135e9, 2 * 1024 ** 3 / 120e9)]
    extra = _fake_document(records)["extra_goals"]
    floor = {e["case"]: e for e in extra["floor"]}
    assert floor["sum"]["ratios"]["gradtrack"] == pytest.approx(1.05)
    assert floor["sum"]["ratios"]["torch"] == pytest.approx(0.020 / 0.012)
    assert floor["sum"]["met"] is True and floor["max"]["met"] is False
    peak = extra["peak"]
    assert peak["peak_flops"] == pytest.approx(150e9)  # the loop beat the spec's 100
    assert peak["fractions"]["gradtrack"] == pytest.approx(0.9)
    assert peak["fractions"]["torch"] == pytest.approx(0.8)
    assert peak["met"] is True


def test_peak_goal_pairs_each_round_of_the_product_with_the_fma_loop_beside_it():
    from benchmarks import report

    def stats(xs):
        return {"median": sorted(xs)[len(xs) // 2], "min": min(xs), "max": max(xs),
                "n": len(xs), "samples": xs}

    flops = 2 * 1024 ** 3
    mm = _fake_record("matmul", "1024", 0.0, 1.0)
    # product rates 100, 50, 200 GFLOP/s; the loop beside each 125, 50, 250:
    # fractions 0.8, 1.0, 0.8, median 0.8 (the medians' ratio would be 1.0)
    mm["libs"]["gradtrack"] = stats([flops / r for r in (100e9, 50e9, 200e9)])
    mm["libs"]["torch"] = stats([flops / 80e9] * 3)
    mm["variants"] = [
        {"variant": "FMA loop, same FLOPs", "lib": "gradtrack", "options": {"fma_loop": True},
         "result": stats([flops / r for r in (125e9, 50e9, 250e9)]), "ratio": None},
        {"variant": "FMA loop, same FLOPs", "lib": "torch", "options": {"fma_loop": True},
         "result": {"error": "boom"}, "ratio": None}]
    # the separate case says 160 GFLOP/s: used only where the variant failed
    records = [mm, _fake_record("fma_peak", "peak", 4e8 / 160e9, 4e8 / 160e9)]
    peak = _fake_document(records)["extra_goals"]["peak"]
    assert peak["fractions"]["gradtrack"] == pytest.approx(0.8)
    assert peak["paired"] == {"gradtrack": True, "torch": False}
    assert peak["fma_loop_flops"]["torch"] == pytest.approx(160e9)
    assert peak["fractions"]["torch"] == pytest.approx(80 / 160)
    assert peak["met"] is False
    text = report.render_report(_fake_document(records))
    assert "matmul 1024^2 gradtrack: 100 GFLOP/s = 80% of peak" in text
    assert "torch: 80 GFLOP/s = 50% of peak   (not in turns" in text


@pytest.mark.parametrize("flags, vendor, family, expected", [
    ({"avx2", "fma", "avx512f"}, "GenuineIntel", 6, (16, 2)),   # Skylake-SP and later
    ({"avx2", "fma", "avx512f"}, "AuthenticAMD", 25, (8, 2)),   # Zen 4: 512 bits in halves
    ({"avx2", "fma"}, "AuthenticAMD", 25, (8, 2)),              # Zen 3
    ({"avx2", "fma", "avx512f"}, "AuthenticAMD", 26, (16, 2)),  # Zen 5
    ({"sse2", "sse4_2"}, "GenuineIntel", 6, (4, 1)),
])
def test_peak_formula_counts_the_fma_datapath_not_the_instruction_width(
        flags, vendor, family, expected):
    from benchmarks.machine import fma_datapath
    assert fma_datapath(flags, vendor, family) == expected


def test_floor_goal_pairs_each_round_with_the_read_loop_beside_it():
    # samples of the reduction and of its read-loop variant, taken in turns;
    # the separately timed read_floor case (0.5) must not be used
    def stats(xs):
        return {"median": sorted(xs)[len(xs) // 2], "min": min(xs), "max": max(xs),
                "n": len(xs), "samples": xs}

    rec = _fake_record("sum", "16M", 0.0, 1.0)
    rec["libs"]["gradtrack"] = stats([1.0, 2.2, 3.0])
    rec["libs"]["torch"] = stats([1.0, 1.0, 1.0])
    rec["variants"] = [{"variant": "bare read loop", "lib": lab, "options": {"read_loop": True},
                        "result": stats([1.0, 2.0, 2.0]), "ratio": None}
                       for lab in ("gradtrack", "torch")]
    records = [rec, _fake_record("read_floor", "16M", 0.5, 0.5)]
    floor = _fake_document(records)["extra_goals"]["floor"]
    assert [e["case"] for e in floor] == ["sum"]
    # per-round ratios 1.0, 1.1, 1.5: median 1.1; the medians' ratio would be 1.1 too,
    # the separate case 4.4
    assert floor[0]["ratios"]["gradtrack"] == pytest.approx(1.1)
    assert floor[0]["ratios"]["torch"] == pytest.approx(0.5)
    assert floor[0]["paired"] == {"gradtrack": True, "torch": True}
    assert floor[0]["met"] is True
    # a variant that failed falls back to the separate case, and says so
    rec["variants"][0]["result"] = {"error": "boom"}
    doc = _fake_document(records)
    entry = doc["extra_goals"]["floor"][0]
    assert entry["ratios"]["gradtrack"] == pytest.approx(2.2 / 0.5)
    assert entry["paired"]["gradtrack"] is False and entry["met"] is False
    from benchmarks import report
    assert "medians of the separate read_floor case" in report.render_report(doc)


def test_reference_loops_read_and_multiply_add():
    gradtrack = pytest.importorskip("gradtrack")
    a = gradtrack.arange(1 << 20, dtype=gradtrack.float32) % 7
    assert gradtrack._C._bench.read_floor(a) == pytest.approx(a.sum().item(), rel=1e-6)
    assert gradtrack._C._bench.read_floor(a[:1000]) == pytest.approx(a[:1000].sum().item())
    with pytest.raises(RuntimeError, match="contiguous float32"):
        gradtrack._C._bench.read_floor(a.double())
    flops = gradtrack._C._bench.fma_peak(1e6)
    assert 1e6 <= flops < 1e6 + 2 * 12 * 16 * 64
    assert gradtrack._C._bench.fma_lanes() in (4, 8, 16)


def _growth_document(cases_points):
    records = []
    for case, labels in cases_points.items():
        for i, label in enumerate(labels):
            records.append({"case": case, "point": label, "group": "g", "title": case,
                            "ratio": 0.5, "goal": None,
                            "libs": {"gradtrack": {"median": 1e-5 * 4 ** i},
                                     "torch": {"median": 2e-5 * 4 ** i}}})
    return {"results": records, "candidate": "gradtrack", "mode": "quick",
            "settings": {"threads": 2},
            "machine": {"cpu": "Test CPU", "cores_usable": 2, "date": "2026-01-01T00:00",
                        "caches": {"L1d": 48 << 10, "L2": 2 << 20}}}


def test_growth_series_read_sizes_from_the_cases():
    from benchmarks import chart

    doc = _growth_document({"add": ["16K", "1K"], "matmul": ["64", "4096"]})
    add = chart.growth_series(doc, "add", lambda side: side * side)
    # sorted by size, whatever order the run took them in
    assert add == {"gradtrack": [(1024, 4e-5), (16384, 1e-5)],
                   "torch": [(1024, 8e-5), (16384, 2e-5)]}
    matmul = chart.growth_series(doc, "matmul", lambda n: n)
    assert [x for x, _ in matmul["torch"]] == [64, 4096]
    assert chart.growth_series(doc, "conv2d_fwd_bwd", lambda b: b) == {}


def test_growth_chart_is_drawn_only_with_its_cases(tmp_path):
    pytest.importorskip("matplotlib")
    from benchmarks import chart

    doc = _growth_document({"add": ["1K", "16K", "64K", "1M", "64M"],
                            "conv2d_fwd_bwd": ["b1", "b4", "b16", "b64"]})
    path = chart.draw_growth(doc, tmp_path / "growth.png")
    assert_valid_png(path)
    assert chart.draw_growth(_growth_document({"op_add": ["1"]}), tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_growth_cases_span_the_sizes_the_chart_draws():
    sizes = {case: [p.value for p in bench_cases.by_id(case).points]
             for case in ("matmul", "conv2d_fwd_bwd", "add")}
    assert min(sizes["matmul"]) == 64 and max(sizes["matmul"]) == 4096
    assert sizes["conv2d_fwd_bwd"] == [1, 4, 16, 64]
    assert min(sizes["add"]) ** 2 == 1 << 10 and max(sizes["add"]) ** 2 == 64 << 20


def test_vendor_folders_name_the_cpu_maker():
    from benchmarks.machine import vendor_folder

    assert vendor_folder("AuthenticAMD") == "amd"
    assert vendor_folder("GenuineIntel") == "intel"
    assert vendor_folder("Hygon Genuine") == "hygon-genuine"
    assert vendor_folder("") == "other"
    assert vendor_folder()  # this machine's: never empty


def _vendor_document(cpu, rows):
    doc = _growth_document({})
    doc.update(baseline="torch", load={"under_load": False},
               summary={"goals_met": 1, "goals_total": 2})
    doc["machine"]["cpu"] = cpu
    doc["results"] = [{"case": case, "point": point, "group": group, "title": case,
                       "ratio": ratio, "goal": {"max_ratio": 1.0, "met": ratio <= 1.0},
                       "libs": {}} for group, case, point, ratio in rows]
    return doc


def test_vendor_rows_join_the_runs_and_keep_groups_together():
    from benchmarks import chart

    amd = _vendor_document("AMD", [("mm", "matmul", "64", 0.5), ("ew", "add", "1K", 0.3)])
    intel = _vendor_document("Intel", [("mm", "matmul", "64", 1.1), ("mm", "bmm", "4", 0.9),
                                       ("ew", "add", "1K", 0.4)])
    rows = chart._vendor_rows({"amd": amd, "intel": intel})
    assert [(kind, r if kind == "group" else (r["title"], sorted(r["per"]))) for kind, r in rows] == [
        ("group", "mm"), ("bar", ("matmul", ["amd", "intel"])), ("bar", ("bmm", ["intel"])),
        ("group", "ew"), ("bar", ("add", ["amd", "intel"]))]


def test_vendor_chart_draws_every_run(tmp_path):
    pytest.importorskip("matplotlib")
    from benchmarks import chart

    amd = _vendor_document("AMD", [("mm", "matmul", "64", 0.5)])
    intel = _vendor_document("Intel", [("mm", "matmul", "64", 1.1)])
    assert_valid_png(chart.draw_vendors({"amd": amd, "intel": intel}, tmp_path / "v.png"))
    assert chart.draw_vendors({}, tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_committed_report_has_one_folder_per_vendor():
    import benchmarks

    results = Path(benchmarks.__file__).parent / "results"
    folders = sorted(p.name for p in results.iterdir() if p.is_dir())
    assert "amd" in folders
    for name in folders:
        doc = json.loads((results / name / "latest.json").read_text())
        assert doc["mode"] == "full" and doc["results"]
        assert (results / name / "latest.png").exists()
