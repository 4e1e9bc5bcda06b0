"""The seed documents' examples (tensor basics, autograd) print exactly what PyTorch prints."""
import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def _run(name, *flags):
    return subprocess.run([sys.executable, str(EXAMPLES / name), *flags], capture_output=True, text=True,
                          check=True).stdout


def test_tensor_basics_output_identical_to_torch():
    ember_out, torch_out = _run("tensor_basics.py"), _run("tensor_basics.py", "--torch")
    assert ember_out.count("\n") > 100
    assert ember_out == torch_out


def test_autograd_basics_output_identical_to_torch():
    ember_out, torch_out = _run("autograd_basics.py"), _run("autograd_basics.py", "--torch")
    assert ember_out.count("\n") > 30
    assert ember_out == torch_out
