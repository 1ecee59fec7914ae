#!/usr/bin/env python3
"""Turn a lab benchmark's JSON (runner --bench --json FILE) into a PNG plot for the docs.

    scripts/plot_bench.py BENCH_JSON OUTPUT_PNG              # the lab's own plot
    scripts/plot_bench.py --roofline BENCH_JSON OUTPUT_PNG   # the lab's kernels on a roofline

The kind of plot follows the JSON's "lab" field:
- 04-conv2d: one group of bars per mask, % of the copy bandwidth of the reference, the naive
  kernel and cuDNN;
- 05-conv-texture: one group of bars per mask radius, effective bandwidth of the global and
  texture kernels (log scale: their ratios read as distances), with the copy bandwidth;
- 06-dynamic-shared: the reverse's bandwidth against n, and the convolution's against the tile
  width (one line per mask, each mask's own choice of tile marked), with the copy bandwidth;
- 07-spmv: one group of bars per matrix, the reference's formats and cuSPARSE CSR, effective
  bandwidth as % of the copy bandwidth measured in the same run, and cuSPARSE's time over each;
- 08-bfs: traversal rate (GTEPS) of the reference's edge-parallel (the course's), frontier and
  direction-optimising searches per graph, and the speed-up of the last two over the first;
- 09-nbody: GFLOP/s (20 flops per interaction) of every variant against n, with the FP32 peak
  and the 75.5% ceiling of a kernel that computes every ordered pair;
- 10-cnn-layer: GFLOP/s per layer of the reference's kernels and cuDNN against the FP32 peak and
  the layer's roof, and (when the JSON has a "breakdown") a layer's time as the course project
  ran it: allocation, copies and kernel;
- otherwise (the 1D convolution labs): one panel per mask width, effective bandwidth (GB/s) of
  every variant against the problem size, with the copy bandwidth.

--roofline places the lab's reference and course (or plain) kernels at their arithmetic
intensity (flops per DRAM byte, from the bench's byte and flop counts or the lab's formula, each
stated where it is computed) under two roofs: the copy bandwidth measured in the same bench run
and the FP32 peak the runner computes from the device's attributes (SMs x FP32 lanes x 2 x
clock: a datasheet figure, not a measurement). Lab 08 does no floating-point work: its roofline
counts traversed edges per DRAM byte against the memory roof only.

Bad input (a missing field, a value of the wrong type, no row that ran) gives one line on stderr
and exit code 2 before matplotlib is loaded. Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import math
import re
import sys
import textwrap

USAGE = "usage: plot_bench.py [--roofline] BENCH_JSON OUTPUT_PNG"


def main(argv):
    args = argv[1:]
    roofline = bool(args) and args[0] == "--roofline"
    if roofline:
        args = args[1:]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        print(USAGE, file=sys.stderr)
        return 2
    path, out = args
    try:
        with open(path) as f:
            bench = json.load(f)
        if not isinstance(bench, dict):
            raise ValueError("the top level must be an object")
        kind = kind_of(bench)
        check_fields(bench, kind, roofline)
        # Everything that can fail on bad data runs here, before matplotlib is loaded.
        spec = check_points(ROOFLINES[kind](bench)) if roofline else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"plot_bench.py: error: cannot read {path}: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: error: needs matplotlib (Debian: python3-matplotlib)",
              file=sys.stderr)
        return 2

    plt.rcParams.update({"font.size": 10, "legend.fontsize": 9, "axes.titlesize": 11})
    if roofline:
        fig = draw_roofline(plt, spec, bench["device"])
    else:
        fig = PLOTS[kind](plt, bench)
    try:
        fig.savefig(out, dpi=120, bbox_inches="tight")
    except OSError as e:
        print(f"plot_bench.py: error: cannot write {out}: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


def kind_of(bench):
    lab = bench.get("lab", "")
    return lab if lab in PLOTS else "conv1d"


# ---------------------------------------------------------------------------------------------
# Fields: what each kind reads, checked before anything is plotted

NUM, STR, BOOL = "a number", "a string", "true or false"

# Per kind: the device's fields for the plot, and the fields of every row whose status is "ok"
# (06 has two kinds of rows, told apart by "part").
DEVICE_FIELDS = {
    "conv1d": ("name", "copy_bandwidth_gbs"),
    "04-conv2d": ("name", "copy_bandwidth_gbs"),
    "05-conv-texture": ("name", "copy_bandwidth_gbs"),
    "06-dynamic-shared": ("name", "copy_bandwidth_gbs"),
    "07-spmv": ("name", "copy_bandwidth_gbs"),
    "08-bfs": ("name",),
    "09-nbody": ("name", "fp32_peak_gflops"),
    "10-cnn-layer": ("name", "copy_bandwidth_gbs", "fp32_peak_gflops"),
}
ROW_FIELDS = {
    "conv1d": {"variant": STR, "width": NUM, "mask_width": NUM, "gbs": NUM},
    "04-conv2d": {"variant": STR, "mask": STR, "element": STR, "side": NUM, "channels": NUM,
                  "bytes": NUM, "ms": NUM, "pct_copy": NUM},
    "05-conv-texture": {"variant": STR, "width": NUM, "height": NUM, "radius": NUM, "gbs": NUM,
                        "pct_copy": NUM},
    "06-dynamic-shared": {"part": STR, "variant": STR, "gbs": NUM, "pct_copy": NUM},
    "07-spmv": {"matrix": STR, "variant": STR, "format": STR, "ms": NUM, "pct_copy": NUM},
    "08-bfs": {"variant": STR, "algorithm": STR, "graph": STR, "ms": NUM, "gteps": NUM},
    "09-nbody": {"variant": STR, "kernel": STR, "n": NUM, "gflops": NUM},
    "10-cnn-layer": {"variant": STR, "layer": NUM, "gflops": NUM, "gbs": NUM},
}
PART_FIELDS = {
    "reverse": {"n": NUM},
    "conv": {"width": NUM, "mask_width": NUM, "tile_width": NUM, "chosen": BOOL},
}
# What --roofline needs on top: device fields, top-level fields, row fields.
ROOFLINE_DEVICE = ("name", "copy_bandwidth_gbs", "fp32_peak_gflops")
ROOFLINE_TOP = {
    "conv1d": {"bytes_per_element": NUM},
    "05-conv-texture": {"bytes_per_element": NUM},
    "06-dynamic-shared": {"bytes_per_element": NUM},
    "09-nbody": {"flops_per_interaction": NUM},
}
ROOFLINE_ROWS = {
    "07-spmv": {"bytes": NUM, "flops": NUM, "gflops": NUM},
    "08-bfs": {"vertices": NUM, "edges": NUM, "levels": NUM, "component_edges": NUM},
    "10-cnn-layer": {"flops": NUM, "ms": NUM},
}
BREAKDOWN_FIELDS = ("layer", "malloc_ms", "h2d_ms", "kernel_ms", "d2h_ms", "free_ms")


def has_type(value, kind):
    if kind == NUM:
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value))
    if kind == STR:
        return isinstance(value, str)
    return isinstance(value, bool)


def require(obj, fields, where):
    """Raises ValueError naming the first missing or mistyped field of obj."""
    for key, kind in fields.items():
        if key not in obj:
            raise ValueError(f"{where} has no '{key}'")
        if not has_type(obj[key], kind):
            raise ValueError(f"{where}: '{key}' is not {kind}")


def check_fields(bench, kind, roofline):
    """Raises ValueError naming the first missing field, before anything is plotted."""
    for key in ("rows", "device"):
        if key not in bench:
            raise ValueError(f"no '{key}'")
    rows, device = bench["rows"], bench["device"]
    if not isinstance(rows, list) or not rows:
        raise ValueError("'rows' must be a non-empty list")
    if not isinstance(device, dict):
        raise ValueError("'device' must be an object")
    device_fields = ROOFLINE_DEVICE if roofline else DEVICE_FIELDS[kind]
    require(device, {k: STR if k == "name" else NUM for k in device_fields}, "device")
    if roofline:
        require(bench, ROOFLINE_TOP.get(kind, {}), "the bench")
    fields = dict(ROW_FIELDS[kind], **(ROOFLINE_ROWS.get(kind, {}) if roofline else {}))
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"row {i} is not an object")
        if "status" not in row:
            raise ValueError(f"row {i} has no 'status'")
        if row["status"] != "ok":
            continue
        require(row, fields, f"row {i}")
        if kind == "06-dynamic-shared":
            if row["part"] not in PART_FIELDS:
                raise ValueError(f"row {i}: unknown part '{row['part']}' (reverse or conv)")
            require(row, PART_FIELDS[row["part"]], f"row {i}")
    if not any(row["status"] == "ok" for row in rows):
        raise ValueError("no row has status 'ok': nothing ran, nothing to plot")
    if kind == "07-spmv" and not any(r["status"] == "ok" and r["variant"] in ("reference",
                                                                               "cuSPARSE")
                                     for r in rows):
        raise ValueError("no row of the reference or cuSPARSE has status 'ok'")
    if kind == "10-cnn-layer" and "breakdown" in bench:
        if not isinstance(bench["breakdown"], list):
            raise ValueError("'breakdown' must be a list")
        for i, entry in enumerate(bench["breakdown"]):
            if not isinstance(entry, dict):
                raise ValueError(f"breakdown {i} is not an object")
            require(entry, {k: NUM for k in BREAKDOWN_FIELDS}, f"breakdown {i}")


def ok_rows(bench):
    return [r for r in bench["rows"] if r["status"] == "ok"]


def ratio(a, b):
    return a / b if b > 0 else float("nan")


def positive(row, key, i=None):
    value = row[key]
    if value <= 0:
        where = f"row {i}" if i is not None else "a row"
        raise ValueError(f"{where}: '{key}' must be positive, is {value}")
    return value


# ---------------------------------------------------------------------------------------------
# Shared drawing helpers

# Line and marker styles per variant, chosen so that curves with the same data stay visible: a
# small filled marker on a solid line under a large hollow marker on a dashed line.
VARIANT_STYLES = {
    "basic": dict(color="C0", marker="o", linestyle="-", markersize=5),
    "basic-ldg": dict(color="C2", marker="s", linestyle="--", markersize=9, fillstyle="none",
                      markeredgewidth=1.5),
    "window": dict(color="C1", marker="D", linestyle="-", markersize=5),
    "tiled": dict(color="C3", marker="^", linestyle="-.", markersize=7),
    "constant": dict(color="C4", marker="o", linestyle=":", markersize=10, fillstyle="none",
                     markeredgewidth=1.5, linewidth=2),
    "reference": dict(color="C0", marker="o", linestyle="-", markersize=6),
    "course": dict(color="C1", marker="s", linestyle="--", markersize=9, fillstyle="none",
                   markeredgewidth=1.5),
}
VARIANT_LABELS = {
    "basic": "basic: the course's kernel (lab 01)",
    "basic-ldg": "basic + const __restrict__ / __ldg",
    "window": "window: lab 01's reference",
    "tiled": "tiled: lab 02's reference",
    "constant": "constant: lab 03's reference",
    "course": "course: the slide's kernel",
}
FALLBACK_MARKERS = "os^Dv<>pPX*h"


def variant_style(variant, k):
    if variant in VARIANT_STYLES:
        return dict(VARIANT_STYLES[variant])
    return dict(color=f"C{k % 10}", marker=FALLBACK_MARKERS[k % len(FALLBACK_MARKERS)],
                linestyle="-", markersize=6)


def copy_line(ax, copy, label=None):
    ax.axhline(copy, color="black", linestyle="--", linewidth=1,
               label=label or f"copy bandwidth ({copy:.0f} GB/s, measured in the same run)")


def legend_below(fig, axes, ncol):
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
               frameon=False)


def label_bars(ax, bars, texts, fontsize=8):
    for bar, text in zip(bars, texts):
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                    fontsize=fontsize)


def pow2_label(x):
    if x <= 0:
        return f"{x:g}"
    e = math.log2(x)
    return f"$2^{{{int(e)}}}$" if e == int(e) else f"{x:g}"


# ---------------------------------------------------------------------------------------------
# The labs' own plots


def plot_conv(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    masks = sorted({r["mask_width"] for r in rows})
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, axes = plt.subplots(1, len(masks), figsize=(3.8 * len(masks), 4), sharey=True,
                             squeeze=False, layout="constrained")
    copy = device["copy_bandwidth_gbs"]
    for ax, mask in zip(axes[0], masks):
        for k, v in enumerate(variants):
            pts = sorted((r["width"], r["gbs"]) for r in rows
                         if r["variant"] == v and r["mask_width"] == mask)
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, label=VARIANT_LABELS.get(v, v), **variant_style(v, k))
        copy_line(ax, copy)
        ax.set_xscale("log", base=2)
        ax.set_title(f"mask width {mask}")
        ax.set_xlabel("width (elements)")
        ax.set_ylim(0, max([copy] + [r["gbs"] for r in rows]) * 1.08)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("effective bandwidth (GB/s)")
    fig.suptitle(f"{bench.get('lab', '')} on {device['name']}: effective bandwidth, "
                 f"{bench.get('bytes_per_element', 8)} bytes per element (x read, y written)")
    legend_below(fig, axes[0], ncol=3)
    return fig


def grouped_rows(rows, series, groups, series_of, group_of):
    """Per series, where its bars go in a grouped bar chart: (series index, series, xs, its rows,
    bar width), group g at x = g with the series side by side in it."""
    width = 0.8 / len(series)
    for k, one in enumerate(series):
        xs, picked = [], []
        for g, group in enumerate(groups):
            for r in rows:
                if series_of(r) == one and group_of(r) == group:
                    xs.append(g + (k - (len(series) - 1) / 2) * width)
                    picked.append(r)
        yield k, one, xs, picked, width


def grouped_bars(rows, variants, groups, key, value, text):
    """grouped_rows by variant, with each bar's value and label."""
    by_variant = grouped_rows(rows, variants, groups, lambda r: r["variant"], key)
    for k, v, xs, picked, width in by_variant:
        yield k, v, xs, [value(r) for r in picked], [text(r) for r in picked], width


