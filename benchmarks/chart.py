"""The PNG chart: one horizontal bar per (case, point), ratio on a log axis.

Bars grow from the parity line (1.0) to the ratio, so a bar to the left
means the candidate is faster (or smaller) and its length is how much.
Colour says whether the goal is met; a black tick marks the goal itself.
"""

from .report import load_reasons

COLORS = {True: "#2e7d32", False: "#c62828", None: "#7a8a99"}
GOAL_COLOR = "#111111"
ERROR_COLOR = "#9e9e9e"
BAND_COLOR = "#f2f4f7"


def _layout(records):
    """Rows top to bottom: ("group", name) headings and ("bar", record)."""
    rows, group = [], None
    for rec in records:
        if rec["group"] != group:
            group = rec["group"]
            rows.append(("group", group))
        rows.append(("bar", rec))
    return rows


def _x_range(records):
    """Log-axis limits that fit every ratio, every goal and the 1.0 line."""
    values = [1.0]
    for rec in records:
        if rec["ratio"] is not None:
            values.append(rec["ratio"])
        if rec["goal"] is not None:
            values.append(rec["goal"]["max_ratio"])
    low, high = min(values), max(values)
    return low / 1.6, high * 1.6


def _bar_label(rec):
    return f"{rec['title']}  {rec['point']}".rstrip()


def _draw_bar(ax, y, rec):
    """One bar with a dot at its end (visible even at parity), or a note."""
    ratio, goal = rec["ratio"], rec["goal"]
    color = COLORS[goal["met"] if goal else None]
    if ratio is None:
        failed = [lab for lab, res in rec["libs"].items() if "error" in res]
        note = "error: " + ", ".join(failed) if failed else "no ratio"
        # left of the parity line: the right side is the value column's
        ax.text(1 / 1.04, y, note, va="center", ha="right", fontsize=8,
                color=ERROR_COLOR, style="italic")
    else:
        ax.barh(y, ratio - 1.0, left=1.0, height=0.6, color=color, zorder=2)
        ax.plot([ratio], [y], marker="o", markersize=4.5, color=color, zorder=3)
    if goal is not None:
        ax.plot([goal["max_ratio"]], [y], marker="|", markersize=13,
                markeredgewidth=2.4, color=GOAL_COLOR, zorder=4)


def _under_load(document):
    return bool((document.get("load") or {}).get("under_load"))


def _value_column(ax, rows, mark=""):
    """Ratio and goal as text in a column right of the plot: no overlaps."""
    from matplotlib.transforms import blended_transform_factory

    where = blended_transform_factory(ax.transAxes, ax.transData)
    n = len(rows)
    ax.text(1.015, n - 0.35, "ratio", transform=where, fontsize=8,
            fontweight="bold", va="bottom", color="#445566")
    ax.text(1.085, n - 0.35, "goal", transform=where, fontsize=8,
            fontweight="bold", va="bottom", color="#445566")
    for i, (kind, rec) in enumerate(rows):
        if kind != "bar":
            continue
        y, goal = n - 1 - i, rec["goal"]
        color = COLORS[goal["met"] if goal else None]
        ratio = "error" if rec["ratio"] is None else _fmt_ratio(rec["ratio"]) + mark
        ax.text(1.015, y, ratio, transform=where, fontsize=8, va="center",
                color=ERROR_COLOR if rec["ratio"] is None else color,
                fontweight="bold")
        if goal is not None:
            ax.text(1.085, y, f"≤{goal['max_ratio']:g}", transform=where,
                    fontsize=8, va="center", color="#333333")


def _fmt_ratio(ratio):
    if ratio < 0.1:
        return f"{ratio:.2g}"
    return f"{ratio:.2f}" if ratio < 10 else f"{ratio:.0f}"


