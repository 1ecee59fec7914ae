#!/usr/bin/env python3
"""Turn a lab benchmark's JSON (runner --bench --json FILE) into a PNG plot for the docs.

    scripts/plot_bench.py bench-lab01.json docs/labs/img/01-conv1d-basic-bench.png

One panel per mask width: effective bandwidth (GB/s) of every variant against the problem size,
with the copy bandwidth measured in the same run as the roofline. Needs matplotlib
(Debian: python3-matplotlib).
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
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_bench.py: error: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.suptitle(f"{bench.get('lab', '')} on {device['name']}")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