def plot_conv2d(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    groups = list(dict.fromkeys((r["mask"], r["element"], r["channels"]) for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, ax = plt.subplots(figsize=(8, 4.6), layout="constrained")
    for k, v, xs, ys, texts, width in grouped_bars(
            rows, variants, groups, lambda r: (r["mask"], r["element"], r["channels"]),
            lambda r: r["pct_copy"], lambda r: f"{r['pct_copy']:.0f}%"):
        color = "black" if v.startswith("cuDNN") else f"C{k}"
        label_bars(ax, ax.bar(xs, ys, width, label=v, color=color), texts, fontsize=9)
    ax.axhline(100, color="black", linestyle="--", linewidth=1,
               label=f"copy bandwidth ({device['copy_bandwidth_gbs']:.0f} GB/s, measured) "
                     "= 100%")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{mask.replace('-', ' ')}\n{element}, {channels} channel"
                        + ("s" if channels != 1 else "") for mask, element, channels in groups])
    ax.set_ylabel("% of copy bandwidth\n(image read once, output written once)")
    ax.set_ylim(0, 110)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    sides = sorted({r["side"] for r in rows})
    side = " / ".join(f"{s} x {s}" for s in sides)
    ax.set_title(f"04-conv2d on {device['name']}: {side} images")
    return fig


def texture_label(variant):
    # matplotlib leaves labels that start with "_" out of legends.
    return {"__ldg global": "baseline: __ldg global, one thread per output"}.get(variant,
                                                                               variant)


def plot_texture(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    radii = sorted({r["radius"] for r in rows})
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, ax = plt.subplots(figsize=(8, 4.6), layout="constrained")
    for k, v, xs, ys, texts, width in grouped_bars(
            rows, variants, radii, lambda r: r["radius"], lambda r: r["gbs"],
            lambda r: f"{r['gbs']:.0f}\n({r['pct_copy']:.1f}%)"):
        label_bars(ax, ax.bar(xs, ys, width, label=texture_label(v), color=f"C{k}"), texts,
                   fontsize=8)
    copy_line(ax, device["copy_bandwidth_gbs"])
    ax.set_yscale("log")
    ax.set_ylim(min(r["gbs"] for r in rows) / 2, device["copy_bandwidth_gbs"] * 1.6)
    ax.set_xticks(range(len(radii)))
    ax.set_xticklabels([f"radius {r}\n({2 * r + 1} x {2 * r + 1} mask)" for r in radii])
    ax.set_ylabel("effective bandwidth (GB/s, log)\n8 bytes per pixel")
    ax.grid(True, axis="y", alpha=0.3, which="both")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    sizes = sorted({(r["width"], r["height"]) for r in rows})
    size = " / ".join(f"{w} x {h}" for w, h in sizes)
    ax.set_title(f"05-conv-texture on {device['name']}: 2D convolution of {size}, "
                 "global vs texture reads")
    return fig


def plot_dynamic(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    copy = device["copy_bandwidth_gbs"]
    reverse = [r for r in rows if r["part"] == "reverse"]
    conv = [r for r in rows if r["part"] == "conv"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True, layout="constrained")
    for k, v in enumerate(dict.fromkeys(r["variant"] for r in reverse)):
        xs, ys = zip(*sorted((r["n"], r["gbs"]) for r in reverse if r["variant"] == v))
        left.plot(xs, ys, label=f"reverse, {v}", **variant_style(v, k))
    left.set_xscale("log", base=2)
    left.set_xlabel("n (ints)")
    left.set_ylabel("effective bandwidth (GB/s)\n8 bytes per element")
    left.set_title("part 1: reverse")
    for k, (v, mask) in enumerate(dict.fromkeys((r["variant"], r["mask_width"]) for r in conv)):
        sweep = sorted((r["tile_width"], r["gbs"]) for r in conv
                       if r["variant"] == v and r["mask_width"] == mask and not r["chosen"])
        color = f"C{k + 1}"
        if sweep:
            xs, ys = zip(*sweep)
            right.plot(xs, ys, marker="o", color=color, label=f"conv, {v}, mask {mask}")
        for r in conv:
            if r["variant"] == v and r["mask_width"] == mask and r["chosen"]:
                # Stars of several masks may coincide: each smaller than the one before.
                right.plot([r["tile_width"]], [r["gbs"]], marker="*",
                           markersize=max(20 - 5 * k, 8), color=color, markeredgecolor="black",
                           linestyle="none",
                           label=f"mask {mask}: its own choice, tile {r['tile_width']}")
    right.set_xscale("log", base=2)
    widths = sorted({r["width"] for r in conv})
    right.set_xlabel("output tile width (floats)")
    right.set_title("part 2: convolution, width " + ", ".join(pow2_label(w) for w in widths))
    for ax in (left, right):
        copy_line(ax, copy)
        ax.set_ylim(0, max([copy] + [r["gbs"] for r in rows]) * 1.1)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"06-dynamic-shared on {device['name']}")
    legend_below(fig, (left, right), ncol=2)
    return fig


def short_matrix(name):
    return name.split(" (")[0]


def plot_spmv(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    ok = [r for r in rows if r["variant"] in ("reference", "cuSPARSE")]
    matrices = list(dict.fromkeys(r["matrix"] for r in ok))
    series = list(dict.fromkeys((r["variant"], r["format"]) for r in ok))
    cusparse = {r["matrix"]: r["ms"] for r in ok if r["variant"] == "cuSPARSE"}
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True, layout="constrained")
    for k, (variant, fmt), xs, picked, width in grouped_rows(
            ok, series, matrices, lambda r: (r["variant"], r["format"]), lambda r: r["matrix"]):
        pct = [r["pct_copy"] for r in picked]
        speedup = [ratio(cusparse.get(r["matrix"], float("nan")), r["ms"]) for r in picked]
        label = "cuSPARSE CSR" if variant == "cuSPARSE" else f"reference {fmt}"
        color = "black" if variant == "cuSPARSE" else f"C{k}"
        top.bar(xs, pct, width, label=label, color=color)
        bottom.bar(xs, speedup, width, label=label, color=color)
    for m, matrix in enumerate(matrices):
        best = max(r["pct_copy"] for r in ok if r["matrix"] == matrix)
        if best < 2:
            top.annotate(f"best {best:.2g}%\n(tiny matrix)", (m, 1), ha="center",
                         va="bottom", fontsize=8)
    top.set_ylabel(f"% of copy bandwidth\n({device['copy_bandwidth_gbs']:.0f} GB/s, measured)")
    top.set_ylim(0, max([100] + [r["pct_copy"] * 1.05 for r in ok]))
    bottom.set_ylabel("cuSPARSE time / time (log)\nabove 1: faster than cuSPARSE")
    bottom.set_yscale("log")
    bottom.axhline(1.0, color="black", linewidth=1)
    bottom.set_xticks(range(len(matrices)))
    bottom.set_xticklabels([short_matrix(m) for m in matrices], rotation=20, ha="right")
    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3)
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=4, frameon=False)
    fig.suptitle(f"07-spmv on {device['name']}: the reference's formats and cuSPARSE")
    return fig


