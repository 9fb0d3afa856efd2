"""Turning raw timings into ratios, goal checks, a table and a JSON file.

A *record* is one (case, point): each library's stats (or error), the ratio
candidate/baseline of the medians, the goal and whether it is met, and the
case's variants relative to their library's default run.
"""

import json
import os
import statistics

from . import SCHEMA_VERSION
from .goals import (
    FLOOR_CASES,
    FLOOR_MAX_RATIO,
    FLOOR_POINT,
    PEAK_CASE,
    PEAK_MIN_FRACTION,
    PEAK_POINT,
    VARIANT_GOALS,
    evaluate,
    goal_for,
)

LOAD_MARK = "*"  # after every ratio of a run measured under load


def ratio_of(numerator, denominator):
    """median/median of two stats dicts; None if either is missing or failed."""
    if not numerator or not denominator:
        return None
    if "error" in numerator or "error" in denominator:
        return None
    if denominator["median"] <= 0:
        return None
    return numerator["median"] / denominator["median"]


def build_record(case, point, slots, outcome, libs):
    """The report entry of one (case, point) from the harness's outcome."""
    labels = [lib.label for lib in libs]
    record = {
        "case": case.id, "point": point.label, "group": case.group,
        "title": case.title, "detail": point.detail, "unit": case.unit,
        "libs": {s.id: outcome.get(s.id, {"error": "not run"})
                 for s in slots if s.variant is None},
        "ratio": None, "goal": None, "variants": [],
    }
    if len(labels) >= 2:
        record["ratio"] = ratio_of(record["libs"].get(labels[0]),
                                   record["libs"].get(labels[1]))
    goal = goal_for(case.id, point.label)
    if goal is not None and len(labels) >= 2:
        record["goal"] = {"max_ratio": goal.max_ratio, "why": goal.why,
                          "met": evaluate(goal, record["ratio"])}
    for slot in slots:
        if slot.variant is None:
            continue
        result = outcome.get(slot.id, {"error": "not run"})
        record["variants"].append({
            "variant": slot.variant.name, "lib": slot.lib.label,
            "description": slot.variant.description,
            "options": slot.variant.options, "result": result,
            "relative_to": slot.lib.label,
            "ratio": ratio_of(result, record["libs"].get(slot.lib.label)),
        })
    return record


def summarize_goals(records):
    """Counts of goals met / missed / unknown, and the missed ones by name."""
    goals = [r for r in records if r["goal"] is not None]
    met = [r for r in goals if r["goal"]["met"] is True]
    missed = [r for r in goals if r["goal"]["met"] is False]
    return {
        "goals_total": len(goals), "goals_met": len(met),
        "goals_missed": len(missed),
        "goals_unknown": len(goals) - len(met) - len(missed),
        "missed": [f"{r['case']} {r['point']}".strip() for r in missed],
        "errors": sum(1 for r in records for res in r["libs"].values()
                      if "error" in res),
    }


# The FMA loop does a fixed amount of work in registers: its samples should
# all take the same time.  When its median sample is this much slower than its
# fastest, something the run cannot see took the CPU: on a virtual machine,
# the host's other tenants (their time shows neither as other processes nor
# as steal in /proc/stat).  Quiet runs on the 2-core dev VM: 1.02-1.06.
NOISE_LIMIT = 1.10


def fma_spread(records):
    """(median / fastest sample of the FMA loop, where), worst over libraries.

    The loop runs as the fma_peak case and as matmul/1024's FMA_IN_TURNS
    variant; (None, None) when neither ran.
    """
    worst = (None, None)
    for rec in records:
        sets = []
        if rec["case"] == "fma_peak":
            sets = [(lab, res) for lab, res in rec["libs"].items()]
        sets += [(v["lib"], v["result"]) for v in rec.get("variants", ())
                 if v["options"].get("fma_loop")]
        for lab, res in sets:
            if not res or "error" in res or not res.get("samples") or res["min"] <= 0:
                continue
            spread = statistics.median(res["samples"]) / res["min"]
            if worst[0] is None or spread > worst[0]:
                worst = (spread, f"{rec['case']} {rec['point']}, {lab} worker")
    return worst


