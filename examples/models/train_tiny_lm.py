"""Training through Linea: the small language model
(examples/models/small_language_model.py, as its `example()` builds it)
trained for 100 steps with AdamW, once through Linea (`linea.from_torch(...,
weights="arguments")`: its forward is Linea's kernel, its backward the
gradient program linea-differentiate derives from the same raised model) and
once in torch eager, from the same seed and on the same sequences. The two
loss curves are printed side by side.

The task is a synthetic corpus any causal model can learn: each token is
followed by its successor under a fixed random permutation, nine times in
ten. One export serves every length (the example's dynamic L): the
sequences alternate between two lengths.

    .deps/frontend/bin/python examples/models/train_tiny_lm.py [--steps N]
"""
import argparse
import copy
import os
import pathlib
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import linea  # noqa: E402
import small_language_model  # noqa: E402

VOCABULARY = small_language_model.VOCABULARY


def batches(steps, batch=1, lengths=(48, 64), seed=0):
    """`steps` batches of (tokens, next tokens) from the synthetic corpus."""
    generator = torch.Generator().manual_seed(seed)
    successor = torch.randperm(VOCABULARY, generator=generator)
    for step in range(steps):
        length = lengths[step % len(lengths)]
        tokens = torch.empty(batch, length + 1, dtype=torch.int64)
        tokens[:, 0] = torch.randint(0, VOCABULARY, (batch,), generator=generator)
        for t in range(length):
            noise = torch.randint(0, VOCABULARY, (batch,), generator=generator)
            keep = torch.rand(batch, generator=generator) < 0.9
            tokens[:, t + 1] = torch.where(keep, successor[tokens[:, t]], noise)
        yield tokens[:, :-1], tokens[:, 1:]


def train(steps=100, report_every=10, out=sys.stdout):
    """Trains both copies; returns the two lists of losses."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    eager, example, dynamic = small_language_model.example()
    ours = copy.deepcopy(eager)
    model = linea.from_torch(ours, *example, dynamic=dynamic, weights="arguments")
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (eager, ours)]
    losses = ([], [])
    seconds = [0.0, 0.0]
    print(f"{'step':>5} {'torch eager':>12} {'Linea':>12} {'rel. diff':>10}", file=out)
    for step, (tokens, targets) in enumerate(batches(steps)):
        for k, (forward, optimizer) in enumerate(zip((eager, model), optimizers)):
            start = time.perf_counter()
            optimizer.zero_grad()
            logits = forward(tokens)
            loss = F.cross_entropy(logits.reshape(-1, VOCABULARY), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            if step > 0:  # (the first step compiles Linea's gradient program)
                seconds[k] += time.perf_counter() - start
            losses[k].append(loss.item())
        if step % report_every == 0 or step == steps - 1:
            a, b = losses[0][-1], losses[1][-1]
            print(f"{step + 1:>5} {a:>12.6f} {b:>12.6f} {abs(a - b) / abs(a):>10.1e}",
                  file=out)
    if steps > 1:
        print(f"per step (forward, backward, AdamW), after the first: torch eager "
              f"{seconds[0] / (steps - 1) * 1e3:.1f} ms, Linea "
              f"{seconds[1] / (steps - 1) * 1e3:.1f} ms", file=out)
    return losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    train(parser.parse_args().steps)
