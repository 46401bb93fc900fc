"""A problem's own code renamed into a `ModelNew` candidate: only the names that refer to the class `Model`."""

from __future__ import annotations

import ast

from kbx.tasks.kernelbench.own_code import model_as_modelnew
from tests.tasks.kernelbench.problems import FIXTURES

OLD_STYLE = '''import torch.nn as nn
# Model: a docstring and a comment keep the word.
class Model(nn.Module):
    """Model's docstring, "é" before it on no line."""

    def __init__(self, n):
        note = "é"; super(Model, self).__init__()
        self.layer = nn.Model if hasattr(nn, "Model") else nn.Identity()

    def forward(self, x):
        return make(Model=1, kind=Model)(x)


def build():
    return Model(3)
'''


def test_the_class_and_every_name_for_it_are_renamed():
    renamed = model_as_modelnew(OLD_STYLE)
    assert "class ModelNew(nn.Module):" in renamed
    assert 'note = "é"; super(ModelNew, self).__init__()' in renamed
    assert "make(Model=1, kind=ModelNew)" in renamed and "return ModelNew(3)" in renamed


def test_strings_comments_attributes_and_keywords_stay():
    renamed = model_as_modelnew(OLD_STYLE)
    assert "# Model: a docstring" in renamed and '"""Model\'s docstring' in renamed
    assert 'nn.Model if hasattr(nn, "Model")' in renamed
    names = {n.id for n in ast.walk(ast.parse(renamed)) if isinstance(n, ast.Name)}
    assert "Model" not in names


def test_a_fixture_problem_keeps_everything_but_the_name():
    source = (FIXTURES / "level2" / "1_Linear_ReLU.py").read_text()
    assert model_as_modelnew(source) == source.replace("class Model(", "class ModelNew(")
