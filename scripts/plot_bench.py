#!/usr/bin/env python3
"""Turn a lab benchmark's JSON (runner --bench --json FILE) into a PNG plot for the docs.

    scripts/plot_bench.py bench-lab01.json docs/labs/img/01-conv1d-basic-bench.png

The kind of plot follows the JSON's "lab" field:
- 07-spmv: one group of bars per matrix, the reference's formats and cuSPARSE CSR, effective
  bandwidth as % of the copy bandwidth measured in the same run;
- 09-nbody: GFLOP/s (20 flops per interaction) of every variant against n, with the FP32 peak and
  the 75.5% ceiling of a kernel that computes every ordered pair;
- otherwise (the convolution labs): one panel per mask width, effective bandwidth (GB/s) of every
  variant against the problem size, with the copy bandwidth as the roofline.
Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print("usage: plot_bench.py BENCH_JSON OUTPUT_PNG", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            bench = json.load(f)
        rows = bench["rows"]
        device = bench["device"]
        check_fields(bench.get("lab", ""), rows, device)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"plot_bench.py: error: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lab = bench.get("lab", "")
    if lab == "07-spmv":
        fig = plot_spmv(plt, rows, device)
    elif lab == "09-nbody":
        fig = plot_nbody(plt, rows, device)
    else:
        fig = plot_conv(plt, rows, device)
    fig.suptitle(f"{lab} on {device['name']}")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]}")
    return 0


# The fields each kind of plot reads, in every row whose status is "ok".
ROW_FIELDS = {
    "07-spmv": ("matrix", "variant", "format", "ms", "pct_copy"),
    "09-nbody": ("variant", "kernel", "n", "gflops"),
}
CONV_FIELDS = ("variant", "width", "mask_width", "gbs")
DEVICE_FIELDS = {"07-spmv": ("name", "copy_bandwidth_gbs"), "09-nbody": ("name", "fp32_peak_gflops")}


def check_fields(lab, rows, device):
    """Raises ValueError naming the first missing field, before anything is plotted."""
    if not isinstance(rows, list) or not rows:
        raise ValueError("'rows' must be a non-empty list")
    for key in DEVICE_FIELDS.get(lab, ("name", "copy_bandwidth_gbs")):
        if key not in device:
            raise ValueError(f"device has no '{key}'")
    fields = ROW_FIELDS.get(lab, CONV_FIELDS)
    for i, row in enumerate(rows):
        if "status" not in row:
            raise ValueError(f"row {i} has no 'status'")
        if row["status"] != "ok":
            continue
        for key in fields:
            if key not in row:
                raise ValueError(f"row {i} has no '{key}'")


def plot_spmv(plt, rows, device):
    ok = [r for r in rows if r["status"] == "ok" and r["variant"] in ("reference", "cuSPARSE")]
    matrices = list(dict.fromkeys(r["matrix"] for r in ok))
    series = list(dict.fromkeys((r["variant"], r["format"]) for r in ok))
    cusparse = {r["matrix"]: r["ms"] for r in ok if r["variant"] == "cuSPARSE"}
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 7.5), sharex=True)
    width = 0.8 / len(series)
    for k, (variant, fmt) in enumerate(series):
        xs, pct, speedup = [], [], []
        for m, matrix in enumerate(matrices):
            for r in ok:
                if r["matrix"] == matrix and r["variant"] == variant and r["format"] == fmt:
                    xs.append(m + (k - (len(series) - 1) / 2) * width)
                    pct.append(r["pct_copy"])
                    speedup.append(cusparse.get(matrix, float("nan")) / r["ms"])
        label = "cuSPARSE CSR" if variant == "cuSPARSE" else f"reference {fmt}"
        color = "black" if variant == "cuSPARSE" else None
        top.bar(xs, pct, width, label=label, color=color)
        bottom.bar(xs, speedup, width, label=label, color=color)
    top.set_ylabel(f"% of copy bandwidth ({device['copy_bandwidth_gbs']:.0f} GB/s)")
    bottom.set_ylabel("cuSPARSE time / time (log)")
    bottom.set_yscale("log")
    bottom.axhline(1.0, color="black", linewidth=1)
    bottom.set_xticks(range(len(matrices)))
    bottom.set_xticklabels([m.split(" (")[0] for m in matrices], rotation=20, ha="right",
                           fontsize=8)
    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3)
    top.legend(fontsize=8, ncol=3)
    return fig


def plot_nbody(plt, rows, device):
    ok = [r for r in rows if r["status"] == "ok"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant, kernel in dict.fromkeys((r["variant"], r["kernel"]) for r in ok):
        pts = sorted((r["n"], r["gflops"]) for r in ok
                     if r["variant"] == variant and r["kernel"] == kernel)
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="o", label=f"{variant} {kernel}")
    peak = device["fp32_peak_gflops"]
    ax.axhline(peak, color="black", linestyle="--", linewidth=1,
               label=f"FP32 peak ({peak / 1000:.1f} TFLOP/s)")
    ax.axhline(0.755 * peak, color="gray", linestyle=":", linewidth=1,
               label="one-sided ceiling: 13.25 issues per interaction (75.5%)")
    ax.axhline(0.70 * peak, color="red", linestyle=":", linewidth=1, label="target: 70%")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bodies n")
    ax.set_ylabel("GFLOP/s (20 flops per interaction)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def plot_conv(plt, rows, device):
    masks = sorted({r["mask_width"] for r in rows})
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, axes = plt.subplots(1, len(masks), figsize=(5 * len(masks), 4), sharey=True, squeeze=False)
    copy = device["copy_bandwidth_gbs"]
    for ax, mask in zip(axes[0], masks):
        for v in variants:
            pts = [(r["width"], r["gbs"]) for r in rows
                   if r["variant"] == v and r["mask_width"] == mask and r["status"] == "ok"]
            if pts:
                xs, ys = zip(*sorted(pts))
                ax.plot(xs, ys, marker="o", label=v)
        ax.axhline(copy, color="black", linestyle="--", linewidth=1,
                   label=f"copy bandwidth ({copy:.0f} GB/s)")
        ax.set_xscale("log", base=2)
        ax.set_title(f"mask width {mask}")
        ax.set_xlabel("width (elements)")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("effective bandwidth (GB/s)")
    axes[0][-1].legend(loc="lower right", fontsize=8)
    return fig


if __name__ == "__main__":
    sys.exit(main(sys.argv))
