"""Weight calibration: fit the seven dimension weights to task success on scored shadow candidates.

Fit: non-negative least squares with an L2 prior toward the current weights w0,

    min_w>=0  (1/N) * sum_i s_i (x_i . w - y_i)^2  +  l2 * ||w - w0||^2

solved by scipy.optimize.nnls on the augmented system [sqrt(s) X; sqrt(N l2) I] w = [sqrt(s) y; sqrt(N l2) w0]
(N = sum of sample weights s, the judge's per-result weight). The data term is a mean, so `l2` means the
same whatever the number of candidates. y = success (0/1). The NNLS solution is then projected exactly
(Euclidean) onto the capped simplex {w >= 0, sum w = 1, w_i <= cap}: the deployable weights.

Evaluation: K-fold CV grouped by item (sklearn GroupKFold, shuffled with the seed): the candidates of one item
(the six of a shadow item share its question and gold answer) are all in one fold, so no fold is scored on
items it was fitted on. On each held-out fold, the calibrated weights
("new", fitted on the other folds) and the v1 equal-weight score ("old", DESIGN.md) are compared by rank
correlation with success (Spearman) and MAE against success. The current weights w0 are reported too.
Bootstrap: `boot` resamples items with replacement (numpy Generator seeded with the seed; a drawn item brings all
its candidates): per-weight percentile CIs, and the out-of-bag (items not drawn) rank-corr improvement. Everything is deterministic for a seed.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
from scipy.optimize import brentq, nnls
from sklearn.model_selection import GroupKFold
from tqdm import tqdm

from rc1.core.config import DIMENSIONS, WeightCalibThresholds
from rc1.core.console import no_bar
from rc1.core.errors import Rc1Error
from rc1.scoring.ranks import at_least, improve_pct, mean_defined, spearman


# ---------------------------------------------------------------- projection
def project_capped_simplex(v: Sequence[float], cap: float = 0.5, total: float = 1.0) -> np.ndarray:
    """Euclidean projection of v onto {w : 0 <= w_i <= cap, sum w = total}.

    The projection is w_i = clip(v_i - tau, 0, cap) for the unique shift tau with sum w = total;
    sum(clip(v - tau)) is continuous and non-increasing in tau, so a bracketing root finder finds tau,
    and tau is then recomputed in closed form on the free coordinates (exact up to float rounding).
    """
    v = np.asarray(v, dtype=float)
    n = len(v)
    if n == 0 or not np.all(np.isfinite(v)):
        raise ValueError("projection needs a non-empty finite vector")
    if cap * n < total - 1e-12 or cap <= 0:
        raise ValueError(f"infeasible: {n} weights capped at {cap} cannot sum to {total}")

    def excess(tau: float) -> float:
        return float(np.clip(v - tau, 0.0, cap).sum() - total)

    lo, hi = float(v.min() - cap), float(v.max())
    if excess(lo) <= 0:  # n * cap == total: every weight sits at the cap
        tau = lo
    else:
        tau = brentq(excess, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    shifted = v - tau
    upper = shifted >= cap
    free = (shifted > 0) & ~upper
    if free.any():
        tau = (v[free].sum() + cap * upper.sum() - total) / free.sum()
    return np.clip(v - tau, 0.0, cap)


# ---------------------------------------------------------------- fit
def fit_nnls(X: np.ndarray, y: np.ndarray, w0: np.ndarray, l2: float,
             sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Non-negative least squares with an L2 prior toward w0 (see the module docstring)."""
    X, y, w0 = np.asarray(X, float), np.asarray(y, float), np.asarray(w0, float)
    s = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    root = np.sqrt(s)
    prior = np.sqrt(max(float(s.sum()), 1.0) * l2)
    A = np.vstack([X * root[:, None], prior * np.eye(X.shape[1])])
    b = np.concatenate([y * root, prior * w0])
    w, _ = nnls(A, b)
    return w