def short_graph(name):
    patterns = [
        (r"kronecker scale (\d+)", lambda m: f"Kronecker {m[1]}"),
        (r"grid (\d+) x (\d+)", lambda m: f"grid {m[1]}²" if m[1] == m[2] else
         f"grid {m[1]} x {m[2]}"),
        (r"chain of (\d+)", lambda m: f"chain {m[1]}"),
        (r"disconnected: (\d+) components", lambda m: f"{m[1]} components"),
    ]
    for pattern, short in patterns:
        m = re.search(pattern, name)
        if m:
            return short(m)
    return name if len(name) <= 18 else name[:16] + "..."


BFS_LABELS = {"edge-parallel": "edge-parallel (the course's)", "frontier": "frontier",
              "direction-optimising": "direction-optimising"}


def plot_bfs(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    series = list(dict.fromkeys((r["variant"], r["algorithm"]) for r in rows))
    ms = {(r["graph"], r["variant"], r["algorithm"]): r["ms"] for r in rows}
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True, layout="constrained")
    for k, (variant, algorithm), xs, picked, width in grouped_rows(
            rows, series, graphs, lambda r: (r["variant"], r["algorithm"]), lambda r: r["graph"]):
        teps = [r["gteps"] for r in picked]
        speedup = [ratio(ms.get((r["graph"], variant, "edge-parallel"), float("nan")), r["ms"])
                   for r in picked]
        label = f"{variant} {BFS_LABELS.get(algorithm, algorithm)}"
        top.bar(xs, teps, width, label=label, color=f"C{k}")
        if algorithm != "edge-parallel":
            bars = bottom.bar(xs, speedup, width, color=f"C{k}")
            label_bars(bottom, bars, [f"{s:.1f}x" if s < 10 else f"{s:.0f}x" for s in speedup],
                       fontsize=7)
    top.set_yscale("log")
    top.set_ylabel("GTEPS (log)\nedges of the reached component / time")
    bottom.set_yscale("log")
    bottom.axhline(1.0, color="black", linewidth=1)
    bottom.axhline(20.0, color="red", linestyle=":", linewidth=1,
                   label="issue's target: 20x on a large 2D grid")
    bottom.set_ylabel("edge-parallel time / time (log)\nabove 1: faster than the course's")
    bottom.set_ylim(min(0.1, bottom.get_ylim()[0]), max(100, bottom.get_ylim()[1]))
    bottom.set_xticks(range(len(graphs)))
    levels = {r["graph"]: r.get("levels") for r in rows}
    bottom.set_xticklabels([short_graph(g) + (f"\n{levels[g]} levels" if levels[g] else "")
                            for g in graphs], fontsize=9)
    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3, which="major")
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=3, frameon=False)
    bottom.legend(loc="upper left", frameon=False)
    fig.suptitle(f"08-bfs on {device['name']}: the reference's three searches per graph")
    return fig


