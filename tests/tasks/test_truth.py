import torch
import torch.nn.functional as F

from kbx.tasks.truth import float64_reference, task_dtype


def test_float32_steps_of_a_reference_are_widened_to_float64():
    def reference(input, weight):
        # computes in fp32 on purpose, as many references do for accuracy at a narrow dtype
        out = F.log_softmax(input.float() @ weight.to(torch.float32).T, dim=-1, dtype=torch.float32)
        return out.to(input.dtype), out.sum(dtype=torch.float32), torch.zeros(2, dtype=torch.float16)

    x, w = torch.randn(4, 8, dtype=torch.bfloat16), torch.randn(3, 8, dtype=torch.bfloat16)
    outputs = float64_reference(reference, {"input": x, "weight": w}, torch.bfloat16)
    assert [o.dtype for o in outputs] == [torch.float64] * 3
    exact = F.log_softmax(x.double() @ w.double().T, dim=-1)
    assert torch.equal(outputs[0], exact)


def test_integer_inputs_stay_and_the_case_dtype_is_known_inside_the_run():
    seen = []

    def reference(input, index):
        seen.append((task_dtype(input), index.dtype))
        return input[index]

    x, index = torch.randn(5, dtype=torch.float16), torch.tensor([4, 0])
    (out,) = [float64_reference(reference, {"input": x, "index": index}, torch.float16)]
    assert out.dtype == torch.float64 and seen == [(torch.float16, torch.int64)]
    assert task_dtype(x) == torch.float16 and task_dtype(x.double()) == torch.float64  # outside a run: its own
