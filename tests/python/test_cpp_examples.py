"""The C++ examples' expected outputs (examples/cpp/expected/*.txt, compared by ctest with what the built
examples print) are what PyTorch prints for the same programs (expected/*.py)."""
import pathlib
import subprocess
import sys

import pytest

EXPECTED = pathlib.Path(__file__).resolve().parents[2] / "examples" / "cpp" / "expected"
PROGRAMS = sorted(EXPECTED.glob("*.py"))
UNCOMPARED = {"train_fashion_mnist"}  # a training run: ctest runs a few steps and checks that it finishes


def test_every_example_has_a_torch_twin():
    assert {p.stem for p in EXPECTED.parent.glob("*.cpp")} - UNCOMPARED == {p.stem for p in PROGRAMS}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_expected_output_is_what_torch_prints(program):
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, check=True).stdout
    assert out.count("\n") > 5
    assert out == program.with_suffix(".txt").read_text()