def plot_nbody(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for k, (variant, kernel) in enumerate(dict.fromkeys((r["variant"], r["kernel"])
                                                        for r in rows)):
        pts = sorted((r["n"], r["gflops"]) for r in rows
                     if r["variant"] == variant and r["kernel"] == kernel)
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="os^D"[k % 4], color=f"C{k}", label=f"{variant} {kernel}")
    peak = device["fp32_peak_gflops"]
    ax.axhline(peak, color="black", linestyle="--", linewidth=1,
               label=f"FP32 peak ({peak / 1000:.1f} TFLOP/s, SMs x lanes x 2 x clock)")
    ax.axhline(0.755 * peak, color="gray", linestyle=":", linewidth=1.5,
               label="one-sided kernel's ceiling:\n13.25 issues per interaction (75.5%)")
    ax.axhline(0.70 * peak, color="red", linestyle=":", linewidth=1, label="target: 70%")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bodies n")
    ax.set_ylabel("GFLOP/s (20 flops per interaction)")
    ax.set_ylim(0, peak * 1.08)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    ax.set_title(f"09-nbody on {device['name']}")
    return fig


def plot_cnn(plt, bench):
    rows, device = ok_rows(bench), bench["device"]
    breakdown = bench.get("breakdown") or []
    layers = sorted({r["layer"] for r in rows})
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    if breakdown:
        fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.4), layout="constrained",
                                          gridspec_kw={"width_ratios": [1.1, 1]})
    else:
        fig, left = plt.subplots(figsize=(7, 4.4), layout="constrained")
    peak, copy = device["fp32_peak_gflops"], device["copy_bandwidth_gbs"]
    for k, v, xs, ys, texts, width in grouped_bars(
            rows, variants, layers, lambda r: r["layer"], lambda r: r["gflops"] / 1000,
            lambda r: f"{r['gflops'] / 1000:.1f}"):
        color = "black" if v.startswith("cuDNN") else f"C{k}"
        label_bars(left, left.bar(xs, ys, width, label=v, color=color), texts)
    left.axhline(peak / 1000, color="black", linestyle="--", linewidth=1,
                 label=f"FP32 peak ({peak / 1000:.1f} TFLOP/s, SMs x lanes x 2 x clock)")
    for g, layer in enumerate(layers):
        # The layer's roof: min(peak, intensity x copy bandwidth); intensity = flops / bytes,
        # with the runner's bytes (x read once, y written once: gflops / gbs is flops per byte).
        r = next(r for r in rows if r["layer"] == layer)
        roof = min(peak, ratio(r["gflops"], r["gbs"]) * copy) / 1000
        left.plot([g - 0.45, g + 0.45], [roof, roof], color="red", linewidth=2,
                  label="the layer's roof: min(peak, flops/byte x copy bandwidth)" if g == 0
                  else None)
    left.set_xticks(range(len(layers)))
    shapes = {r["layer"]: r for r in rows}
    left.set_xticklabels([
        f"layer {layer}" + (f"\nC={shapes[layer]['C']} M={shapes[layer]['M']} "
                            f"K={shapes[layer]['K']}" if "C" in shapes[layer] else "")
        for layer in layers])
    left.set_ylabel("TFLOP/s (2 flops per multiply-add)")
    left.set_ylim(0, peak / 1000 * 1.15)
    left.grid(True, axis="y", alpha=0.3)
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, frameon=False)
    batches = sorted({r["B"] for r in rows if "B" in r})
    left.set_title("the layer's kernel" + (f", batch {batches[0]}" if len(batches) == 1 else ""))
    if breakdown:
        steps = [("malloc_ms", "cudaMalloc", "C7"), ("h2d_ms", "copy in (pageable)", "C0"),
                 ("kernel_ms", "kernel", "C3"), ("d2h_ms", "copy out (pageable)", "C9"),
                 ("free_ms", "cudaFree", "C8")]
        for i, entry in enumerate(breakdown):
            start = 0.0
            for key, label, color in steps:
                right.barh(i, entry[key], left=start, color=color,
                           label=label if i == 0 else None)
                start += entry[key]
        right.set_yticks(range(len(breakdown)))
        right.set_yticklabels([
            f"layer {e['layer']}\n{total:.0f} ms in all,\nkernel {e['kernel_ms']:.1f} ms "
            f"({100 * ratio(e['kernel_ms'], total):.1f}%)"
            for e, total in ((e, sum(e[key] for key, _, _ in steps)) for e in breakdown)])
        right.invert_yaxis()
        right.set_xlabel("ms")
        right.grid(True, axis="x", alpha=0.3)
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
        right.set_title("one call as the course project ran it")
    fig.suptitle(f"10-cnn-layer on {device['name']}")
    return fig


