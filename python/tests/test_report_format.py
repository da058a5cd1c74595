"""The raise report's lines from linea-opt's remarks (linea/report.py),
without torch: counts by kind, each line at the model's innermost frame
(a `called from` note where the op's own location is torch's), or saying
where it is when the model has no line for it."""
from linea.fx_locations import is_user_file, user_stack_trace
from linea.report import format_report

TORCH = "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py"
IR = "/tmp/x/model.mlir"


def test_counts_and_places():
    stderr = "\n".join([
        "/home/me/layer.py:7:0: remark: linea-raise: not raised: mask is t < i: the diagonal "
        "is excluded; linea causal includes t = i",
        "/home/me/layer.py:7:0: remark: linea-raise: the linear attention pattern refused it: "
        "the scores are multiplied by arg3[d0, d1], which is neither a mask nor a constant",
        f"{TORCH}:134:0: remark: linea-raise: raised to linea.presum dim = 2",
        "/home/me/block.py:30:0: note: called from",
        "/home/me/model.py:3:0: note: called from",
        f"{TORCH}:134:0: remark: linea-raise: not raised: the scan does not add",
        f"{IR}:12:5: remark: linea-raise: raised to linea.attention mask = causal",
        "<unknown>:0: remark: linea-raise: not raised: the raise takes f32 models",
        "/home/me/layer.py:9:0: warning: something else",
    ])
    report = format_report(stderr, IR).splitlines()
    assert report[0] == ("linea-raise: 2 op(s) raised, 3 candidate(s) left as written, "
                         "1 more pattern refusal(s)")
    assert report[1:] == [
        # The model's lines first, in source order (a file's lines together).
        "block.py:30: raised to linea.presum dim = 2",
        "layer.py:7: not raised: mask is t < i: the diagonal is excluded; linea causal "
        "includes t = i",
        "layer.py:7: the linear attention pattern refused it: the scores are multiplied by "
        "arg3[d0, d1], which is neither a mask nor a constant",
        # Then what says where it is.
        "IR line 12 (no source line): raised to linea.attention mask = causal",
        "torch's linear.py:134 (no line of the model): not raised: the scan does not add",
        "(no source location): not raised: the raise takes f32 models",
    ]


def test_nothing_to_report():
    assert format_report("", IR) == "linea-raise: 0 op(s) raised, 0 candidate(s) left as written"


def test_torch_files_are_not_the_models():
    assert not is_user_file(TORCH)
    assert not is_user_file("torch/fx/passes/runtime_assert.py")
    assert is_user_file("/home/me/layer.py")
    trace = ('File "/home/me/layer.py", line 7, in forward\n    y = self.proj(x)\n'
             f'  File "{TORCH}", line 134, in forward\n    return F.linear(x, w, b)')
    assert user_stack_trace(trace) == 'File "/home/me/layer.py", line 7, in forward\n' \
                                      '    y = self.proj(x)'