def load_section(machine, records, threshold):
    """Whether the run was measured under load, and the evidence.

    Under load means other processes used at least ``threshold`` of the CPU
    just before or just after the run, or while some row was measured; or the
    FMA loop's samples spread by NOISE_LIMIT or more (a noisy host).
    """
    start = machine.get("others_cpu_share_start")
    end = machine.get("others_cpu_share_end")
    rows = [r["others_cpu_share"] for r in records if r.get("others_cpu_share") is not None]
    loaded_rows = sum(1 for r in records if r.get("loaded"))
    shares = [x for x in (start, end, *rows) if x is not None]
    others = loaded_rows > 0 or any(x is not None and x >= threshold for x in (start, end))
    spread, where = fma_spread(records)
    noisy = spread is not None and spread >= NOISE_LIMIT
    return {
        "threshold": threshold, "others_cpu_share_start": start,
        "others_cpu_share_end": end, "rows_loaded": loaded_rows,
        "rows": len(records), "max_share": max(shares) if shares else None,
        "load_average_start": machine.get("load_average_start"),
        "load_average_end": machine.get("load_average_end"),
        "other_processes": others,
        "fma_spread": spread, "fma_spread_where": where, "noise_limit": NOISE_LIMIT,
        "noisy_host": noisy,
        "under_load": others or noisy,
    }


def load_reasons(load, short=False):
    """What made a run count as under load, one phrase per reason."""
    reasons = []
    # older reports have no "other_processes": under_load was that alone
    if load.get("other_processes", load.get("under_load")):
        rows = (f"{load['rows_loaded']}/{load['rows']}" if short
                else f"{load['rows_loaded']} of {load['rows']}")
        reasons.append(f"other processes used up to {load['max_share']:.0%} of the CPU "
                       f"({rows} rows at >= {load['threshold']:.0%})")
    if load.get("noisy_host"):
        over = load["fma_spread"] - 1
        reasons.append(
            f"FMA loop's median sample {over:.0%} slower than its fastest (host noise)" if short
            else f"the FMA loop's median sample took {over:.0%} longer than its fastest "
                 f"({load['fma_spread_where']}; quiet runs stay under "
                 f"{load['noise_limit'] - 1:.0%}): something outside this machine's view, "
                 f"such as the host's other tenants, took CPU time")
    return reasons


def load_banner(document):
    """One line saying the run was under load, or None."""
    load = document.get("load") or {}
    if not load.get("under_load"):
        return None
    return (f"UNDER LOAD: {'; '.join(load_reasons(load))}; every ratio is marked "
            f"{LOAD_MARK} and none should be trusted. Re-run on a quiet machine.")


def _median(record, label):
    result = record["libs"].get(label)
    if not result or "error" in result:
        return None
    return result["median"]


def extra_goals(records, machine, libs):
    """The goals that are not a ratio to torch, evaluated.

    The 16M reductions against the bare read loop of the same run, and the
    1024^2 matmul's fraction of peak (the FMA loop's rate if it ran, else the
    CPU's spec formula), for every library.
    """
    by = {(r["case"], r["point"]): r for r in records}
    labels = [lib.label for lib in libs]
    out = {"floor": [], "peak": None}
    floor = by.get(("read_floor", FLOOR_POINT))
    for case in FLOOR_CASES:
        rec = by.get((case, FLOOR_POINT))
        if rec is None:
            continue
        ratios, paired = {}, {}
        for lab in labels:
            ratios[lab], paired[lab] = _floor_ratio(rec, lab, floor)
        if all(r is None for r in ratios.values()):
            continue
        out["floor"].append({"case": case, "point": FLOOR_POINT, "ratios": ratios,
                             "paired": paired, "max_ratio": FLOOR_MAX_RATIO,
                             "met": evaluate_max(ratios.get(labels[0]), FLOOR_MAX_RATIO)})
    out["peak"] = _peak_entry(by, machine, labels)
    out["variants"] = _variant_entries(by, labels[0])
    out["checkpoint_memory"] = checkpoint_memory(by, labels)
    return out


CHECKPOINT_CASE, PLAIN_POINT = "activation_memory", "plain"


def checkpoint_memory(by, labels):
    """What checkpointing keeps of the plain run's activation memory, per library:
    [{"point", "ratios": {label: checkpointed peak / plain peak or None}}]."""
    plain = by.get((CHECKPOINT_CASE, PLAIN_POINT))
    if plain is None:
        return []
    entries = []
    for (case, point), rec in by.items():
        if case != CHECKPOINT_CASE or point == PLAIN_POINT:
            continue
        entries.append({"point": point, "ratios": {
            lab: ratio_of(rec["libs"].get(lab), plain["libs"].get(lab)) for lab in labels}})
    return entries


