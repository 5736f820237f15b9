"""The ``kag`` CLI: fast help, and ``kag eval`` as a thin hand-off to the bench package."""

import subprocess
import sys

import pytest

from graphs import cli

PROBE = """
import sys
import graphs.cli
heavy = ("bench", "neo4j", "redis", "langchain_core", "langgraph", "rich")
heavy = sorted(m for m in heavy if m in sys.modules)
print(",".join(heavy))
"""


def test_importing_the_cli_imports_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


@pytest.mark.parametrize(("name", "module"), [("locomo", "bench.locomo"), ("ablations", "bench.ablations")])
def test_eval_hands_the_arguments_to_the_bench_module(monkeypatch, name, module):
    seen = {}

    def fake_run_module(mod: str, run_name: str, alter_sys: bool) -> None:
        seen.update(module=mod, run_name=run_name, argv=sys.argv[:])
        raise SystemExit(3)

    monkeypatch.setattr(cli.runpy, "run_module", fake_run_module)
    argv = sys.argv[:]
    assert cli.main(["eval", name, "--small", "x"]) == 3
    assert seen == {"module": module, "run_name": "__main__", "argv": [f"python -m {module}", "--small", "x"]}
    assert sys.argv == argv


def test_eval_without_the_bench_package_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_bench_available", lambda module: False)
    assert cli.main(["eval", "locomo"]) == 2
    assert "source checkout" in capsys.readouterr().out
