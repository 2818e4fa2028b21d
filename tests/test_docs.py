"""The documentation runs, so it cannot drift from the code.

* Every line starting with ``freege `` inside a ```` ```bash ```` block of ``docs/guide.md``
  and ``README.md`` is run in-process through :func:`freege.cli.main` (in a temporary
  folder, so ``--plot`` files land there) and must exit 0. A ```` ```text ```` block right
  after a block of exactly one command is its expected output, compared exactly.
* Convention: a command whose trailing comment contains ``expensive`` is shown, not run;
  it must still parse (its options exist). The README's expensive commands are listed in
  :data:`README_EXPENSIVE` until they carry the marker.
* Every ```` ```python ```` block of the guide and the README is executed.
* Every section a citation points to (``SPEC §N`` or ``theory §N``, in the code, the
  docs and the derivations) exists in ``docs/theory.md``.
* The package metadata agrees: ``CITATION.cff``, ``pyproject.toml``, ``freege --version``.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from freege.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"
THEORY = ROOT / "docs" / "theory.md"
README = ROOT / "README.md"

#: marker, in a command's trailing comment, of a documented command too slow for the suite
EXPENSIVE = "expensive"
#: README commands too slow for the suite (until the README marks them ``# expensive``)
README_EXPENSIVE = (
    "freege validate bert-base",  # 10 draws at n = 512
    "freege validate --n 1024",  # 10 draws at n = 1024
    "freege validate kayyam-1.2b --backend cupy",  # needs a GPU
    "freege ladder --n 1000",  # three trials at n = 1000
)


@dataclass(frozen=True)
class Command:
    """One documented ``freege`` command line."""

    source: str
    line: int
    text: str
    expensive: bool
    expected: str | None = None

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.text, comments=True)[1:]

    def __str__(self) -> str:
        return f"{self.source}:{self.line}"


def _blocks(path: Path, language: str) -> list[tuple[int, str, int]]:
    """``(first line number, body, end offset)`` of each fenced block in ``language``."""
    text = path.read_text()
    found = []
    for match in re.finditer(rf"^```{language}\n(.*?)^```$", text, re.S | re.M):
        found.append((text.count("\n", 0, match.start(1)) + 1, match.group(1), match.end()))
    return found


def commands(path: Path) -> list[Command]:
    text = path.read_text()
    found = []
    for first, body, end in _blocks(path, "bash"):
        lines = [(first + k, line) for k, line in enumerate(body.splitlines())
                 if line.startswith("freege ")]
        expected = None
        after = re.match(r"\n*```text\n(.*?)^```$", text[end:], re.S | re.M)
        if after and len(lines) == 1:
            expected = after.group(1)
        for number, line in lines:
            comment = line.partition(" #")[2]
            slow = EXPENSIVE in comment or (
                path == README and any(line.startswith(p) for p in README_EXPENSIVE))
            found.append(Command(path.name, number, line, slow, expected))
    return found


ALL = commands(GUIDE) + commands(README)
CHEAP = [c for c in ALL if not c.expensive]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's --version and errors
            code = exc.code
    return int(code or 0), out.getvalue(), err.getvalue()


def test_the_docs_have_commands_of_every_kind():
    """The extraction finds the guide's examples (a broken fence would silently skip
    them): derive, law, readout, validate, ladder, reproduce, each run at least once."""
    kinds = {c.argv[0] for c in CHEAP if c.argv and not c.argv[0].startswith("-")}
    assert {"derive", "law", "readout", "validate", "ladder", "reproduce"} <= kinds
    assert any(c.expected for c in CHEAP)
    for prefix in README_EXPENSIVE:  # a stale entry is a README change to look at
        assert any(c.text.startswith(prefix) for c in ALL if c.source == README.name), prefix


@pytest.mark.parametrize("command", CHEAP, ids=str)
def test_documented_command_runs(command: Command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(command.argv)
    assert code == 0, f"{command}: {command.text}\n{err}"
    if command.expected is not None:
        assert out == command.expected, f"{command}: output differs from the docs"
    for option in ("--plot",):
        if option in command.argv:
            target = tmp_path / command.argv[command.argv.index(option) + 1]
            assert target.stat().st_size > 0


@pytest.mark.parametrize("command", [c for c in ALL if c.expensive], ids=str)
def test_expensive_command_still_parses(command: Command, tmp_path, monkeypatch):
    """Not run (too slow for the suite), but its sub-command and options must exist."""
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            build_parser().parse_args(command.argv)
        except SystemExit as exc:
            pytest.fail(f"{command}: {command.text}: {err.getvalue()} (exit {exc.code})")


@pytest.mark.parametrize("path", [GUIDE, README], ids=lambda p: p.name)
def test_python_examples_run(path: Path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(path, "python")
    assert blocks, f"{path.name} has no python example"
    for first, body, _ in blocks:
        try:
            exec(compile(body, f"{path.name}:{first}", "exec"), {})  # noqa: S102
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{path.name}:{first}: {type(exc).__name__}: {exc}")


def theory_sections() -> set[str]:
    return set(re.findall(r"^#{2,3} §(\d+(?:\.\d+)?) ", THEORY.read_text(), re.M))


def test_every_cited_section_exists():
    """Citations in code, help texts, plots, derivations and docs point at sections of
    docs/theory.md (``SPEC §N`` is the older spelling of ``theory §N``)."""
    sections = theory_sections()
    assert {"1", "1.1", "1.2", "2", "2.1", "3", "4", "5", "6.1", "6.2", "6.3", "7", "7.1"} \
        <= sections
    cite = re.compile(r"(?:SPEC|theory) §(\d+(?:\.\d+)?)((?:[-–](?:§)?\d+(?:\.\d+)?)?)")
    missing = []
    paths = [*ROOT.glob("freege/**/*.py"), *ROOT.glob("validation/**/*.py"),
             *ROOT.glob("derivations/*.*"), *ROOT.glob("docs/*.md"), README,
             ROOT / "ARCHITECTURE.md"]
    for path in paths:
        for number, rest in cite.findall(path.read_text()):
            for cited in (number, rest.lstrip("-–§")):
                if cited and cited not in sections:
                    missing.append(f"{path.relative_to(ROOT)}: §{cited}")
    assert not missing, missing


def test_metadata_agrees():
    yaml = pytest.importorskip("yaml")
    import freege

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == project["version"] == freege.__version__
    assert citation["license"] == project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert all(ref["title"] and ref["year"] for ref in citation["references"])
    assert (ROOT / "freege" / "py.typed").exists()
    code, out, _ = _run(["--version"])
    assert code == 0 and out.strip() == f"freege {freege.__version__}"


def test_python_dash_m_freege():
    proc = subprocess.run([sys.executable, "-m", "freege", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("freege ")