PLOTS = {
    "conv1d": plot_conv,
    "04-conv2d": plot_conv2d,
    "05-conv-texture": plot_texture,
    "06-dynamic-shared": plot_dynamic,
    "07-spmv": plot_spmv,
    "08-bfs": plot_bfs,
    "09-nbody": plot_nbody,
    "10-cnn-layer": plot_cnn,
}


# ---------------------------------------------------------------------------------------------
# Rooflines: each lab's points (pure data, checked before matplotlib), then one drawing function.
#
# A spec: title, unit ("flop" or "edge"), points [{series, case, ai, rate}] with ai in units per
# DRAM byte and rate in G units/s, layout ("cases": the points of a case share its intensity,
# one guide line per case; "markers": a marker per case; "sweep": a line per series through its
# cases), compute (whether the FP32 roof applies) and notes (lines under the plot).


def check_points(spec):
    """Log axes need positive intensities and rates."""
    if not spec["points"]:
        raise ValueError("no row gives a point for the roofline")
    for p in spec["points"]:
        for key in ("ai", "rate"):
            if not p[key] > 0:
                name = "intensity" if key == "ai" else "rate"
                raise ValueError(f"{p['series']}, {p['case']}: the {name} {p[key]} "
                                 "is not positive")
    return spec


def widest(rows, key):
    """The rows of each (variant, key) at the largest size."""
    best = {}
    for r in rows:
        k = (r["variant"], r[key])
        if k not in best or r["width"] > best[k]["width"]:
            best[k] = r
    return list(best.values())


def bytes_per_element(bench):
    """The bench's DRAM bytes per output (x read, y written), which must be positive."""
    bpe = bench["bytes_per_element"]
    if bpe <= 0:
        raise ValueError(f"'bytes_per_element' must be positive, is {bpe}")
    return bpe