def _ratio_ticks(ax, x_range):
    """Readable ticks on the log axis: 0.05, 0.1, 0.2, 0.5, 1, 2, 5, ..."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ticks = [m * 10 ** e for e in range(-4, 5) for m in (1, 2, 5)]
    ticks = [t for t in ticks if x_range[0] <= t <= x_range[1]]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _ratio_axes(ax, rows, x_range):
    """The log ratio axis with its parity line and grid, and one labelled row per
    bar or group heading (rows as _layout gives them)."""
    n = len(rows)
    ax.set_xscale("log")
    ax.set_xlim(*x_range)
    _ratio_ticks(ax, x_range)
    ax.set_ylim(-0.7, n - 0.3)
    ax.axvline(1.0, color="#222222", linewidth=1.1, zorder=3)
    ax.grid(axis="x", which="major", color="#d0d4da", linewidth=0.7, zorder=0)
    ax.grid(axis="x", which="minor", color="#eceef1", linewidth=0.5, zorder=0)
    ax.set_yticks([n - 1 - i for i in range(n)])
    ax.set_yticklabels([_bar_label(p) if kind == "bar" else p.upper()
                        for kind, p in rows], fontsize=8.5)
    for (kind, _), tick in zip(rows, ax.get_yticklabels()):
        if kind == "group":
            tick.set_fontweight("bold")
            tick.set_fontsize(8)
            tick.set_color("#445566")
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)


def _decorate(ax, fig, document, rows, x_range):
    """Axes, labels, legend and the title with the machine summary."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    n = len(rows)
    _ratio_axes(ax, rows, x_range)
    cand, base = list(document["libraries"])[:2]
    ax.set_xlabel(f"{cand} / {base}  (median time, or bytes; log scale)   "
                  f"◀ {cand} better  |  {base} better ▶", fontsize=9)
    ax.legend(handles=[
        Patch(color=COLORS[True], label="goal met"),
        Patch(color=COLORS[False], label="goal missed"),
        Patch(color=COLORS[None], label="no goal"),
        Line2D([], [], color=GOAL_COLOR, marker="|", linestyle="none",
               markersize=11, markeredgewidth=2.2, label="goal (ratio ≤)"),
    ], loc="upper center", bbox_to_anchor=(0.5, -0.045 * 40 / max(n, 10)),
        ncol=4, fontsize=8, frameon=False)
    libs = document["libraries"]
    standin = (f"  [stand-in: {libs[cand]['module']}]"
               if libs[cand].get("standin") else "")
    fig.suptitle(f"{cand} vs {base}: ratio per case (lower is better){standin}",
                 fontsize=13, fontweight="bold", x=0.01, ha="left")
    ax.set_title(_subtitle(document), fontsize=8.5, color="#555555",
                 loc="left")


def _subtitle(document):
    m, s = document["machine"], document["summary"]
    ram = f"{m['ram_bytes'] / 2 ** 30:.0f} GiB" if m.get("ram_bytes") else "?"
    goals = (f"goals met {s['goals_met']}/{s['goals_total']}"
             if s["goals_total"] else "no goals evaluated")
    return (f"{m['cpu']}, {m['cores_usable']} cores, {ram} · "
            f"{document['settings']['threads']} threads per library · "
            f"Python {m['python']} · {document['mode']} run · "
            f"{m['date'][:16].replace('T', ' ')} · {goals}")


def _shade_groups(ax, rows):
    """Light bands behind every other group, so long charts stay readable."""
    n, start, band = len(rows), None, 0
    for i, (kind, _) in enumerate(rows + [("group", None)]):
        if kind == "group":
            if start is not None and band % 2 == 1:
                ax.axhspan(n - i - 0.5, n - start - 0.5, color=BAND_COLOR, zorder=0)
            start, band = i, band + 1


def _load_banner(fig, document, height):
    """A red banner across the top: this run's numbers were taken under load.

    Returns the top of the area left for the plot (figure fraction).
    """
    reasons = "; ".join(load_reasons(document["load"], short=True))
    text = f"MEASURED UNDER LOAD: {reasons}. Ratios marked * are not reliable."
    band = 0.42 / height  # about 0.42 inch, whatever the chart's length
    fig.patches.append(matplotlib_rectangle(fig, 1 - band, band))
    if fig._suptitle is not None:  # the title moves below the banner
        fig._suptitle.set_y(1 - band * 1.1)
        fig._suptitle.set_va("top")
    fig.text(0.5, 1 - band / 2, text, ha="center", va="center", fontsize=10.5,
             fontweight="bold", color="white", zorder=11)
    return 1 - band * 1.6