def _variant_entries(by, label):
    """VARIANT_GOALS evaluated: each variant's median over its library's default run."""
    entries = []
    for goal in VARIANT_GOALS:
        rec = by.get((goal.case, goal.point))
        if rec is None:
            continue
        ratio = next((v["ratio"] for v in rec.get("variants", ())
                      if v["variant"] == goal.variant and v["lib"] == label), None)
        entries.append({"case": goal.case, "point": goal.point, "variant": goal.variant,
                        "lib": label, "ratio": ratio, "max_ratio": goal.max_ratio,
                        "why": goal.why, "met": evaluate_max(ratio, goal.max_ratio)})
    return entries


def _rounds_in_turns(rec, label, option):
    """[(default, variant)] sample pairs, round by round, of one library's default
    run and its variant with ``option`` set, taken in turns; None if either
    failed or is missing."""
    result = rec["libs"].get(label)
    other = next((v["result"] for v in rec.get("variants", ())
                  if v["lib"] == label and v["options"].get(option)), None)
    if result and other and "error" not in result and "error" not in other \
            and len(result["samples"]) == len(other["samples"]):
        return list(zip(result["samples"], other["samples"]))
    return None


def _floor_ratio(rec, label, floor):
    """(reduction / read loop, paired?) for one library; (None, False) if unknown.

    The read-loop variant of the record (READ_LOOP in cases/kernels.py) took its
    samples in the same rounds as the reduction: the ratio is the median of
    the per-round ratios.  Without it (an older report, a run that skipped
    it), the separately timed read_floor case divides the medians.
    """
    rounds = _rounds_in_turns(rec, label, "read_loop")
    if rounds:
        return statistics.median(a / b for a, b in rounds), True
    num, den = _median(rec, label), None if floor is None else _median(floor, label)
    return (None if num is None or den is None else num / den), False


def evaluate_max(value, limit):
    return None if value is None else value <= limit


def _peak_entry(by, machine, labels):
    """The 1024^2 product's fraction of peak, per library.

    Peak is the larger of the spec formula and the FMA loop.  Where the loop
    ran in turns with the product (FMA_IN_TURNS in cases/matmul.py), each round's
    product is divided by that round's peak and the fraction is the median;
    otherwise the medians of the separate fma_peak case and product are used.
    """
    from .cases import FMA_FLOPS

    formula = (machine.get("peak_flops_formula") or {}).get("flops")
    fma = by.get(("fma_peak", "peak"))
    mm = by.get((PEAK_CASE, PEAK_POINT))
    if mm is None:
        return None
    n = int(PEAK_POINT)
    flops = 2.0 * n ** 3
    measured, fractions, rates, paired = {}, {}, {}, {}
    for lab in labels:
        if (m := _median(mm, lab)) is None:
            continue
        rates[lab] = flops / m
        rounds = _rounds_in_turns(mm, lab, "fma_loop")
        paired[lab] = rounds is not None
        if rounds:
            fractions[lab] = statistics.median(
                (flops / t_mm) / max(formula or 0, flops / t_fma) for t_mm, t_fma in rounds)
            measured[lab] = statistics.median(flops / t_fma for _, t_fma in rounds)
        elif fma is not None and (f := _median(fma, lab)):
            measured[lab] = FMA_FLOPS / f
    if formula is None and not measured:
        return None
    peak = max([formula or 0, *measured.values()])
    for lab, rate in rates.items():
        fractions.setdefault(lab, rate / peak)
    return {"formula_flops": formula, "fma_loop_flops": measured, "peak_flops": peak,
            "matmul_flops": rates, "fractions": fractions, "paired": paired,
            "min_fraction": PEAK_MIN_FRACTION,
            "met": None if labels[0] not in fractions
            else fractions[labels[0]] >= PEAK_MIN_FRACTION}


