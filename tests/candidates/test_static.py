import pytest

from kbx.candidates.policy import Policy
from kbx.candidates.static import check_static
from kbx.status import Status
from kbx.tasks.meta import parse_signature
from kbx.tasks.spec import ModuleInterface

SIG = parse_signature("(input, approximate='none')")
KERNEL = """
import triton
import triton.language as tl

@triton.jit
def _k(x_ptr, BLOCK: tl.constexpr):
    pass
"""


def verdict(code):
    return check_static(code, "gelu", SIG)


def test_good_candidate_passes():
    assert verdict(KERNEL + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n").status is None


def test_no_code():
    assert verdict(None).status is Status.REJECTED_STATIC
    assert check_static("  ", "gelu", SIG, problem="the reply contains no code block").message.endswith("block")


def test_syntax_error_is_compile_error():
    result = verdict("def gelu(input, approximate='none'):\n    return (\n")
    assert result.status is Status.COMPILE_ERROR and "line" in result.message


@pytest.mark.parametrize(
    "hostile",
    ["X = " + "+".join(["1"] * 70_000), "X = " + "lambda: " * 3_000 + "0"],
    ids=["long_sum", "nested_lambdas"],
)
def test_source_the_parser_gives_up_on_is_rejected_not_raised(hostile):
    result = verdict(KERNEL + "\n" + hostile + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n")
    assert result.status is Status.REJECTED_STATIC and result.check == "analysable", result.message


def test_missing_entry_point():
    result = verdict(KERNEL + "\ndef other(input):\n    _k[(1,)](input, BLOCK=4)\n")
    assert result.status is Status.REJECTED_STATIC and result.check == "entry_point"


@pytest.mark.parametrize("params", ["input", "input, approximate='tanh'", "x, approximate='none'", "*args"])
def test_wrong_parameters(params):
    result = verdict(KERNEL + f"\ndef gelu({params}):\n    _k[(1,)](input, BLOCK=4)\n")
    assert result.status is Status.REJECTED_STATIC and result.check == "entry_point"


def test_no_kernel():
    result = verdict("import torch\n\ndef gelu(input, approximate='none'):\n    return torch.special.erf(input)\n")
    assert result.status is Status.REJECTED_STATIC and result.check == "triton_kernel"


def test_kernel_never_launched():
    result = verdict(KERNEL + "\ndef gelu(input, approximate='none'):\n    return input\n")
    assert result.status is Status.REJECTED_STATIC and "never launched" in result.message


@pytest.mark.parametrize(
    "header",
    ["import triton as tr\nimport triton.language as tl\n@tr.jit", "from triton import jit\n@jit",
     "import triton\n@triton.jit(do_not_specialize=['n'])"],
)
def test_jit_aliases_are_recognised(header):
    code = f"{header}\ndef _k(x):\n    pass\n\ndef gelu(input, approximate='none'):\n    _k[(1,)](input)\n"
    assert verdict(code).status is None


def test_kernel_reading_a_plain_global_is_a_compile_error():
    code = KERNEL.replace("@triton.jit", "SCALE = 0.5\n\n@triton.jit").replace("    pass", "    x = SCALE")
    result = verdict(code + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n")
    assert result.status is Status.COMPILE_ERROR and "SCALE" in result.message


@pytest.mark.parametrize(
    "binding", ["SCALE = tl.constexpr(0.5)", "SCALE: tl.constexpr = tl.constexpr(0.5)", "SCALE = torch.float16"]
)
def test_constexpr_and_non_literal_globals_are_allowed(binding):
    code = KERNEL.replace("@triton.jit", f"import torch\n{binding}\n\n@triton.jit").replace("    pass", "    x = SCALE")
    assert verdict(code + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n").status is None


def test_host_code_may_read_plain_globals():
    code = "BLOCK = 1024\n" + KERNEL + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=BLOCK)\n"
    assert verdict(code).status is None


def test_parameter_defaults_may_read_plain_globals():
    code = KERNEL.replace("@triton.jit", "WIDTH = 64\n\n@triton.jit").replace(
        "BLOCK: tl.constexpr)", "BLOCK: tl.constexpr = WIDTH)"
    )
    assert verdict(code + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input)\n").status is None


def test_the_tasks_forbidden_operations_reject_a_torch_fallback():
    code = KERNEL + "\nimport torch\n\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n"
    code += "    return torch.nn.functional.gelu(input)\n"
    assert verdict(code).status is None
    result = check_static(code, "gelu", SIG, forbidden=("gelu",))
    assert result.status is Status.REJECTED_STATIC and result.check == "anticheat.torch_fallback"
    assert "torch.nn.functional.gelu" in result.message


GOOD = KERNEL + "\ndef gelu(input, approximate='none'):\n    _k[(1,)](input, BLOCK=4)\n"
SELF_TEST = """
    import torch
    x = torch.randn(100)
    assert torch.allclose(gelu(x), torch.nn.functional.gelu(x))
"""


@pytest.mark.parametrize("test", ['__name__ == "__main__"', "'__main__' == __name__"])
def test_a_self_test_under_a_main_guard_is_not_judged(test):
    """It never runs in the worker (the candidate is imported as another module), so its torch calls are no
    fallback; the kernel beside it is judged as usual."""
    forbidden = ("gelu",)
    assert check_static(GOOD + f"\nif {test}:{SELF_TEST}", "gelu", SIG, forbidden=forbidden).status is None


def test_what_runs_at_import_beside_a_main_guard_is_judged():
    forbidden = ("gelu",)
    code = GOOD + f'\nif __name__ == "__main__":\n    pass\nelse:{SELF_TEST}'
    assert check_static(code, "gelu", SIG, forbidden=forbidden).status is Status.REJECTED_STATIC
    code = GOOD + f'\nif __name__ == "candidate" or True:{SELF_TEST}'
    assert check_static(code, "gelu", SIG, forbidden=forbidden).status is Status.REJECTED_STATIC


EQUALS_ANYTHING = (
    "class _Eq:\n    def __eq__(self, other):\n        return True\n\n\ndef _anything(f):\n    return _Eq()\n"
)


@pytest.mark.parametrize(
    "binding",
    [
        EQUALS_ANYTHING + "\n@_anything\ndef __name__():\n    pass\n",
        "match '__main__':\n    case __name__:\n        pass\n",
        "match ['__main__']:\n    case [*__name__]:\n        pass\n",
        "match {}:\n    case {**__name__}:\n        pass\n",
        "try:\n    raise ValueError\nexcept ValueError as __name__:\n    pass\n",
        "class __name__:\n    pass\n",
        "from torch import __name__\n",
    ],
    ids=["decorated_def", "match_capture", "match_star", "match_rest", "except_as", "class", "from_import"],
)
def test_rebinding_name_to_run_the_main_block_is_rejected(binding):
    """A block under `if __name__ == "__main__":` is not judged, so nothing may make that test true at import."""
    forbidden = ("gelu",)
    code = GOOD + "\n" + binding + f'\nif __name__ == "__main__":{SELF_TEST}'
    result = check_static(code, "gelu", SIG, forbidden=forbidden)
    assert result.status is Status.REJECTED_STATIC and result.check == "anticheat.introspection", result.message
    assert "__name__" in result.message


def test_dunder_methods_of_a_class_are_not_bindings():
    code = GOOD + "\nclass Tile:\n    def __init__(self, n):\n        self.n = n\n\n    def __len__(self):\n" \
                  "        return self.n\n"
    assert check_static(code, "gelu", SIG).status is None


MODULE = ModuleInterface(init=("in_features", "out_features"), forward=parse_signature("(x, mask=None)"))


def module_verdict(code):
    return check_static(code, ModuleInterface.CLASS, parse_signature("(x, mask=None)"), module=MODULE)


MODEL_NEW = KERNEL + """
class ModelNew:
    def __init__(self, a, b):
        self.a = a

    def forward(self, x):
        _k[(1,)](x, BLOCK=4)
"""


def test_a_kernelbench_candidate_defines_the_class_modelnew():
    assert module_verdict(MODEL_NEW).status is None
    assert module_verdict(MODEL_NEW.replace("forward(self, x)", "forward(self, *args)")).status is None


def test_a_kernelbench_candidate_without_modelnew_is_rejected():
    result = module_verdict(KERNEL + "\ndef modelnew(x):\n    _k[(1,)](x, BLOCK=4)\n")
    assert result.status is Status.REJECTED_STATIC and "class `ModelNew`" in result.message


@pytest.mark.parametrize(("old", "new", "said"), [
    ("__init__(self, a, b)", "__init__(self, a)", "`ModelNew.__init__` takes 1 argument(s) after self; Model's"),
    ("forward(self, x)", "forward(self, x, y, z)", "`ModelNew.forward` takes 3 argument(s)"),
])
def test_a_modelnew_taking_other_argument_counts_is_rejected(old, new, said):
    result = module_verdict(MODEL_NEW.replace(old, new))
    assert result.status is Status.REJECTED_STATIC and result.check == "entry_point" and said in result.message


OWN_CODE = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, a, b):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(a, b)

    def forward(self, x, mask=None):
        return torch.relu(self.linear(x))
"""


def test_the_tasks_own_code_needs_no_kernel_only_under_the_reference_code_policy():
    assert module_verdict(OWN_CODE).check == "triton_kernel"
    relaxed = check_static(OWN_CODE, ModuleInterface.CLASS, parse_signature("(x, mask=None)"), module=MODULE,
                           forbidden=("relu", "linear"), policy=Policy.REFERENCE_CODE)
    assert relaxed.status is None


@pytest.mark.parametrize(("added", "rule"), [
    ("import numpy\n", "anticheat.import_not_allowed"),
    ("import threading\n", "anticheat.forbidden_import"),
    ("y = torch.compile(torch.relu)\n", "anticheat.forbidden_call"),
])
def test_the_safety_rules_hold_under_the_reference_code_policy(added, rule):
    result = check_static(OWN_CODE + added, ModuleInterface.CLASS, parse_signature("(x, mask=None)"), module=MODULE,
                          policy=Policy.REFERENCE_CODE)
    assert result.status is Status.REJECTED_STATIC and result.check == rule, result.message


def test_the_entry_point_is_still_checked_under_the_reference_code_policy():
    result = check_static(OWN_CODE.replace("ModelNew", "Model"), ModuleInterface.CLASS,
                          parse_signature("(x, mask=None)"), module=MODULE, policy=Policy.REFERENCE_CODE)
    assert result.status is Status.REJECTED_STATIC and result.check == "entry_point"