def fit_projected(X, y, w0, l2, cap, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    raw = fit_nnls(X, y, w0, l2, sample_weight)
    return raw, project_capped_simplex(raw, cap=cap)


def _evaluate(X: np.ndarray, y: np.ndarray, weights: Mapping[str, np.ndarray]) -> dict[str, dict[str, float | None]]:
    return {name: {"rank_corr": spearman(X @ w, y), "mae": float(np.mean(np.abs(X @ w - y)))}
            for name, w in weights.items()}


def _median(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.median(vals)) if vals else None


def calibrate(X: np.ndarray, y: np.ndarray, w0: Sequence[float], *, cv: int = 5, boot: int = 200, l2: float = 0.1,
              seed: int = 42, cap: float = 0.5, sample_weight: np.ndarray | None = None,
              groups: Sequence[str] | None = None, progress: bool = False) -> dict[str, Any]:
    """Fit, cross-validate and bootstrap; returns the report (weights under report['weights']).
    `groups[i]` is candidate i's item id (default: every candidate its own item)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    w0 = np.asarray(w0, float)
    n, d = X.shape
    if d != len(DIMENSIONS) or len(w0) != d:
        raise Rc1Error(f"calibration expects {len(DIMENSIONS)} dimensions, got X with {d} and w0 with {len(w0)}")
    if cv < 2 or n < 2 * cv:
        raise Rc1Error(f"calibration needs at least {2 * cv} scored candidates for {cv}-fold CV, got {n}")
    if len(set(y.tolist())) < 2:
        raise Rc1Error("calibration needs both successful and failed candidates (success is constant)")
    g = np.arange(n).astype(str) if groups is None else np.asarray([str(x) for x in groups])
    if len(g) != n:
        raise Rc1Error(f"calibration: {len(g)} item ids for {n} candidates")
    items = np.unique(g)
    if len(items) < cv:
        raise Rc1Error(f"calibration needs at least {cv} items for {cv}-fold CV grouped by item, got {len(items)}")
    s = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    equal = np.full(d, 1.0 / d)
    rows_of = {item: np.flatnonzero(g == item) for item in items}

    folds = []
    for i, (tr, te) in enumerate(GroupKFold(n_splits=cv, shuffle=True, random_state=seed).split(X, groups=g)):
        raw, w = fit_projected(X[tr], y[tr], w0, l2, cap, s[tr])
        ev = _evaluate(X[te], y[te], {"old": equal, "current": w0, "new": w})
        folds.append({"fold": i, "n_train": len(tr), "n_test": len(te), "weights": _named(w), **ev})

    rng = np.random.default_rng(seed)
    boots, oob_improve = [], []
    for _ in tqdm(range(boot), desc="bootstrap", disable=no_bar(progress)):
        drawn = items[rng.integers(0, len(items), len(items))]
        idx = np.concatenate([rows_of[item] for item in drawn])
        _, w = fit_projected(X[idx], y[idx], w0, l2, cap, s[idx])
        boots.append(w)
        oob = np.flatnonzero(~np.isin(g, drawn))
        if len(oob) >= 2 and len(set(y[oob].tolist())) == 2:
            oob_improve.append(improve_pct(spearman(X[oob] @ equal, y[oob]), spearman(X[oob] @ w, y[oob])))
    boots_arr = np.array(boots) if boots else np.empty((0, d))

    raw, w = fit_projected(X, y, w0, l2, cap, s)
    summary = {}
    for name in ("old", "current", "new"):
        rc = [f[name]["rank_corr"] for f in folds]
        mae = [f[name]["mae"] for f in folds]
        summary[name] = {"rank_corr_median": _median(rc), "rank_corr_mean": mean_defined(rc),
                         "mae_median": _median(mae), "mae_mean": mean_defined(mae)}
    improve = {
        "rank_corr_median_improve_pct": improve_pct(summary["old"]["rank_corr_median"],
                                                    summary["new"]["rank_corr_median"]),
        "mae_improve_pct": _reduction_pct(summary["old"]["mae_median"], summary["new"]["mae_median"]),
        "vs_current": {
            "rank_corr_median_improve_pct": improve_pct(summary["current"]["rank_corr_median"],
                                                        summary["new"]["rank_corr_median"]),
            "mae_improve_pct": _reduction_pct(summary["current"]["mae_median"], summary["new"]["mae_median"]),
        },
    }
    oob_clean = [v for v in oob_improve if v is not None]
    return {
        "n": n, "n_items": int(len(items)), "cv_groups": "item", "success_rate": float(y.mean()), "params": {"cv": cv, "boot": boot, "l2": l2, "seed": seed, "cap": cap},
        "baseline_old": "v1 equal weights (1/7 each)",
        "weights_current": _named(w0), "weights_nnls_raw": _named(raw), "weights": _named(w),
        "folds": folds, "summary": summary, "improvement": improve,
        "bootstrap": {
            "n": len(boots),
            "weights": {dim: {"mean": float(boots_arr[:, j].mean()), "std": float(boots_arr[:, j].std()),
                              "ci_low": float(np.percentile(boots_arr[:, j], 2.5)),
                              "ci_high": float(np.percentile(boots_arr[:, j], 97.5))}
                        for j, dim in enumerate(DIMENSIONS)} if len(boots) else {},
            "oob_rank_corr_improve_pct": {
                "n": len(oob_clean), "median": _median(oob_clean),
                "ci_low": float(np.percentile(oob_clean, 2.5)) if oob_clean else None,
                "ci_high": float(np.percentile(oob_clean, 97.5)) if oob_clean else None,
            },
        },
    }


def _reduction_pct(old: float | None, new: float | None) -> float | None:
    """How much smaller `new` is than `old`, in percent of old (MAE: positive = better)."""
    if old is None or new is None or old <= 0:
        return None
    return 100.0 * (old - new) / old


def _named(w: Sequence[float]) -> dict[str, float]:
    return {dim: float(x) for dim, x in zip(DIMENSIONS, w)}


def calibration_checks(report: Mapping[str, Any], gate: WeightCalibThresholds) -> list[dict]:
    imp = report["improvement"]
    return [at_least("rank_corr_median_improve_pct", imp["rank_corr_median_improve_pct"],
                     gate.rank_corr_median_improve_pct_min),
            at_least("mae_improve_pct", imp["mae_improve_pct"], gate.mae_improve_pct_min)]


# ---------------------------------------------------------------- input
class Design(NamedTuple):
    X: np.ndarray            # the 7 judge dimensions per candidate
    y: np.ndarray            # success (0/1)
    weight: np.ndarray       # the judge's per-result weight (0 stays 0: an unusable result counts for nothing)
    groups: np.ndarray       # item id per candidate (CV folds and bootstrap draws are by item)
    skipped: int             # failed rows left out


def design_matrix(rows: Sequence[Mapping[str, Any]], source: str = "scored candidates") -> Design:
    """X, y, sample weights and item ids from scored-candidate rows; failed rows are skipped (counted)."""
    X, y, s, groups, skipped = [], [], [], [], 0
    for i, r in enumerate(rows, 1):
        if r.get("failed") or not r.get("scores"):
            skipped += 1
            continue
        try:
            X.append([float(r["scores"][dim]) for dim in DIMENSIONS])
            y.append(float(bool(r["success"])))
            weight = r.get("weight")
            s.append(1.0 if weight is None else float(weight))
            groups.append(str(r.get("item_id", f"row{i}")))
        except (KeyError, TypeError, ValueError) as e:
            raise Rc1Error(f"{source}: row {i}: needs scores.<7 dims> and success ({e})") from None
    return Design(np.array(X, float).reshape(-1, len(DIMENSIONS)), np.array(y), np.array(s), np.array(groups),
                  skipped)