def roofline_conv(bench):
    bpe = bytes_per_element(bench)
    points = []
    for r in widest(ok_rows(bench), "mask_width"):
        # One multiply and one add per mask tap: 2 * mask_width flops per output (the ghost taps
        # at the two ends counted too); bytes_per_element DRAM bytes per output (x read, y
        # written). Rate = gbs / bytes_per_element outputs/s times the flops per output.
        ai = 2 * r["mask_width"] / bpe
        points.append(dict(series=VARIANT_LABELS.get(r["variant"], r["variant"]),
                           case=f"mask {r['mask_width']}", ai=ai, rate=r["gbs"] * ai))
    widths = sorted({r["width"] for r in ok_rows(bench)})
    return dict(title=f"{bench.get('lab', '')}, width {pow2_label(widths[-1])}", unit="flop",
                layout="cases", points=points,
                notes=[f"Intensity = 2 x mask width flops / {bpe:g} bytes per output "
                       "(x read once, y written once)."])


def mask_taps(mask):
    m = re.search(r"(\d+)\s*x\s*(\d+)", mask)
    if not m:
        raise ValueError(f"cannot read the mask's size (like 5x5) from '{mask}'")
    return int(m[1]) * int(m[2])


def roofline_conv2d(bench):
    points = []
    for i, r in enumerate(bench["rows"]):
        if r["status"] != "ok":
            continue
        # flops = 2 per mask tap (multiply-add) per output value, every channel:
        # 2 * K*K * side^2 * channels; bytes = the bench's "bytes" (image read once, output
        # written once: 8 a pixel for float, 2 a value for 8-bit).
        flops = 2.0 * mask_taps(r["mask"]) * r["side"] ** 2 * r["channels"]
        ai = flops / positive(r, "bytes", i)
        rate = flops / (positive(r, "ms", i) * 1e-3) / 1e9
        case = f"{r['mask'].replace('-', ' ')}, {r['element']}" + (
            f", {r['channels']} channels" if r["channels"] != 1 else "")
        points.append(dict(series=r["variant"], case=case, ai=ai, rate=rate))
    sides = sorted({r["side"] for r in ok_rows(bench)})
    return dict(title="04-conv2d, " + " / ".join(f"{s} x {s}" for s in sides), unit="flop",
                layout="cases", points=points,
                notes=["Intensity = 2 flops per mask tap per output value / the bench's bytes "
                       "(image read once, output written once)."])


def roofline_texture(bench):
    bpe = bytes_per_element(bench)
    points = []
    for r in ok_rows(bench):
        # A (2R+1)^2 mask: 2 * (2R+1)^2 flops per pixel (multiply-add per tap) over
        # bytes_per_element bytes (pixel read once, output written once).
        ai = 2 * (2 * r["radius"] + 1) ** 2 / bpe
        points.append(dict(series=texture_label(r["variant"]), case=f"radius {r['radius']}",
                           ai=ai, rate=r["gbs"] * ai))
    sizes = sorted({(r["width"], r["height"]) for r in ok_rows(bench)})
    return dict(title="05-conv-texture, " + " / ".join(f"{w} x {h}" for w, h in sizes),
                unit="flop", layout="cases", points=points,
                notes=[f"Intensity = 2 (2R+1)² flops / {bpe:g} bytes per pixel (read once, "
                       "written once)."])


def roofline_dynamic(bench):
    bpe = bytes_per_element(bench)
    conv = [r for r in ok_rows(bench) if r["part"] == "conv"]
    if not conv:
        raise ValueError("no convolution row has status 'ok' (the reverse does no flops)")
    points = []
    for (variant, mask) in dict.fromkeys((r["variant"], r["mask_width"]) for r in conv):
        mine = [r for r in conv if r["variant"] == variant and r["mask_width"] == mask]
        smallest = min(mine, key=lambda r: r["tile_width"])
        picked = [(f"{variant}, its own choice of tile", r) for r in mine if r["chosen"]]
        for series, r in picked + [(f"{variant}, tile {smallest['tile_width']}", smallest)]:
            # As lab 02: 2 * mask_width flops per output, bytes_per_element bytes per output.
            ai = 2 * mask / bpe
            points.append(dict(series=series, case=f"mask {mask}", ai=ai, rate=r["gbs"] * ai))
    return dict(title="06-dynamic-shared, convolution", unit="flop", layout="cases",
                points=points,
                notes=[f"Intensity = 2 x mask width flops / {bpe:g} bytes per output. The "
                       "reverse (part 1) does no flops: its bandwidth is in the bench plot."])


def roofline_spmv(bench):
    l2 = bench["device"].get("l2_bytes", 64 << 20)
    points, small = [], set()
    for i, r in enumerate(bench["rows"]):
        if r["status"] != "ok":
            continue
        # The bench's own counts: flops = 2 nnz (multiply-add per entry); bytes = its
        # bytes_formula, nnz*(4+4) + (rows+1)*4 + rows*4 + cols*4 (values, columns, row
        # pointers, y, x once each).
        ai = positive(r, "flops", i) / positive(r, "bytes", i)
        if r["bytes"] < l2:
            small.add(short_matrix(r["matrix"]))
            continue
        if r["variant"] == "cuSPARSE":
            series = "cuSPARSE CSR"
        elif r["format"] == "csr-scalar":
            series = "reference CSR scalar (a thread per row, as the course)"
        else:
            series = None
        if series:
            points.append(dict(series=series, case=short_matrix(r["matrix"]), ai=ai,
                               rate=r["gflops"]))
    # The reference's best format on each matrix.
    for matrix in dict.fromkeys(r["matrix"] for r in ok_rows(bench)):
        mine = [r for r in ok_rows(bench)
                if r["matrix"] == matrix and r["variant"] == "reference" and r["bytes"] >= l2]
        if mine:
            best = max(mine, key=lambda r: r["gflops"])
            points.append(dict(series=f"reference's best format: {best['format']}",
                               case=short_matrix(matrix), ai=best["flops"] / best["bytes"],
                               rate=best["gflops"]))
    if not points:
        raise ValueError("no matrix larger than the L2 cache has a row with status 'ok'")
    notes = ["Intensity = the bench's flops (2 nnz) / bytes (nnz*(4+4) + (rows+1)*4 + rows*4 + "
             "cols*4)."]
    if small:
        notes.append("Left out, smaller than the L2 (launch-bound): "
                     f"{', '.join(sorted(small))}.")
    return dict(title="07-spmv", unit="flop", layout="markers", points=points, zoom=True,
                notes=notes)