def matplotlib_rectangle(fig, y, h):
    from matplotlib.patches import Rectangle

    return Rectangle((0, y), 1, h, transform=fig.transFigure, facecolor="#c62828",
                     edgecolor="none", zorder=10)


def draw_chart(document, path):
    """Render the ratios of ``document`` (the JSON report) into a PNG."""
    import matplotlib

    matplotlib.use("Agg")  # no display here, and never pop up windows
    import matplotlib.pyplot as plt

    records = document["results"]
    rows = _layout(records)
    height = 1.9 + 0.24 * max(len(rows), 4)
    fig, ax = plt.subplots(figsize=(11.5, height))
    _shade_groups(ax, rows)
    x_range = _x_range(records)
    for i, (kind, payload) in enumerate(rows):
        if kind == "bar":
            _draw_bar(ax, len(rows) - 1 - i, payload)
    _decorate(ax, fig, document, rows, x_range)
    loaded = _under_load(document)
    _value_column(ax, rows, "*" if loaded else "")
    top = 0.985
    if loaded:
        top = _load_banner(fig, document, height)
    fig.tight_layout(rect=(0, 0, 1, top))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path



# The growth chart: time against size for both libraries, one panel per kind of work.
# (case id, panel title, x-axis label, x of a point's value, bytes the step touches at x)
GROWTH_PANELS = (
    ("matmul", "a @ b, square float32", "n (n x n @ n x n)", lambda n: n, lambda n: 12 * n * n),
    ("conv2d_fwd_bwd", "Conv2d 64->64 3x3 fwd+bwd, 32x32", "batch", lambda b: b, None),
    ("add", "a + b, float32", "elements", lambda side: side * side, lambda e: 12 * e),
)
LIB_STYLES = ({"color": "#1565c0", "marker": "o"}, {"color": "#ef6c00", "marker": "s"})


def growth_series(document, case_id, x_of):
    """{library: [(x, median seconds), ...]} of one case, by size."""
    from .cases import by_id

    try:
        case = by_id(case_id)
    except KeyError:
        return {}
    series = {}
    for rec in document["results"]:
        if rec["case"] != case_id:
            continue
        try:
            x = x_of(case.point(rec["point"]).value)
        except KeyError:
            continue
        for lib, stats in (rec.get("libs") or {}).items():
            if stats and stats.get("median"):
                series.setdefault(lib, []).append((x, stats["median"]))
    return {lib: sorted(points) for lib, points in series.items()}


def _mark_caches(ax, caches, bytes_at, xs):
    """Dashed lines where the step's data outgrows each cache."""
    if not caches or bytes_at is None or not xs:
        return
    low, high = min(xs), max(xs)
    for name, size in sorted(caches.items(), key=lambda kv: kv[1]):
        # the smallest x whose bytes exceed the cache, by bisection on a log scale
        lo, hi = low, high
        if bytes_at(hi) <= size or bytes_at(lo) > size:
            continue
        for _ in range(60):
            mid = (lo * hi) ** 0.5
            lo, hi = (mid, hi) if bytes_at(mid) <= size else (lo, mid)
        ax.axvline(hi, color="#9e9e9e", linestyle="--", linewidth=0.8)
        ax.annotate(name, (hi, 1), xycoords=("data", "axes fraction"), xytext=(2, -10),
                    textcoords="offset points", fontsize=7, color="#616161")


