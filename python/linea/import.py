"""`python3 -m linea.import MODEL -o OUT.mlir`: a model's linalg IR for the
command-line tools (linea-opt, linea-run, linea-compile).

MODEL is an ONNX file (`model.onnx`), or a Python file and the name of a
function in it that returns `(module, example_inputs)` or `(module,
example_inputs, dynamic)` (`layer.py:example`; `example` is the default
name), `dynamic` as for `linea.from_torch`. Needs torch-mlir (and PyTorch
for a Python file): run it with .deps/frontend/bin/python.
"""
import argparse
import importlib.util
import pathlib
import sys

from linea.frontend import export_torch, import_onnx
from linea.runner import LineaError


def _from_python(spec):
    path, _, name = spec.partition(":")
    name = name or "example"
    module_spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, path)
    if module_spec is None or not pathlib.Path(path).is_file():
        raise LineaError(1, f"cannot read {path}")
    code = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(pathlib.Path(path).resolve().parent))
    module_spec.loader.exec_module(code)
    function = getattr(code, name, None)
    if not callable(function):
        raise LineaError(1, f"{path} has no function {name}() returning "
                            "(module, example_inputs[, dynamic])")
    made = function()
    if not isinstance(made, tuple) or len(made) not in (2, 3):
        raise LineaError(1, f"{path}:{name}() must return (module, example_inputs[, dynamic])")
    module, inputs = made[0], made[1]
    dynamic = made[2] if len(made) == 3 else None
    return export_torch(module, *inputs, dynamic=dynamic)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m linea.import", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("model", help="MODEL.onnx, or FILE.py[:FUNCTION]")
    parser.add_argument("-o", "--output", required=True, help="the .mlir file to write")
    args = parser.parse_args(argv)
    try:
        if args.model.split(":")[0].endswith(".py"):
            text = _from_python(args.model)
        else:
            text = import_onnx(args.model)
    except LineaError as error:
        print(f"linea.import: error: {error}", file=sys.stderr)
        return 1
    pathlib.Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