def render_extra_goals(document):
    """Lines for the memory-floor and peak-FLOP goals."""
    extra = document.get("extra_goals") or {}
    labels = list(document["libraries"])
    lines = []
    if extra.get("floor"):
        lines += ["", f"16M reductions / bare read loop over the same tensor, timed in turns "
                      f"(goal <= {FLOOR_MAX_RATIO:g} for {labels[0]}):"]
        for e in extra["floor"]:
            cells = ", ".join(f"{lab} {r:.3f}" if r is not None else f"{lab} ?"
                              for lab, r in e["ratios"].items())
            met = {True: "yes", False: "NO", None: "?"}[e["met"]]
            how = "" if all(e.get("paired", {}).values()) else \
                "   (not in turns: medians of the separate read_floor case)"
            lines.append(f"  {e['case']:8} {cells}   met? {met}{how}")
    if extra.get("variants"):
        lines += ["", "Debug modes against the same library's default run (variant / default):"]
        for e in extra["variants"]:
            ratio = f"{e['ratio']:.3f}" if e["ratio"] is not None else "?"
            met = {True: "yes", False: "NO", None: "?"}[e["met"]]
            lines.append(f"  {e['case']} {e['point']}, {e['variant']} ({e['lib']}): {ratio} "
                         f"(goal <= {e['max_ratio']:g})   met? {met}")
    if extra.get("checkpoint_memory"):
        lines += ["", "Activation checkpointing: peak of the checkpointed fwd+bwd / peak of "
                      "the plain one, same library (lower saves more):"]
        for e in extra["checkpoint_memory"]:
            cells = ", ".join(f"{lab} {r:.3f}" if r is not None else f"{lab} ?"
                              for lab, r in e["ratios"].items())
            lines.append(f"  {e['point']:22} {cells}")
    peak = extra.get("peak")
    if peak:
        gf = 1e-9
        parts = []
        if peak["formula_flops"]:
            parts.append(f"spec {peak['formula_flops'] * gf:.0f}")
        parts += [f"FMA loop in {lab} worker {v * gf:.0f}"
                  for lab, v in peak["fma_loop_flops"].items()]
        in_turns = peak.get("paired") or {}
        lines += ["", f"Peak float32 FLOP rate, GFLOP/s: {', '.join(parts)}; "
                      f"peak used = {peak['peak_flops'] * gf:.0f}"]
        if any(in_turns.values()):
            lines.append("  (the FMA loop did the product's FLOPs in turns with it; a fraction "
                         "is the median of each round's product rate / that round's peak)")
        for lab, frac in peak["fractions"].items():
            how = "" if in_turns.get(lab, True) else "   (not in turns: separate cases' medians)"
            lines.append(f"  matmul {PEAK_POINT}^2 {lab}: "
                         f"{peak['matmul_flops'][lab] * gf:.0f} GFLOP/s = {frac:.0%} of peak{how}")
        met = {True: "yes", False: "NO", None: "?"}[peak["met"]]
        lines.append(f"  goal: {labels[0]} >= {PEAK_MIN_FRACTION:.0%} of peak   met? {met}")
    return lines


def library_section(libs, pool):
    """What the report knows about each library: module, version, threads."""
    section = {}
    for lib in libs:
        info = dict(pool.info.get(lib.label, {}))
        error = pool.unavailable.get(lib.label)
        info.update({
            "module": lib.module, "standin": lib.standin,
            "available": False if error else (True if info else None),
            "error": error,
        })
        section[lib.label] = info
    return section


def write_json(document, out_dir):
    """Write ``latest.json``; returns its path."""
    path = os.path.join(out_dir, "latest.json")
    with open(path, "w") as f:
        json.dump(document, f, indent=1, sort_keys=False)
        f.write("\n")
    return path


def new_document(**fields):
    """The JSON document's skeleton; results are appended as they come."""
    doc = {"schema": SCHEMA_VERSION, "tool": "gradtrack benchmarks"}
    doc.update(fields)
    return doc


# --------------------------------------------------------------------------
# the text table

SCALES = {
    "s": ((1e-6, 1e-9, "ns"), (1e-3, 1e-6, "µs"), (1.0, 1e-3, "ms"),
          (float("inf"), 1.0, "s")),
    "B": ((2 ** 20, 2 ** 10, "KiB"), (2 ** 30, 2 ** 20, "MiB"),
          (float("inf"), 2 ** 30, "GiB")),
}


def scale_for(value, unit):
    """(divisor, suffix) that shows ``value`` with 1-3 integer digits."""
    for limit, divisor, suffix in SCALES[unit]:
        if abs(value) < limit:
            return divisor, suffix
    return 1.0, unit


def number(x):
    """Three significant digits, no exponent for the range we print."""
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def quantity(value, unit):
    divisor, suffix = scale_for(value, unit)
    return f"{number(value / divisor)} {suffix}"


