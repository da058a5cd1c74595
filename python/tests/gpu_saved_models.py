"""Saved models on a GPU (issue 56): `linea.from_torch(..., target="cuda")`
on a machine without a GPU returns a model that saves; the GPU kit carries
the saved directories there and `linea.load` runs them, with no torch-mlir
and no compiler, against the float64 outputs the exporting machine computed.

Two halves:
    .deps/frontend/bin/python gpu_saved_models.py --build DIR   # here: export, save, expect
    python3 gpu_saved_models.py DIR                              # there: load, run, compare

The model is issue 56's pre-norm block (first_day_block.py) with every dim
of its input dynamic (batch and length), saved twice: with its weights as
arguments (`weights="arguments"`; the parameters travel as .npy files and
are passed after the input) and as constants in the library (the default).
Each case prints one line and the run ends with `N passed, N failed`.
"""
import argparse
import pathlib
import sys

import numpy as np

# f32 as exported; the GPU's f32 contractions stay well inside this.
TOLERANCE = 2e-3
SHAPES = [(1, 7), (3, 64), (2, 1000)]
MODES = ("arguments", "constants")


def build(directory):
    """Here: export the block for CUDA in both weight modes, save it, and
    write the parameters and each case's input and float64 output."""
    import torch
    import linea
    from first_day_block import block
    directory.mkdir(parents=True, exist_ok=True)
    module = block()
    example = torch.randn(2, 64, 128)
    for mode in MODES:
        model = linea.from_torch(module, example, dynamic={0: {0: "B", 1: "L"}},
                                 target="cuda", weights=mode)
        model.save(directory / f"block-{mode}")
    for k, parameter in enumerate(module.parameters()):
        np.save(directory / f"parameter-{k:02d}.npy", parameter.detach().numpy())
    for batch, length in SHAPES:
        x = torch.randn(batch, length, 128, generator=torch.Generator().manual_seed(length))
        with torch.no_grad():
            exact = module.double()(x.double())
            module.float()
        np.save(directory / f"x-{batch}x{length}.npy", x.numpy())
        np.save(directory / f"expected-{batch}x{length}.npy", exact.numpy())
    print(f"gpu_saved_models: saved the block ({', '.join(MODES)}) and {len(SHAPES)} cases "
          f"in {directory}")


def run(directory):
    """There: load and run each case on the GPU."""
    import torch
    import linea
    assert "torch_mlir" not in sys.modules
    parameters = [torch.from_numpy(np.load(path)).cuda()
                  for path in sorted(directory.glob("parameter-*.npy"))]
    passed = failed = 0
    for mode in MODES:
        for batch, length in SHAPES:
            name = f"saved block, weights as {mode}, (B, L) = ({batch}, {length})"
            try:
                model = linea.load(directory / f"block-{mode}")
                x = torch.from_numpy(np.load(directory / f"x-{batch}x{length}.npy")).cuda()
                exact = np.load(directory / f"expected-{batch}x{length}.npy")
                weights = parameters if mode == "arguments" else []
                out = model(x, *weights).double().cpu().numpy()
                error = float(np.linalg.norm(out - exact) / np.linalg.norm(exact))
                ok = out.shape == exact.shape and error <= TOLERANCE
                print(f"{'PASS' if ok else 'FAIL'} {name}: rel. L2 {error:.2e}")
            except Exception as error:  # a failing case says why, the others run
                ok = False
                print(f"FAIL {name}: {type(error).__name__}: {str(error).splitlines()[0]}")
            passed, failed = passed + ok, failed + (not ok)
            if not ok and mode == "constants":
                break  # (a device fault poisons the context: the rest would say the same)
    print(f"{passed} passed, {failed} failed")
    return failed == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--build", action="store_true")
    args = parser.parse_args()
    if args.build:
        build(args.directory)
    else:
        sys.exit(0 if run(args.directory) else 1)


if __name__ == "__main__":
    main()
