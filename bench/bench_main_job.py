"""The main job's epoch (examples/python/train_fashion_mnist.py) under Ember and under torch, in one process.

Each backend runs the script's own Trainer: the data pipeline (FashionMNIST, RandomCrop + flip + Normalize,
DataLoader with the script's workers), the seed CNN, Adam + OneCycleLR, and the evaluation. Rounds of `--batches`
training batches and `--eval-batches` test batches of 1000 alternate between the backends; the epoch time is
estimated from the medians (a full pass over both sets at the script's batch sizes). Target (issue 13): Ember's epoch time at most
0.5x torch's (a speed ratio of at least 2x).
"""
import argparse
import importlib.util
import pathlib
import statistics
import time

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "examples" / "python" / "train_fashion_mnist.py"


def load_job():
    spec = importlib.util.spec_from_file_location("train_fashion_mnist", SCRIPT)
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    return job


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=40, help="training batches per round")
    parser.add_argument("--eval-batches", type=int, default=2, help="test batches (of 1000) per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--width", type=int, default=None, help="the model's width (default: the script's)")
    parser.add_argument("--threads", type=int, default=None, help="compute threads (default: the script's)")
    args = parser.parse_args()
    job = load_job()
    trainers = {}
    for backend in ("ember", "torch"):
        argv = ["--backend", backend, "--no-progress", "--workers", str(args.workers), "--epochs", "1000"]
        if args.width:
            argv += ["--width", str(args.width)]
        if args.threads:
            argv += ["--threads", str(args.threads)]
        opts = job.parse_args(argv)
        trainers[backend] = trainer = job.Trainer(opts, job.load_backend(backend))
        trainer.args.limit_batches = 5
        trainer.train_epoch()  # warm-up: primitive caches, workers started
        trainer.evaluate()
    full_steps = len(trainers["ember"].train_loader)
    step_times = {b: [] for b in trainers}
    eval_times = {b: [] for b in trainers}
    for _ in range(args.rounds):
        for backend, trainer in trainers.items():
            trainer.args.limit_batches = args.batches
            start = time.perf_counter()
            trainer.train_epoch()
            step_times[backend].append((time.perf_counter() - start) / args.batches)
            trainer.args.limit_batches = args.eval_batches
            start = time.perf_counter()
            trainer.evaluate()
            eval_times[backend].append((time.perf_counter() - start) / args.eval_batches)
    epoch = {}
    for backend in trainers:
        step, test = statistics.median(step_times[backend]), statistics.median(eval_times[backend])
        epoch[backend] = step * full_steps + test * len(trainers[backend].test_loader)
        rate = trainers[backend].args.batch_size / step
        print(f"{backend:6s} train step {step * 1e3:7.1f} ms ({rate:5.0f} img/s)  eval {test * 1e3:6.0f} ms per "
              f"1000 images  epoch {epoch[backend]:6.1f} s")
    print(f"epoch time ratio ember/torch {epoch['ember'] / epoch['torch']:.2f} (target <= 0.5); "
          f"speed ratio {epoch['torch'] / epoch['ember']:.2f}x")


if __name__ == "__main__":
    main()
