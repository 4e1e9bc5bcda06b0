"""The seed documents' tensor basics print exactly what PyTorch prints."""
import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "tensor_basics.py"


def _run(*flags):
    return subprocess.run([sys.executable, str(EXAMPLE), *flags], capture_output=True, text=True, check=True).stdout


def test_tensor_basics_output_identical_to_torch():
    ember_out, torch_out = _run(), _run("--torch")
    assert ember_out.count("\n") > 100
    assert ember_out == torch_out
