from kbx.candidates.extract import extract_code

ENTRY = "relu"


def test_picks_the_block_that_defines_the_entry_point():
    reply = "Here:\n```python\nimport torch\n```\nand\n```py\ndef relu(input):\n    return input\n```\nDone."
    assert extract_code(reply, ENTRY).code == "def relu(input):\n    return input\n"


def test_last_defining_block_wins():
    reply = "```python\ndef relu(input):\n    return 1\n```\nfixed:\n```python\ndef relu(input):\n    return 2\n```"
    assert "return 2" in extract_code(reply, ENTRY).code


def test_tilde_fence_and_bare_fence():
    assert extract_code("~~~\ndef relu(input):\n    pass\n~~~", ENTRY).code.startswith("def relu")
    assert extract_code("```\ndef relu(input):\n    pass\n```", ENTRY).code.startswith("def relu")


def test_unterminated_block_is_taken_to_the_end():
    code = extract_code("sure\n```python\ndef relu(input):\n    return input", ENTRY).code
    assert code.rstrip().endswith("return input")


def test_prose_only_has_no_code():
    result = extract_code("I would write a Triton kernel that clamps at zero.", ENTRY)
    assert result.code is None and "no code block" in result.problem


def test_bare_python_reply_is_accepted():
    assert extract_code("import triton\n\ndef relu(input):\n    return input\n", ENTRY).code is not None


def test_shell_blocks_are_not_python():
    result = extract_code("```bash\npip install triton\n```", ENTRY)
    assert result.code is None and "none in Python" in result.problem


def test_without_entry_point_the_last_python_block_is_returned():
    reply = "```python\nx = 1\n```\n```python\ny = 2\n```"
    assert extract_code(reply, ENTRY).code == "y = 2\n"


def test_empty_blocks_do_not_count_as_code():
    result = extract_code("Here it is:\n```python\n```\nOops.", ENTRY)
    assert result.code is None and "no code block" in result.problem


def test_a_kernelbench_reply_is_extracted_by_its_modelnew_class():
    reply = ("Plan first:\n```python\nimport torch\n```\nThe module:\n```python\nclass ModelNew(nn.Module):\n"
             "    pass\n```\nThat is all.")
    assert extract_code(reply, "ModelNew").code == "class ModelNew(nn.Module):\n    pass\n"
