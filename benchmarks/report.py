"""Turning raw timings into ratios, goal checks, a table and a JSON file.

A *record* is one (case, point): each library's stats (or error), the ratio
candidate/baseline of the medians, the goal and whether it is met, and the
case's variants relative to their library's default run.
"""

import json
import os

from . import SCHEMA_VERSION
from .goals import evaluate, goal_for


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


def table_rows(records, labels):
    """Header row plus one row per record, with group titles in between."""
    rows = [["case", "size", *labels, "ratio", "goal", "met?"]]
    group = None
    for rec in records:
        if rec["group"] != group:
            group = rec["group"]
            rows.append([f"-- {group} --"])
        ratio = "" if rec["ratio"] is None else f"{rec['ratio']:.3g}"
        cells = [stats_cell(rec["libs"].get(lab), rec["unit"]) for lab in labels]
        rows.append([rec["title"], rec["point"], *cells, ratio, *goal_cells(rec)])
    return rows


def render_table(records, labels):
    """The main table as text, columns padded to their widest cell."""
    rows = table_rows(records, labels)
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
    parts = [render_table(records, labels)] if records else ["(no results)"]
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
