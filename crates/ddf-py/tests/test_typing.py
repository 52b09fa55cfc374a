"""The stubs match the runtime (`mypy.stubtest`), the README's examples
pass `mypy --strict` and run, and the runtime docstrings document the
arguments (`help(ddf.Dedup)`)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

import ddf

CRATE = pathlib.Path(__file__).resolve().parents[1]
README = CRATE / "README.md"


def examples() -> list[str]:
    """The README's ```python blocks (```pycon blocks are transcripts)."""
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def mypy(args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True, text=True, cwd=cwd,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_stubtest_is_clean(tmp_path: pathlib.Path) -> None:
    # No allowlist: every difference is an error.
    p = mypy(["mypy.stubtest", "ddf"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def test_readme_examples_pass_mypy_strict(tmp_path: pathlib.Path) -> None:
    blocks = examples()
    assert len(blocks) >= 4
    files = []
    for i, code in enumerate(blocks):
        f = tmp_path / f"readme_example_{i}.py"
        f.write_text(code)
        files.append(str(f))
    p = mypy(["mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), *files], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("i", range(len(examples())))
def test_readme_examples_run(i: int, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(examples()[i], f"README example {i}", "exec"), {"__name__": "readme"})


def test_help_documents_the_arguments() -> None:
    doc = ddf.Dedup.__doc__ or ""
    for name in ("window", "within", "rate", "capacity", "fpr", "exact", "max_memory",
                 "misses_ok", "family", "slack", "distinct", "seed", "key"):
        assert re.search(rf"^\s+{name}: ", doc, flags=re.M), name
    for method in (ddf.Dedup.observe, ddf.Dedup.observe_many, ddf.Dedup.contains_many,
                   ddf.Dedup.from_bytes, ddf.load, ddf.plan):
        assert "Args:" in (method.__doc__ or ""), method
    assert ddf.Key is not None and ddf.Keys is not None and ddf.Times is not None
    assert set(ddf.__all__) <= set(dir(ddf))