def draw_growth(document, path):
    """Time against size (log-log) for every library; None when no panel has data."""
    panels = [(spec, growth_series(document, spec[0], spec[3])) for spec in GROWTH_PANELS]
    panels = [(spec, series) for spec, series in panels if series]
    if not panels:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    caches = (document.get("machine") or {}).get("caches") or {}
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, ((_, title, xlabel, _, bytes_at), series) in zip(axes[0], panels):
        xs = []
        for style, (lib, points) in zip(LIB_STYLES, sorted(series.items(), key=_candidate_first(document))):
            x, t = zip(*points)
            xs.extend(x)
            ax.plot(x, t, label=lib, linewidth=1.4, markersize=4, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("seconds per step", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", color="#e0e0e0", linewidth=0.6)
        _mark_caches(ax, caches, bytes_at, xs)
        ax.legend(fontsize=7, loc="upper left")
    m = document["machine"]
    fig.suptitle(f"How cost grows: {m['cpu']}, {m['cores_usable']} cores, "
                 f"{document['settings']['threads']} threads per library, "
                 f"{document['mode']} run, {m['date'][:10]}", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _candidate_first(document):
    first = document.get("candidate")

    def key(item):
        return (item[0] != first, item[0])

    return key


# The vendors chart: the committed full runs (one per CPU vendor) side by side.
VENDOR_COLORS = ("#1565c0", "#ef6c00", "#6a1b9a", "#00838f")


def _vendor_rows(documents):
    """Rows top to bottom, as _layout's, over the union of the runs' case points
    (groups in the order they first appear, points in the first run's order);
    each bar row holds {vendor: record}."""
    order, by_key = [], {}
    for vendor, document in documents.items():
        for rec in document["results"]:
            key = (rec["group"], rec["case"], rec["point"])
            if key not in by_key:
                by_key[key] = {"title": rec["title"], "point": rec["point"], "per": {}}
                order.append(key)
            by_key[key]["per"][vendor] = rec
    groups = list(dict.fromkeys(key[0] for key in order))
    order.sort(key=lambda key: groups.index(key[0]))  # stable: points keep their order
    rows, group = [], None
    for key in order:
        if key[0] != group:
            group = key[0]
            rows.append(("group", group))
        rows.append(("bar", by_key[key]))
    return rows


def draw_vendors(documents, path):
    """One chart of several full runs ({vendor folder: JSON report}): per case
    point one bar per vendor, the goal's tick, and a legend naming each CPU.
    Returns ``path``, or None when there is nothing to draw."""
    documents = {v: d for v, d in documents.items() if d.get("results")}
    if not documents:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = _vendor_rows(documents)
    records = [rec for d in documents.values() for rec in d["results"]]
    x_range = _x_range(records)
    vendors = list(documents)
    n, width = len(rows), 0.8 / len(vendors)
    height = 2.1 + 0.26 * max(n, 4)
    fig, ax = plt.subplots(figsize=(11.5, height))
    _shade_groups(ax, rows)
    for i, (kind, row) in enumerate(rows):
        if kind != "bar":
            continue
        y = n - 1 - i
        for j, vendor in enumerate(vendors):
            rec = row["per"].get(vendor)
            if rec is None or rec["ratio"] is None:
                continue
            yy = y + 0.4 - width * (j + 0.5)
            color = VENDOR_COLORS[j % len(VENDOR_COLORS)]
            ax.barh(yy, rec["ratio"] - 1.0, left=1.0, height=width * 0.9, color=color, zorder=2)
            missed = rec["goal"] is not None and not rec["goal"]["met"]
            ax.plot([rec["ratio"]], [yy], marker="x" if missed else "o", markersize=4.5,
                    color="#c62828" if missed else color, zorder=3)
            if rec["goal"] is not None:
                ax.plot([rec["goal"]["max_ratio"]], [yy], marker="|", markersize=7,
                        markeredgewidth=1.8, color=GOAL_COLOR, zorder=4)
    _ratio_axes(ax, rows, x_range)
    first = documents[vendors[0]]
    cand, base = first["candidate"], first["baseline"]
    ax.set_xlabel(f"{cand} / {base}  (median time, or bytes; log scale)   "
                  f"◀ {cand} better  |  {base} better ▶   (x: goal missed)", fontsize=9)
    handles = []
    for j, vendor in enumerate(vendors):
        d = documents[vendor]
        s, m = d["summary"], d["machine"]
        load = ", under load" if _under_load(d) else ""
        handles.append(Patch(color=VENDOR_COLORS[j % len(VENDOR_COLORS)],
                             label=f"{vendor}: {m['cpu']}, {m['cores_usable']} cores, "
                                   f"{m['date'][:10]}{load}, goals met "
                                   f"{s['goals_met']}/{s['goals_total']}"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.045 * 40 / max(n, 10)),
              ncol=1, fontsize=8, frameon=False)
    fig.suptitle(f"{cand} vs {base} on each CPU vendor: ratio per case (lower is better)",
                 fontsize=13, fontweight="bold", x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
