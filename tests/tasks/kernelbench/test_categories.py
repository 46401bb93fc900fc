"""The category of a KernelBench problem: level-1 operators by the words of their names, level 2 Fusion, level 3
Architecture."""

from __future__ import annotations

import pytest

from kbx.tasks.kernelbench.categories import LEVEL1_FALLBACK, category_of
from kbx.tasks.spec import ARCHITECTURE, CATEGORIES


@pytest.mark.parametrize(("level", "stem", "category"), [
    (1, "19_ReLU", "Activation"), (1, "20_LeakyReLU", "Activation"), (1, "23_Softmax", "Normalization"),
    (1, "35_GroupNorm_", "Normalization"), (1, "42_Max_Pooling_2D", "Pooling"), (1, "47_Sum_reduction_over_a_dim",
    "Reduce"), (1, "51_Argmax_over_a_dimension", "Reduce"), (1, "63_conv_standard_2D", "Convolution"),
    (1, "1_Square_matrix_multiplication_", "MatrixMultiply"), (1, "5_Matrix_scalar_multiplication", "Math"),
    (1, "89_cumsum", "Math"), (1, "94_MSELoss", "Loss"), (1, "97_ScaledDotProductAttention", "Fusion"),
    (1, "7_Something_new", "Math"), (2, "12_Gemm_Multiply_LeakyReLU", "Fusion"), (3, "9_ResNet18", ARCHITECTURE),
])
def test_a_problem_gets_the_category_its_name_says(level, stem, category):
    assert category_of(level, stem) == category


def test_every_category_given_is_one_of_the_fifteen_or_architecture():
    assert LEVEL1_FALLBACK in CATEGORIES
    for stem in ("19_ReLU", "94_MSELoss", "97_ScaledDotProductAttention", "anything"):
        assert category_of(1, stem) in CATEGORIES
    assert category_of(3, "1_MLP") == ARCHITECTURE and ARCHITECTURE not in CATEGORIES