def roofline_bfs(bench):
    rows = ok_rows(bench)
    # One graph per family (Kronecker, grid, chain, ...): the largest.
    largest = {}
    for r in rows:
        family = r["graph"].split()[0].rstrip(":")
        if family not in largest or r["vertices"] > largest[family]["vertices"]:
            largest[family] = r
    graphs = {r["graph"] for r in largest.values()}
    points = []
    for i, r in enumerate(bench["rows"]):
        if r["status"] != "ok" or r["graph"] not in graphs:
            continue
        v, e = positive(r, "vertices", i), positive(r, "edges", i)
        # Lower bounds on the DRAM bytes, from the data structures (labs/08-bfs/bfs.h): every
        # search initialises the depth array (4 bytes a vertex).
        if r["algorithm"] == "edge-parallel":
            # One pass per level (levels = deepest depth + 1: the last pass finds nothing new),
            # each reading the whole edge list: edge_src and edge_dst, 8 bytes an edge.
            dram = positive(r, "levels", i) * 8.0 * e + 4.0 * v
        else:
            # Top-down CSR search: each reached vertex's adjacency once, 2 arcs an edge of the
            # reached component, 4 bytes each (col_idx). The direction-optimising search's
            # bottom-up levels can skip arcs, so for it this is not a strict bound.
            dram = 8.0 * r["component_edges"] + 4.0 * v
        algorithm = BFS_LABELS.get(r["algorithm"], r["algorithm"])
        points.append(dict(series=f"{r['variant']} {algorithm}",
                           case=short_graph(r["graph"]), ai=r["component_edges"] / dram,
                           rate=r["gteps"]))
    return dict(title="08-bfs (traversed edges, not flops)", unit="edge", layout="markers",
                points=points, compute=False,
                notes=["No floating-point work: rate = GTEPS (the bench's), intensity = edges of "
                       "the reached component per DRAM byte, with the bytes a lower bound:",
                       "edge-parallel: levels x 8 B x edges (the edge list each level) + 4 B x "
                       "vertices (depth); frontier and direction-optimising: 8 B x component "
                       "edges (col_idx) + 4 B x vertices."])


def roofline_nbody(bench):
    fpi = bench["flops_per_interaction"]
    points = []
    for r in ok_rows(bench):
        # flops = 20 n^2 (every ordered pair, the bench's flops_per_interaction); DRAM bytes at
        # least n float4 bodies read (16 B) and n float3 accelerations written (12 B); the
        # tiles re-read the bodies from L2 and shared memory. Intensity = 20 n^2 / 28 n.
        n = r["n"]
        if n <= 0:
            raise ValueError(f"'n' must be positive, is {n}")
        points.append(dict(series=f"{r['variant']} {r['kernel']}", case=pow2_label(n),
                           ai=fpi * n * n / (28.0 * n), rate=r["gflops"]))
    return dict(title="09-nbody (labels: n)", unit="flop", layout="sweep", points=points,
                notes=[f"Intensity = {fpi:g} n² flops / 28 n bytes, a lower bound on the DRAM "
                       "traffic (float4 bodies read once, float3 accelerations written once; "
                       "the tiles re-read bodies from L2 and shared memory)."])


def roofline_cnn(bench):
    points = []
    for i, r in enumerate(bench["rows"]):
        if r["status"] != "ok":
            continue
        # flops = 2 B M C K^2 Ho Wo (the bench's "flops"); DRAM bytes = the runner's
        # 4 * (|x| + |y|) (x read once, y written once; the weights are a few KB), recovered
        # from its gbs and ms: bytes = gbs * 1e9 * ms * 1e-3.
        dram = positive(r, "gbs", i) * 1e9 * positive(r, "ms", i) * 1e-3
        label = r["variant"].replace("reference conv_forward_", "reference ")
        points.append(dict(series=label, case=f"layer {r['layer']}",
                           ai=positive(r, "flops", i) / dram, rate=r["gflops"]))
    batches = sorted({r["B"] for r in ok_rows(bench) if "B" in r})
    title = "10-cnn-layer" + (f", batch {batches[0]}" if len(batches) == 1 else "")
    return dict(title=title, unit="flop", layout="cases", points=points,
                notes=["Intensity = 2 B M C K² Ho Wo flops / 4 (|x| + |y|) bytes (the runner's "
                       "counts)."])


ROOFLINES = {
    "conv1d": roofline_conv,
    "04-conv2d": roofline_conv2d,
    "05-conv-texture": roofline_texture,
    "06-dynamic-shared": roofline_dynamic,
    "07-spmv": roofline_spmv,
    "08-bfs": roofline_bfs,
    "09-nbody": roofline_nbody,
    "10-cnn-layer": roofline_cnn,
}


def draw_roofs(ax, device, spec, xlim):
    copy, peak = device["copy_bandwidth_gbs"], device["fp32_peak_gflops"]
    unit = "GTEPS" if spec["unit"] == "edge" else "GFLOP/s"
    xs = [xlim[0] * (xlim[1] / xlim[0]) ** (k / 200) for k in range(201)]
    compute = spec.get("compute", True)
    roof = [min(copy * x, peak) if compute else copy * x for x in xs]
    ax.plot(xs, roof, color="black", linewidth=2,
            label=f"memory roof: copy bandwidth {copy:.0f} GB/s (measured in the bench run)")
    theo = device.get("dram_theoretical_gbs")
    if isinstance(theo, (int, float)) and theo > copy:
        ax.plot(xs, [min(theo * x, peak) if compute else theo * x for x in xs], color="gray",
                linewidth=1, linestyle="--",
                label=f"DRAM theoretical {theo:.0f} GB/s (memory clock x bus width)")
    if compute:
        ax.axhline(peak, color="black", linewidth=1, linestyle=":",
                   label=f"compute roof: FP32 peak {peak / 1000:.1f} T{unit[1:]} "
                         f"(SMs x lanes x 2 x clock, not measured)")
        ridge = peak / copy
        if xlim[0] < ridge < xlim[1]:
            ax.annotate(f"ridge {ridge:.1f} flops/byte", (ridge, peak), xytext=(4, 4),
                        textcoords="offset points", fontsize=8)


CASE_MARKERS = [("o", 16, False), ("s", 12, False), ("D", 7, True), ("^", 10, False),
                ("v", 5, True), ("P", 5, True)]


