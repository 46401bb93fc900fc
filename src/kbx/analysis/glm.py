"""How much of correctness is explained by the category of a task, by the method, and by both (KernelBenchX).

One Bernoulli observation per (method, task): was the method's kernel correct. A binomial GLM with a logit link is
fitted on dummy-coded factors (statsmodels), and its explained deviance is 1 - deviance / null deviance. With factor
predictors only, a cell where every kernel passed (or failed) pushes its coefficient towards infinity; the fit then
stops at statsmodels' iteration cap and its deviance is the limit within a tiny error, which is what we report, with
a note saying it happened.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kbx.analysis.data import TaskOutcome
from kbx.errors import KbxError

MODELS = (("category",), ("method",), ("category", "method"))


class AnalysisUnavailable(KbxError):
    """An optional dependency of an analysis is missing; the message says what to install."""


@dataclass(frozen=True)
class GlmFit:
    """One fitted model."""

    factors: tuple[str, ...]
    observations: int
    parameters: int
    deviance: float
    null_deviance: float
    aic: float
    p_value: float | None
    """Likelihood-ratio test against the intercept-only model (chi-square of the deviance drop); None without
    parameters beyond the intercept."""
    separated: bool
    """Some cell was all correct or all wrong: coefficients diverge, the deviance is the limit."""

    @property
    def name(self) -> str:
        return " + ".join(self.factors)

    @property
    def explained_deviance(self) -> float | None:
        """1 - deviance / null deviance; None when every observation agrees (null deviance 0)."""
        # all-agreeing outcomes leave a null deviance of rounding noise (1e-15), not exactly 0
        return None if self.null_deviance < 1e-9 else 1.0 - self.deviance / self.null_deviance


def observations(outcomes: Mapping[str, Sequence[TaskOutcome]]) -> list[dict[str, str | int]]:
    """One observation per method and task: {"method", "category", "task", "correct"}."""
    return [{"method": label, "category": o.category, "task": o.task, "correct": int(o.exe_ok)}
            for label, group in outcomes.items() for o in group]


def fit_models(outcomes: Mapping[str, Sequence[TaskOutcome]]) -> list[GlmFit]:
    """Fit correctness ~ category, ~ method and ~ category + method.

    Raises:
        AnalysisUnavailable: statsmodels is not installed.
    """
    try:
        import statsmodels.api as sm
        from scipy.stats import chi2  # statsmodels' own dependency
    except ImportError as exc:
        raise AnalysisUnavailable(
            "the GLM of correctness needs statsmodels: pip install 'kbx[analysis]'"
        ) from exc
    data = observations(outcomes)
    if not data:
        return []
    y = np.array([d["correct"] for d in data], dtype=float)
    fits = []
    for factors in MODELS:
        x = design(data, factors)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = sm.GLM(y, x, family=sm.families.Binomial()).fit()
        separated = any("separation" in str(w.message).lower() for w in caught) or _separated(data, factors)
        drop, df = float(result.null_deviance - result.deviance), x.shape[1] - 1
        p_value = float(chi2.sf(max(drop, 0.0), df)) if df > 0 else None
        fits.append(GlmFit(factors, len(y), x.shape[1], float(result.deviance), float(result.null_deviance),
                           float(result.aic), p_value, separated))
    return fits


def design(data: Sequence[Mapping[str, str | int]], factors: Sequence[str]) -> np.ndarray:
    """Intercept plus treatment-coded dummies (first level, sorted, as the reference) for each factor."""
    columns = [np.ones(len(data))]
    for factor in factors:
        levels = sorted({str(d[factor]) for d in data})
        for level in levels[1:]:
            columns.append(np.array([1.0 if d[factor] == level else 0.0 for d in data]))
    return np.column_stack(columns)


def _separated(data: Sequence[Mapping[str, str | int]], factors: Sequence[str]) -> bool:
    """A level of some factor where every observation agrees: enough for its coefficient to diverge."""
    for factor in factors:
        seen: dict[str, set[int]] = {}
        for d in data:
            seen.setdefault(str(d[factor]), set()).add(int(d["correct"]))
        if any(len(values) == 1 for values in seen.values()):
            return True
    return False