def stats_cell(result, unit):
    """'1.23 µs (1.20–1.31)': median, then min–max in the same scale."""
    if result is None:
        return "-"
    if "error" in result:
        return "error"
    divisor, suffix = scale_for(result["median"], unit)
    median = number(result["median"] / divisor)
    if result["n"] == 1:
        return f"{median} {suffix}"
    low, high = number(result["min"] / divisor), number(result["max"] / divisor)
    return f"{median} {suffix} ({low}–{high})"


def goal_cells(record):
    """(goal text, met text) for the table."""
    goal = record["goal"]
    if goal is None:
        return "", ""
    met = {True: "yes", False: "NO", None: "?"}[goal["met"]]
    return f"≤{goal['max_ratio']:g}", met


def table_rows(records, labels, under_load=False):
    """Header row plus one row per record, with group titles in between.

    Under load every ratio carries LOAD_MARK and a column shows the share of
    the CPU other processes used while that row was measured.
    """
    head = ["case", "size", *labels, f"ratio{LOAD_MARK}" if under_load else "ratio"]
    rows = [head + (["others"] if under_load else []) + ["goal", "met?"]]
    group = None
    for rec in records:
        if rec["group"] != group:
            group = rec["group"]
            rows.append([f"-- {group} --"])
        ratio = "" if rec["ratio"] is None else f"{rec['ratio']:.3g}"
        if under_load and ratio:
            ratio += LOAD_MARK
        cells = [stats_cell(rec["libs"].get(lab), rec["unit"]) for lab in labels]
        share = rec.get("others_cpu_share")
        load = ([] if not under_load else
                ["?" if share is None else f"{share:.0%}"])
        rows.append([rec["title"], rec["point"], *cells, ratio, *load, *goal_cells(rec)])
    return rows


def render_table(records, labels, under_load=False):
    """The main table as text, columns padded to their widest cell."""
    rows = table_rows(records, labels, under_load)
    full = [r for r in rows if len(r) > 1]
    widths = [max(len(r[i]) for r in full) for i in range(len(full[0]))]
    lines = []
    for row in rows:
        if len(row) == 1:  # a group title spans the table
            lines.append(row[0])
            continue
        lines.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    rule = "-" * max(len(line) for line in lines)
    return "\n".join([lines[0], rule, *lines[1:]])


def render_variants(records):
    """Lines for the variants, each relative to its library's default run."""
    lines = []
    for rec in records:
        for var in rec["variants"]:
            cell = stats_cell(var["result"], rec["unit"])
            if var["ratio"] is not None:
                rel = f"{var['ratio']:.3f}x default ({(var['ratio'] - 1) * 100:+.1f}%)"
            else:
                rel = "n/a"
            lines.append(f"  {rec['case']} {rec['point']}  {var['lib']} "
                         f"[{var['variant']}]: {cell}  -> {rel}")
    return lines


def render_errors(records):
    """One line per distinct (library, error), with the cases it hit."""
    seen = {}
    for rec in records:
        entries = [(lab, res) for lab, res in rec["libs"].items()]
        entries += [(f"{v['lib']} [{v['variant']}]", v["result"])
                    for v in rec["variants"]]
        for label, res in entries:
            if "error" in res:
                name = f"{rec['case']} {rec['point']}".strip()
                seen.setdefault((label, res["error"]), []).append(name)
    lines = []
    for (label, error), names in seen.items():
        where = ", ".join(names[:4]) + (f" and {len(names) - 4} more"
                                        if len(names) > 4 else "")
        lines.append(f"  {label}: {error}\n      in {where}")
    return lines


def render_report(document):
    """Everything printed after the run: table, variants, errors, summary."""
    labels = list(document["libraries"])
    records = document["results"]
    banner = load_banner(document)
    under_load = banner is not None
    parts = [banner] if banner else []
    parts += [render_table(records, labels, under_load)] if records else ["(no results)"]
    parts += render_extra_goals(document)
    variant_lines = render_variants(records)
    if variant_lines:
        parts += ["", "Variants (time relative to the same library's default run):",
                  *variant_lines]
    error_lines = render_errors(records)
    if error_lines:
        parts += ["", "Errors (full tracebacks in the worker logs):", *error_lines]
    s = document["summary"]
    if s["goals_total"]:
        parts += ["", f"Goals: {s['goals_met']} met, {s['goals_missed']} missed, "
                      f"{s['goals_unknown']} unknown (error) of {s['goals_total']}."]
    return "\n".join(parts)
