"""Scripted model replies for relu: right, wrong, broken, and the malformed shapes a model's answer takes."""

from __future__ import annotations

KERNEL = '''import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.where(x < 0, 0.0, x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)
'''

ENTRY = '''

def relu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
'''

CORRECT_CODE = KERNEL + ENTRY.replace("BLOCK)", "1024)").replace("BLOCK=BLOCK", "BLOCK=1024")
FASTER_CODE = CORRECT_CODE.replace("1024", "4096")
WRONG_CODE = CORRECT_CODE.replace("tl.where(x < 0, 0.0, x)", "tl.where(x < 0, 0.0, x + 1.0)")
BROKEN_CODE = CORRECT_CODE.replace("def relu(input):", "def relu(input)")


def fenced(code: str, prose: str = "Here is the kernel.") -> str:
    return f"{prose}\n\n```python\n{code}```\n"


CORRECT = fenced(CORRECT_CODE)
FASTER = fenced(FASTER_CODE, "A larger block moves more bytes per program.")
WRONG = fenced(WRONG_CODE)
BROKEN = fenced(BROKEN_CODE)
PROSE_ONLY = "I would launch one program per 1024 elements and select max(x, 0) in registers."
WRONG_NAME = fenced(CORRECT_CODE.replace("def relu(input):", "def relu_forward(input):"))
TWO_BLOCKS = ("First the kernel:\n\n```python\n" + KERNEL + "```\n\nThen the wrapper:\n\n```python\n"
              + ENTRY.replace("BLOCK)", "1024)").replace("BLOCK=BLOCK", "BLOCK=1024").lstrip() + "```\n")
