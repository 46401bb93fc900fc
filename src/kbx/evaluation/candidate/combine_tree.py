"""`tl.reduce` and `tl.associative_scan` with a kernel's own combine function, in a tree rather than element by element.

The interpreter runs a combine function other than its few built-in ones (sum, max, min, argmax, ...) once per
element, in Python, on 0-d tensors: a Welford merge over 4096-element rows cost an honest add_bias_residual_layer_norm
kernel 195 s on the CPU (2026-11-28), where the suite's other candidates take 1 to 20. A GPU does not combine in that
order either: each thread folds its own elements, then threads combine in a butterfly tree. So the shim combines
neighbours, on whole blocks at a time: a reduction pairs elements (0, 1), (2, 3), ... and halves the axis until one
is left (an odd last element passes to the next level as it is); a scan is Hillis–Steele's, each element combined
with the one `offset` before it for offset = 1, 2, 4, .... The left operand is always the earlier element, so a
combine function that is associative but not commutative (an affine map's composition, first-index tie-breaking)
gets the interpreter's result; one that is commutative too gets it up to the rounding of another order, as on a GPU.
Every level's results are stored in the inputs' dtypes, as the interpreter stores each step's.

Where the combine function cannot run on blocks (Python control flow on its scalar operands, which the interpreter
would silently take as true for a whole block; an axis that does not halve into power-of-two blocks), the
interpreter's own element-by-element code runs instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def install_combine_tree() -> None:
    """Replace the interpreter's element-by-element reduce and scan; idempotent."""
    from triton.runtime.interpreter import ReduceOps, ScanOps

    if getattr(ReduceOps, "_kbx_tree", False):
        return
    one_by_one_reduce, one_by_one_scan = ReduceOps.generic_reduce, ScanOps.generic_scan

    def generic_reduce(self: Any, input: tuple) -> list:
        try:
            return _tree_reduce(self, input)
        except Exception:  # noqa: BLE001 - a combine function only scalars can run: the interpreter's own way
            return one_by_one_reduce(self, input)

    def generic_scan(self: Any, input: tuple) -> list:
        try:
            return _tree_scan(self, input)
        except Exception:  # noqa: BLE001 - as above
            return one_by_one_scan(self, input)

    ReduceOps.generic_reduce = generic_reduce
    ScanOps.generic_scan = generic_scan
    ReduceOps._kbx_tree = True


class ScalarsOnly(Exception):
    """The combine function asked for the truth of a block (Python control flow on its operands)."""


def _combined(op: Any, left: list[np.ndarray], right: list[np.ndarray], dtypes: list[Any]) -> list[np.ndarray]:
    """The combine function of `op` on the blocks `left` and `right` (one array per operand), each result stored in
    its operand's dtype.

    Raises:
        ScalarsOnly: the function branches on an operand; the interpreter would take any block's truth as True.
    """
    import triton.language as tl

    truth = tl.core.tensor.__bool__  # the interpreter's, patched for the launch

    def scalars_only(tensor: Any) -> bool:
        if tensor.handle.data.size != 1:
            raise ScalarsOnly
        return truth(tensor)

    tl.core.tensor.__bool__ = scalars_only
    try:
        with np.errstate(all="ignore"):  # a scan's wrapped-around lanes are computed and dropped
            result = op.combine_fn.fn(*(op.to_tensor(a, d) for a, d in zip(left, dtypes)),
                                      *(op.to_tensor(a, d) for a, d in zip(right, dtypes)))
    finally:
        tl.core.tensor.__bool__ = truth
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(left):
        raise ValueError("the combine function returns another number of values than it takes")
    shape = left[0].shape
    return [np.broadcast_to(np.asarray(getattr(getattr(r, "handle", None), "data", r)), shape).astype(a.dtype)
            for r, a in zip(results, left)]


def _tree_reduce(op: Any, input: tuple) -> list:
    """`ReduceOps.generic_reduce`'s result, neighbours combined level by level along the axis."""
    original_axis = op.axis
    input, axis = op.unravel(input, op.axis)
    dtypes = [t.dtype for t in input]
    input_shape = input[0].handle.data.shape
    if input_shape[axis] == 0:
        raise ValueError("nothing to reduce")  # the interpreter's own code says what it says
    level = [np.moveaxis(t.handle.data, axis, -1) for t in input]
    while level[0].shape[-1] > 1:
        even = level[0].shape[-1] // 2 * 2
        pairs = _combined(op, [a[..., 0:even:2] for a in level], [a[..., 1:even:2] for a in level], dtypes)
        level = [np.concatenate([p, a[..., even:]], axis=-1) for p, a in zip(pairs, level)]
    ret = []
    for data, dtype in zip((a[..., 0] for a in level), dtypes):
        if op.keep_dims:  # packed as the interpreter packs its own result
            if original_axis is not None:
                data = np.expand_dims(data, axis)
            else:
                for _ in range(len(input_shape)):
                    data = np.expand_dims(data, 0)
        elif original_axis is None:
            data = data.item()
        ret.append(op.to_tensor(data, dtype))
    return ret


def _tree_scan(op: Any, input: tuple) -> list:
    """`ScanOps.generic_scan`'s result (inclusive, along the axis), by doubling offsets."""
    dtypes = [t.dtype for t in input]
    level = [np.moveaxis(t.handle.data, op.axis, -1) for t in input]
    count = level[0].shape[-1]
    offset = 1
    while offset < count:  # blocks keep their power-of-two shape: the first `offset` lanes combine and are dropped
        later = _combined(op, [np.roll(a, offset, axis=-1) for a in level], level, dtypes)
        level = [np.concatenate([a[..., :offset], b[..., offset:]], axis=-1) for a, b in zip(level, later)]
        offset *= 2
    return [op.to_tensor(np.ascontiguousarray(np.moveaxis(a, -1, op.axis)), d) for a, d in zip(level, dtypes)]
