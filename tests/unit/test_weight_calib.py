"""Weight calibration core: the capped-simplex projection, the NNLS fit and reproducible reports."""

import numpy as np
import pytest
from scipy.optimize import minimize

from rc1.scoring.calibrate import calibrate, calibration_checks, design_matrix, fit_nnls, project_capped_simplex
from rc1.core.config import DIMENSIONS, load_thresholds
from rc1.core.errors import Rc1Error


def _feasible(w, cap=0.5):
    return np.all(w >= -1e-12) and np.all(w <= cap + 1e-12) and abs(w.sum() - 1) < 1e-9


def test_projection_of_random_vectors_satisfies_the_constraints_and_is_the_nearest_point():
    rng = np.random.default_rng(0)
    for scale in (0.1, 1.0, 10.0):
        for _ in range(50):
            v = rng.normal(0, scale, 7)
            w = project_capped_simplex(v, cap=0.5)
            assert _feasible(w)
            # optimality: no feasible point drawn at random is closer to v
            for _ in range(20):
                z = project_capped_simplex(rng.normal(0, 1, 7), cap=0.5)
                assert np.linalg.norm(v - w) <= np.linalg.norm(v - z) + 1e-9


def test_projection_matches_a_generic_constrained_solver():
    v = np.array([0.9, 0.8, -0.3, 0.1, 0.05, 0.0, 0.2])
    w = project_capped_simplex(v, cap=0.5)
    ref = minimize(lambda x: ((x - v) ** 2).sum(), np.full(7, 1 / 7), method="SLSQP", bounds=[(0, 0.5)] * 7,
                   constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}], options={"ftol": 1e-14}).x
    np.testing.assert_allclose(w, ref, atol=1e-6)
    assert w[0] == pytest.approx(0.5) and w[2] == 0.0


def test_feasible_vectors_are_unchanged_and_infeasible_caps_are_refused():
    for w0 in ([0.30, 0.15, 0.15, 0.15, 0.08, 0.09, 0.08], [0.5, 0.5, 0, 0, 0, 0, 0], [1 / 7] * 7):
        np.testing.assert_allclose(project_capped_simplex(w0, cap=0.5), w0, atol=1e-12)
    with pytest.raises(ValueError, match="infeasible"):
        project_capped_simplex(np.ones(7), cap=0.1)
    np.testing.assert_allclose(project_capped_simplex([3, -1], cap=0.5), [0.5, 0.5])


def test_nnls_recovers_non_negative_weights_and_the_prior_pulls_toward_w0():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (400, 7))
    true = np.array([0.5, 0.2, 0.0, 0.3, 0.0, 0.0, 0.0])
    y = X @ true
    np.testing.assert_allclose(fit_nnls(X, y, np.full(7, 1 / 7), l2=0.0), true, atol=1e-8)
    w0 = np.full(7, 1 / 7)
    strong = fit_nnls(X, y, w0, l2=100.0)
    assert np.linalg.norm(strong - w0) < 0.05 < np.linalg.norm(fit_nnls(X, y, w0, l2=0.01) - w0)


def _synthetic(n=300, seed=3):
    """Success driven by correctness and clarification; the rest is noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 7))
    y = ((0.7 * X[:, 0] + 0.3 * X[:, 3] + rng.normal(0, 0.05, n)) > 0.5).astype(float)
    return X, y


def test_calibration_is_reproducible_for_a_seed_and_improves_on_the_equal_weights():
    X, y = _synthetic()
    w0 = np.full(7, 1 / 7)
    a = calibrate(X, y, w0, cv=5, boot=30, l2=0.1, seed=42)
    b = calibrate(X, y, w0, cv=5, boot=30, l2=0.1, seed=42)
    assert a == b
    assert calibrate(X, y, w0, cv=5, boot=30, l2=0.1, seed=7)["bootstrap"] != a["bootstrap"]
    w = np.array([a["weights"][d] for d in DIMENSIONS])
    assert _feasible(w)
    assert a["weights"]["correctness"] == max(a["weights"].values())
    assert len(a["folds"]) == 5 and a["bootstrap"]["n"] == 30
    ci = a["bootstrap"]["weights"]["correctness"]
    assert ci["ci_low"] <= ci["mean"] <= ci["ci_high"]
    checks = calibration_checks(a, load_thresholds("configs/gates.yaml").weight_calib)
    assert all(c["pass"] for c in checks), checks


def test_calibration_refuses_data_it_cannot_fit():
    X, y = _synthetic(n=40)
    with pytest.raises(Rc1Error, match="both successful and failed"):
        calibrate(X, np.ones(40), np.full(7, 1 / 7))
    with pytest.raises(Rc1Error, match="at least 10"):
        calibrate(X[:6], y[:6], np.full(7, 1 / 7), cv=5)


def test_design_matrix_skips_failed_rows_and_names_bad_ones():
    ok = {"scores": {d: 0.5 for d in DIMENSIONS}, "success": True, "failed": False, "weight": 0.5}
    zero = {**ok, "weight": 0, "item_id": "b"}
    X, y, s, groups, skipped = design_matrix([{**ok, "item_id": "a"}, {"failed": True, "scores": None}, zero])
    assert X.shape == (2, 7) and list(y) == [1.0, 1.0] and list(s) == [0.5, 0.0] and skipped == 1
    assert list(groups) == ["a", "b"]                       # a judge weight of 0 stays 0 (not read as 1)
    with pytest.raises(Rc1Error, match="row 2"):
        design_matrix([ok, {"scores": {"correctness": 1.0}, "success": False}])


def test_cv_folds_and_bootstrap_draws_keep_an_items_candidates_together():
    X, y = _synthetic(n=120)
    items = [f"item{i // 6}" for i in range(120)]                # six candidates per item, as the shadow run makes
    rep = calibrate(X, y, np.full(7, 1 / 7), cv=5, boot=20, l2=0.1, seed=42, groups=items)
    assert rep["n_items"] == 20 and rep["cv_groups"] == "item"
    assert [f["n_test"] % 6 for f in rep["folds"]] == [0] * 5   # whole items per fold
    assert sum(f["n_test"] for f in rep["folds"]) == 120
    with pytest.raises(Rc1Error, match="at least 5 items"):
        calibrate(X, y, np.full(7, 1 / 7), cv=5, groups=[f"item{i % 4}" for i in range(120)])
