"""The README's Python examples run, in order, as one script (so the tour stays true)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_readme_examples_run(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    blocks = list(_BLOCK.finditer(text))
    assert blocks, "README.md has no python examples"
    monkeypatch.chdir(tmp_path)  # examples may write files (drawings)
    namespace: dict = {"__name__": "readme"}
    for m in blocks:
        first_line = text.count("\n", 0, m.start(1))
        code = "\n" * first_line + m.group(1)  # so tracebacks and node locations cite README.md's lines
        exec(compile(code, str(ROOT / "README.md"), "exec"), namespace)
    out = capsys.readouterr().out
    assert re.search(r"^graph graph_\d+ \{", out, re.M), out
    assert "placeholder model/x: batch 4 -> 7" in out
    assert re.search(r"README\.md:\d+: matmul wants", out), out
    assert "feed for model/x has shape (4, 5)" in out
