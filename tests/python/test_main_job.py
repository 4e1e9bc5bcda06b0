"""The main job (examples/python/train_fashion_mnist.py) on a few batches: its summary lines, its output folder,
resuming from the last checkpoint, and the same script on torch."""
import pathlib
import re
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "train_fashion_mnist.py"
pytest.importorskip("matplotlib")
if not pathlib.Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz").exists():
    pytest.skip("Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)", allow_module_level=True)


def train(out, *flags, check=True):
    cmd = [sys.executable, str(SCRIPT), "--out", str(out), "--limit-batches", "3", "--width", "8", *flags]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def epoch_lines(stdout):
    return [line for line in stdout.splitlines() if re.match(r"epoch \d+/\d+  train loss", line)]


def test_summary_lines_and_output_folder(tmp_path):
    out = train(tmp_path, "--epochs", "2", "--workers", "0").stdout
    assert len(epoch_lines(out)) == 2
    last = out.splitlines()[-1]
    assert re.match(r"test accuracy \d+\.\d\d% \(best \d+\.\d\d% at epoch \d\)", last)
    assert last.endswith(str(tmp_path))
    for name in ("best.pt", "last.pt", "curves.png", "confusion.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_resume_continues_the_same_run(tmp_path):
    straight = epoch_lines(train(tmp_path / "a", "--epochs", "2").stdout)
    train(tmp_path / "b", "--epochs", "2", "--stop-after", "1")
    resumed = train(tmp_path / "b", "--epochs", "2", "--resume").stdout
    assert "resumed from" in resumed
    # the second epoch after a resume is the straight run's second epoch (all but the wall time)
    strip = lambda line: line.split("  ")[:5]  # noqa: E731
    assert [strip(line) for line in epoch_lines(resumed)] == [strip(straight[1])]
    mismatch = train(tmp_path / "b", "--epochs", "3", "--resume", check=False)
    assert mismatch.returncode != 0 and "resume it with --epochs 2" in mismatch.stderr


def test_same_script_on_torch(tmp_path):
    out = train(tmp_path, "--epochs", "1", "--workers", "0", "--backend", "torch").stdout
    assert out.startswith("torch 2.13")
    assert len(epoch_lines(out)) == 1
