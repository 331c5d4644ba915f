"""The Python example of the provider-market README section (docs/market.md) runs."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "market.md"


def test_market_doc_python_example_runs():
    if not DOC.exists():
        pytest.skip("docs/market.md merged elsewhere")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})  # noqa: S102 - running the documented example is the test
