import math
import sys

import numpy as np
import pytest

from kbx.analysis.data import TaskOutcome
from kbx.analysis.glm import AnalysisUnavailable, design, fit_models, observations

pytest.importorskip("statsmodels")

# A 2x2 design: categories X, Y (4 tasks each) x methods M1, M2; correct counts per cell out of 4.
CELLS = {("X", "M1"): 3, ("Y", "M1"): 1, ("X", "M2"): 3, ("Y", "M2"): 2}  # X 6/8, Y 3/8; M1 4/8, M2 5/8


def _outcomes():
    out = {}
    for (category, method), correct in CELLS.items():
        out.setdefault(method, []).extend(
            TaskOutcome(f"{category}{i}", category, "PASSED" if i < correct else "MISMATCH", True, i < correct,
                        None, None, None, 1, int(i < correct)) for i in range(4))
    return out


def _bernoulli_deviance(y, p):
    """-2 log-likelihood of 0/1 outcomes (the saturated Bernoulli model has likelihood 1)."""
    p = np.clip(p, 1e-300, 1 - 1e-16)
    return float(-2 * np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _cell_deviance(groups):
    """Deviance of a factor model by hand: the fitted probability of a cell is its share correct."""
    total = 0.0
    for n, c in groups:
        p = c / n
        total -= 2 * ((c * math.log(p) if c else 0.0) + ((n - c) * math.log(1 - p) if n - c else 0.0))
    return total


def _newton_logistic(x, y, steps=50):
    """An independent logistic regression fit (Newton's method) for the additive model."""
    beta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ beta))
        beta += np.linalg.solve(x.T @ (x * (p * (1 - p))[:, None]), x.T @ (y - p))
    return 1 / (1 + np.exp(-x @ beta))


def test_explained_deviance_of_each_model_matches_independent_formulas():
    fits = {f.name: f for f in fit_models(_outcomes())}
    null = _cell_deviance([(16, 9)])
    by_category = _cell_deviance([(8, 6), (8, 3)])
    by_method = _cell_deviance([(8, 4), (8, 5)])
    assert fits["category"].null_deviance == pytest.approx(null)
    assert fits["category"].deviance == pytest.approx(by_category)
    assert fits["method"].deviance == pytest.approx(by_method)
    assert fits["category"].explained_deviance == pytest.approx(1 - by_category / null)

    data = observations(_outcomes())
    y = np.array([d["correct"] for d in data], dtype=float)
    both = _bernoulli_deviance(y, _newton_logistic(design(data, ("category", "method")), y))
    assert fits["category + method"].deviance == pytest.approx(both, rel=1e-6)
    assert fits["category + method"].explained_deviance == pytest.approx(1 - both / null, rel=1e-6)
    assert not any(f.separated for f in fits.values())
    # one extra parameter: the LR statistic is chi-square with 1 df, whose survival function is erfc(sqrt(x / 2))
    assert fits["category"].p_value == pytest.approx(math.erfc(math.sqrt((null - by_category) / 2)))


def test_a_category_every_method_solves_is_flagged_as_separation_and_still_fits():
    outcomes = _outcomes()
    outcomes["M1"] = [TaskOutcome(o.task, o.category, "PASSED", True, True, None, None, None, 1, 1)
                      if o.category == "X" else o for o in outcomes["M1"]]
    outcomes["M2"] = [TaskOutcome(o.task, o.category, "PASSED", True, True, None, None, None, 1, 1)
                      if o.category == "X" else o for o in outcomes["M2"]]
    fits = {f.name: f for f in fit_models(outcomes)}
    assert fits["category"].separated
    y_groups = [(8, 8), (8, 3)]  # X now all correct, Y unchanged
    assert fits["category"].deviance == pytest.approx(_cell_deviance(y_groups), abs=1e-4)


def test_without_statsmodels_the_glm_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "statsmodels", None)
    monkeypatch.setitem(sys.modules, "statsmodels.api", None)
    with pytest.raises(AnalysisUnavailable, match=r"pip install 'kbx\[analysis\]'"):
        fit_models(_outcomes())


def test_the_report_fits_the_glm_on_runs_written_to_a_store(tmp_path):
    from kbx.analysis.report import build_report
    from kbx.store.db import Store

    with Store(tmp_path / "glm.db") as store:
        for method in ("M1", "M2"):
            store.begin_run(method, method="oneshot", model=method, device="cpu", git_sha=None, harness="x",
                            config={}, environment={}, secret_seed=0)
            for category in ("X", "Y"):
                for i in range(4):
                    status = "PASSED" if i < CELLS[(category, method)] else "MISMATCH"
                    store.add_evaluation(method, {
                        "task": f"{category}{i}", "category": category, "candidate": f"{method}-{category}{i}.py",
                        "candidate_hash": f"{method}{category}{i}", "status": status, "call_ok": True,
                        "exe_ok": status == "PASSED"}, "code", f"{method}{category}{i}")
        fits = {f.name: f for f in build_report(store, ["M1", "M2"], resamples=10).glm}
    null = _cell_deviance([(16, 9)])
    assert fits["category"].explained_deviance == pytest.approx(1 - _cell_deviance([(8, 6), (8, 3)]) / null)
    assert fits["method"].explained_deviance == pytest.approx(1 - _cell_deviance([(8, 4), (8, 5)]) / null)


def test_when_every_kernel_is_correct_nothing_is_left_to_explain():
    everything = {m: [TaskOutcome(o.task, o.category, "PASSED", True, True, None, None, None, 1, 1) for o in group]
                  for m, group in _outcomes().items()}
    assert all(f.explained_deviance is None for f in fit_models(everything))


def test_a_report_on_a_handful_of_tasks_prints_no_glm(tmp_path):
    """One method, three tasks: every model separates; a table of them would only look like a finding."""
    from kbx.analysis.report import build_report
    from kbx.report.tables import glm_text
    from kbx.store.db import Store

    with Store(tmp_path / "small.db") as store:
        store.begin_run("M1", method="oneshot", model="M1", device="cpu", git_sha=None, harness="x", config={},
                        environment={}, secret_seed=0)
        for i, status in enumerate(("PASSED", "MISMATCH", "PASSED")):
            store.add_evaluation("M1", {
                "task": f"t{i}", "category": "XY"[i % 2], "candidate": f"c{i}.py", "candidate_hash": f"h{i}",
                "status": status, "call_ok": True, "exe_ok": status == "PASSED"}, "code", f"k{i}")
        report = build_report(store, ["M1"], resamples=10)
    assert report.glm == () and glm_text(report).startswith("no GLM: 3 (method, task) observation(s)")