def case_marker(k, color):
    marker, size, filled = CASE_MARKERS[k % len(CASE_MARKERS)]
    style = dict(marker=marker, markersize=size, color=color)
    if filled:
        style.update(markeredgecolor="black", markeredgewidth=0.5)
    else:
        style.update(fillstyle="none", markeredgewidth=2)
    return style


def draw_points(ax, spec):
    points = spec["points"]
    series = list(dict.fromkeys(p["series"] for p in points))
    cases = list(dict.fromkeys(p["case"] for p in points))
    layout = spec["layout"]
    for k, s in enumerate(series):
        mine = [p for p in points if p["series"] == s]
        color = "black" if s.startswith("cuSPARSE") or s.startswith("cuDNN") else f"C{k}"
        if layout == "sweep":
            mine.sort(key=lambda p: p["ai"])
            ax.plot([p["ai"] for p in mine], [p["rate"] for p in mine], marker="o", color=color,
                    label=s)
            continue
        if layout == "cases":
            # Several series share a case's intensity: concentric markers, large and hollow for
            # the first series, small and filled for the last, so that none hides another and
            # every point stays at its true intensity and rate.
            ax.plot([p["ai"] for p in mine], [p["rate"] for p in mine], linestyle="none",
                    label=s, **case_marker(k, color))
        else:
            # The shape tells the case; the first two series hollow (large, then medium), the
            # others small and filled, so that series at the same point all show.
            style = [dict(markersize=15, fillstyle="none", markeredgewidth=2),
                     dict(markersize=10, fillstyle="none", markeredgewidth=2)][k] if k < 2 else \
                dict(markersize=6, markeredgecolor="black", markeredgewidth=0.5)
            for p in mine:
                ax.plot([p["ai"]], [p["rate"]], linestyle="none", color=color,
                        marker=FALLBACK_MARKERS[cases.index(p["case"]) % len(FALLBACK_MARKERS)],
                        **style)
            ax.plot([], [], linestyle="none", marker="s", color=color, label=s,
                    **dict(style, markersize=min(style["markersize"], 10)))
    if layout == "markers":
        for c, case in enumerate(cases):
            ax.plot([], [], linestyle="none", color="white", markeredgecolor="black",
                    marker=FALLBACK_MARKERS[c % len(FALLBACK_MARKERS)], markersize=9, label=case)
    if layout == "cases":
        # One guide line per case at its intensity, labelled at the bottom; labels of cases
        # closer than a factor 2 are stacked so that they do not overlap.
        placed = []
        for case in sorted(cases, key=lambda c: next(p["ai"] for p in points if p["case"] == c)):
            ai = next(p["ai"] for p in points if p["case"] == case)
            level = 0
            while any(lv == level and ai / x < 2 for x, lv in placed):
                level += 1
            placed.append((ai, level))
            ax.axvline(ai, color="gray", linewidth=0.8, linestyle=":", zorder=0)
            ax.annotate(f"{case}: {ai:.3g}" if level else f"{case}\n{ai:.3g}", (ai, 0.0),
                        xycoords=("data", "axes fraction"), xytext=(0, 3 + 24 * level),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8,
                        bbox=dict(facecolor="white", edgecolor="none", pad=1, alpha=0.8))
    if layout == "sweep":
        for s in series:
            mine = sorted((p for p in points if p["series"] == s), key=lambda p: p["ai"])
            for p in mine[::2]:
                ax.annotate(p["case"], (p["ai"], p["rate"]), xytext=(0, -13),
                            textcoords="offset points", ha="center", fontsize=8)


def draw_roofline(plt, spec, device):
    points = spec["points"]
    copy, peak = device["copy_bandwidth_gbs"], device["fp32_peak_gflops"]
    compute = spec.get("compute", True)
    ais = [p["ai"] for p in points]
    rates = [p["rate"] for p in points]
    lo, hi = min(ais), max(ais)
    if compute:
        lo, hi = min(lo, peak / copy), max(hi, peak / copy)
    xlim = (lo / 6, hi * 6)
    top = max(peak if compute else copy * xlim[1], max(rates)) * 3
    ylim = (min(rates) / 6, top)
    zoom = spec.get("zoom")
    if zoom:
        fig, (ax, zax) = plt.subplots(1, 2, figsize=(11, 5.2), layout="constrained",
                                      gridspec_kw={"width_ratios": [1, 1.4]})
    else:
        fig, ax = plt.subplots(figsize=(9, 5.6), layout="constrained")
    draw_roofs(ax, device, spec, xlim)
    draw_points(ax, spec)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    unit = "traversed edges per DRAM byte" if spec["unit"] == "edge" else "flops per DRAM byte"
    ax.set_xlabel(f"arithmetic intensity ({unit}, log)")
    ax.set_ylabel(("GTEPS" if spec["unit"] == "edge" else "GFLOP/s") + " (log)")
    ax.grid(True, which="major", alpha=0.3)
    if zoom:
        zx = (min(ais) * 0.95, max(ais) * 1.05)
        zy = (min(rates) / 2, max(copy * zx[1], max(rates)) * 1.6)
        draw_roofs(zax, device, spec, zx)
        draw_points(zax, spec)
        zax.set_xlim(*zx)
        zax.set_yscale("log")
        zax.set_ylim(*zy)
        zax.set_xlabel(f"arithmetic intensity ({unit}, linear)")
        zax.set_title("zoom on the points (dashed box on the left)")
        zax.grid(True, which="both", alpha=0.3)
        ax.add_patch(plt.Rectangle((zx[0], zy[0]), zx[1] - zx[0], zy[1] - zy[0], fill=False,
                                   edgecolor="gray", linestyle="--"))
    # The legend and the notes under the plot, off the data.
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
               frameon=False, fontsize=8,
               title="\n".join(textwrap.fill(n, 115) for n in spec.get("notes", [])),
               title_fontsize=8, alignment="left")
    measured = ("memory roof measured (copy in the same bench run)"
                + ("; FP32 roof from the datasheet formula, not measured" if compute
                   else "; no compute roof"))
    fig.suptitle(f"{spec['title']} roofline on {device['name']}\n{measured}")
    return fig


if __name__ == "__main__":
    sys.exit(main(sys.argv))
