"""Histogram figures of the difficulty metrics (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from rc1.difficulty.bucket import BUCKETS  # noqa: E402
from rc1.difficulty.metrics import METRICS  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from rc1.difficulty.distribution import INTEGER_METRICS, histogram  # noqa: E402

COLORS = {"easy": "#4daf4a", "medium": "#377eb8", "hard": "#e41a1c"}


def metrics_figure(columns: dict[str, np.ndarray], bucket: np.ndarray, title: str):
    """One panel per metric: a histogram stacked by bucket (filled steps: three polygons a panel instead of a
    rectangle per bin and bucket, which took most of the figure's drawing time at 30k pool items)."""
    fig, axes = plt.subplots(2, 5, figsize=(20, 7.5))
    for ax, name in zip(axes.flat, METRICS):
        vals = columns[name].astype(np.float64)
        edges = histogram(vals, name)["edges"] or [0, 1]
        ax.hist([vals[bucket == i] for i in range(3)], bins=edges, stacked=True, histtype="stepfilled",
                color=[COLORS[b] for b in BUCKETS], label=list(BUCKETS))
        ax.set_title(name, fontsize=12)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=name in INTEGER_METRICS))
        ax.set_ylabel("seeds")
        ax.tick_params(labelsize=9)
        p50 = float(np.median(vals)) if len(vals) else 0.0
        ax.axvline(p50, color="black", linestyle="--", linewidth=1)
        ax.text(0.98, 0.95, f"p50={p50:.3g}", transform=ax.transAxes, ha="right", va="top", fontsize=9)
    axes.flat[0].legend(fontsize=9)
    fig.suptitle(title, fontsize=14)
    fig.tight_layout()
    return fig


def buckets_figure(buckets_in: dict, buckets_balanced: dict):
    """Bucket counts per task, before and after resampling."""
    tasks = sorted(set(buckets_in) | set(buckets_balanced))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=False)
    for ax, (label, counts) in zip(axes, (("input pool", buckets_in), ("balanced pool", buckets_balanced))):
        x = np.arange(len(tasks))
        for j, b in enumerate(BUCKETS):
            ax.bar(x + (j - 1) * 0.27, [counts.get(t, {}).get(b, 0) for t in tasks], width=0.27,
                   color=COLORS[b], label=b)
        ax.set_xticks(x, tasks)
        ax.set_title(f"buckets per task: {label}")
        ax.set_ylabel("seeds")
    axes[0].legend()
    fig.tight_layout()
    return fig


def close(fig) -> None:
    plt.close(fig)
