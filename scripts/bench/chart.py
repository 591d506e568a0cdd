"""chart.py: draws scripts/bench/run.sh's comparison as an SVG: for each figure that
gpuhost and another implementation both have, how many times faster (or more
bandwidth) gpuhost is than C, CuPy and numba, on a log scale (right of 1: gpuhost is
better). Reads the TSV that `table.lua DIR tsv` prints; needs matplotlib.

    python3 scripts/bench/chart.py build/bench/table.tsv scripts/bench/chart.svg
"""
import csv
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

OTHERS = [("C", "#555555"), ("CuPy", "#d95f02"), ("numba", "#1b9e77")]


def speedups(rows):
    """(figure, {other: gpuhost's advantage}) for rows with gpuhost and another."""
    out = []
    for r in rows:
        g = float(r["gpuhost"]) if r["gpuhost"] else None
        if not g:
            continue
        adv = {}
        for name, _ in OTHERS:
            o = float(r[name]) if r[name] else None
            if o:
                adv[name] = g / o if r["better"] == "higher" else o / g
        if adv:
            out.append((r["figure"], adv))
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    data = speedups(rows)
    height = 0.8 + 0.42 * len(data)
    fig, ax = plt.subplots(figsize=(10, height))
    bar = 0.8 / len(OTHERS)
    for i, (figure, adv) in enumerate(reversed(data)):
        for j, (name, colour) in enumerate(OTHERS):
            if name in adv:
                # from 1 to the ratio: left of 1 when gpuhost is slower
                ax.barh(i + (1 - j) * bar, adv[name] - 1.0, left=1.0, height=bar, color=colour)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for _, c in OTHERS]
    ax.legend(handles, ["vs " + n for n, _ in OTHERS], loc="upper center", ncol=len(OTHERS),
              bbox_to_anchor=(0.5, -0.12 * 4.0 / height), fontsize=8, frameon=False)
    ax.set_yticks(range(len(data)))
    ax.set_yticklabels([f for f, _ in reversed(data)], fontsize=8)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("gpuhost's advantage (x; right of 1: gpuhost is faster)")
    ax.set_title("gpuhost against C, CuPy and numba", fontsize=10)
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main()
