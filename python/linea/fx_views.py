"""FX graph repairs made before torch-mlir imports an exported program.

torch-mlir (20261001) lowers an `aten.view` that merges several dims, two of
them dynamic (`x.view(B * L, D)` of a `[B, L, D]` tensor with B and L both
dynamic: what `nn.Linear` does to a 3-d input), as if the first dynamic dim
were kept and the next were 1 (`tensor.cast` to `?x1xD`, then a collapse of
the wrong dims): every call then fails the importer's own broadcast check.
`prims.collapse` lowers to the `tensor.collapse_shape` the view means, so
such views are rewritten into it before the import.
"""


def _merged_groups(source_shape, target_shape, known_equal):
    """The runs `[start, end]` of source dims whose product is each target
    dim, in order, or None where the view is not a pure merge of adjacent
    dims (a split, a reorder of sizes, a size-1 insertion)."""
    groups = []
    start = 0
    for size in target_shape:
        if start >= len(source_shape):
            return None
        end = start
        product = source_shape[start]
        while not known_equal(product, size):
            end += 1
            if end >= len(source_shape):
                return None
            product = product * source_shape[end]
        groups.append((start, end))
        start = end + 1
    return groups if start == len(source_shape) else None


def _is_dynamic(size):
    return not isinstance(size, int)


def collapse_dynamic_merges(program):
    """Rewrites, in place, each view of `program` (a torch.export
    ExportedProgram, decomposed) that merges adjacent dims including two
    dynamic ones into `prims.collapse` steps; returns how many it rewrote."""
    import torch
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    def known_equal(a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return statically_known_true(a == b)

    views = {torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default,
             torch.ops.aten.reshape.default}
    graph = program.graph_module.graph
    rewritten = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in views:
            continue
        source = node.args[0]
        source_value = getattr(source, "meta", {}).get("val")
        target_value = node.meta.get("val")
        if source_value is None or target_value is None or \
                not source_value.is_contiguous():
            continue
        groups = _merged_groups(list(source_value.shape), list(target_value.shape),
                                known_equal)
        if groups is None or not any(
                sum(_is_dynamic(source_value.shape[d]) for d in range(s, e + 1)) >= 2
                for s, e in groups):
            continue
        # Collapse the last group first: the earlier groups keep their dims.
        current, value = source, source_value
        with graph.inserting_before(node):
            for start, end in reversed(groups):
                if start == end:
                    continue
                with value.fake_mode:
                    value = torch.ops.prims.collapse.default(value, start, end)
                current = graph.call_function(torch.ops.prims.collapse.default,
                                              (current, start, end))
                current.meta = {**node.meta, "val": value}
        node.replace_all_uses_with(current)
        graph.erase_node(node)
        rewritten += 1
    if rewritten:
        program.graph_module.recompile()
    return rewritten
