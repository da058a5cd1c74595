"""Source locations that point at the model's code, not at torch's.

torch-mlir's FX importer gives each op the location of its FX node's
`meta["stack_trace"]`: every `File "...", line N,` frame in it, the last
(innermost) one as the op's own location and the others as its callers
(`get_node_location` in torch_mlir/extras/fx_importer.py). For an op that a
torch module makes (`nn.Linear`, `nn.LayerNorm`, `F.scaled_dot_product_attention`
decomposed), the innermost frame is torch's own source (`torch/nn/modules/
linear.py:134`), the same line for every linear layer of every model, and
Linea's remarks and run-time errors would point there. `point_at_user_code`
cuts each stack trace after its innermost frame outside torch (and outside
Linea's own wrappers): the line of the model that called the module.
"""

import importlib.util
import os
import re

# One frame of a Python traceback as torch.export records it (the first
# frame has no indentation); the code line under it is optional.
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*(?:\n[ \t]+[^\n]*)?')


# A file of an installed torch, wherever it is installed.
_INSTALLED_TORCH = re.compile(r"/(?:site|dist)-packages/torch/")


def _package_dirs():
    """The folders whose files are not the user's: torch's package (its
    modules, functional and decompositions) and Linea's own."""
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    # (Found, not imported: a report needs torch's folder, not torch.)
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.submodule_search_locations:
        dirs += [os.path.abspath(d) for d in spec.submodule_search_locations]
    return tuple(os.path.join(d, "") for d in dirs)


def is_user_file(path, package_dirs=None):
    """Whether `path` (a frame's file) is the model's code rather than
    torch's or Linea's."""
    dirs = _package_dirs() if package_dirs is None else package_dirs
    # torch names some frames of its own relative to its package's parent
    # (`torch/fx/passes/runtime_assert.py`, on the inputs' nodes); IR made by
    # another Python names its own torch's files.
    posix = path.replace(os.sep, "/")
    if (not os.path.isabs(path) and posix.startswith("torch/")) or _INSTALLED_TORCH.search(posix):
        return False
    return not os.path.abspath(path).startswith(dirs)


def user_stack_trace(stack_trace, package_dirs=None):
    """`stack_trace` cut after its innermost frame in the user's code; the
    trace unchanged where it has no frame there (or no frame at all)."""
    if not stack_trace:
        return stack_trace
    dirs = _package_dirs() if package_dirs is None else package_dirs
    frames = list(_FRAME.finditer(stack_trace))
    for frame in reversed(frames):
        if is_user_file(frame["file"], dirs):
            return stack_trace[:frame.end()]
    return stack_trace


def point_at_user_code(program):
    """Rewrites, in place, each node's `meta["stack_trace"]` of `program` (a
    torch.export ExportedProgram, decomposed: what torch-mlir then imports)
    so that its innermost frame is the innermost one in the user's code.
    Returns the number of nodes rewritten."""
    dirs = _package_dirs()
    rewritten = 0
    for module in program.graph_module.modules():
        graph = getattr(module, "graph", None)
        if graph is None:
            continue
        for node in graph.nodes:
            trace = node.meta.get("stack_trace")
            if not isinstance(trace, str):
                continue
            cut = user_stack_trace(trace, dirs)
            if cut != trace:
                node.meta["stack_trace"] = cut
                rewritten += 1
    return rewritten
