"""The raise report: what `linea-raise` made of a model's IR, one line per
raised op, per candidate left as written and per pattern that refused a
candidate, each at the model's own source line.

    linea-raise: 1 op(s) raised, 1 candidate(s) left as written
    layer.py:6: raised to linea.presum dim = 2
    layer.py:7: not raised: the cumsum of states reaches the contraction ...

`linea-opt --linea-raise=explain=N` makes the remarks (lib/Raise): `raised
to ...` for each raised op; `not raised: why` for each candidate left as
written (the first pattern that took it for its idiom says why); `the P
pattern refused it: why` for every other pattern that took an op for its
idiom and refused it, whether the op was then left as written or raised by
a later pattern. explain=1 keeps each reason to one line of at most
`REASON_WIDTH` characters (expressions in math notation); explain=2 prints
the whole text.

Where a remark's location is torch's own source (an export made before
`fx_locations.point_at_user_code`, or an op with no frame of the model),
the innermost frame of the model among its callers is used; where there is
none the line says where the op is: torch's file, or the line of the IR.
"""

import pathlib
import re
import subprocess
import tempfile

from .fx_locations import is_user_file
from .runner import LineaError, build_dir

# lib/Raise/RaiseUtils.h's RaiseLog::kRemarkWidth: the longest reason at
# explain=1.
REASON_WIDTH = 160

# One diagnostic line of linea-opt: `FILE:LINE:COL: SEVERITY: MESSAGE`, or
# `<unknown>:0: ...` for an op without a location.
_DIAGNOSTIC = re.compile(r"^(?P<where>.*?):(?P<line>\d+)(?::\d+)?: "
                         r"(?P<severity>remark|note|warning|error): (?P<message>.*)$")
_RAISED = "raised to "
_LEFT = "not raised: "
_REFUSED = re.compile(r"^the (?P<pattern>.+?) pattern refused it: ")


def _remarks(stderr):
    """Each `linea-raise:` remark of `stderr` as (message, frames), frames
    innermost first: the remark's location, then those of its `called
    from` notes."""
    remarks = []
    for text in stderr.splitlines():
        match = _DIAGNOSTIC.match(text)
        if not match:
            continue
        frame = (match["where"], int(match["line"]))
        if match["severity"] == "remark" and match["message"].startswith("linea-raise: "):
            remarks.append((match["message"][len("linea-raise: "):], [frame]))
        elif match["severity"] == "note" and match["message"] == "called from" and remarks:
            remarks[-1][1].append(frame)
    return remarks


def _place(frames, ir_path):
    """Where a remark is, as its report line starts: `file.py:LINE` of the
    model's innermost frame, else what is known (torch's own file, the line
    of the IR)."""
    for where, line in frames:
        if where not in ("<unknown>", str(ir_path)) and is_user_file(where):
            return f"{pathlib.Path(where).name}:{line}", (0, where, line)
    where, line = frames[0]
    if where == str(ir_path):
        return f"IR line {line} (no source line)", (1, "", line)
    if where == "<unknown>":
        return "(no source location)", (2, "", 0)
    return (f"torch's {pathlib.Path(where).name}:{line} (no line of the model)",
            (1, where, line))


def format_report(stderr, ir_path=None):
    """The report of linea-opt's `stderr` (`--linea-raise=explain=N`) on the
    IR file `ir_path`: a summary, then one line per remark, in source
    order."""
    entries = []
    for order, (message, frames) in enumerate(_remarks(stderr)):
        place, key = _place(frames, ir_path)
        entries.append((key, order, f"{place}: {message}", message))
    entries.sort(key=lambda e: (e[0], e[1]))
    raised = sum(1 for e in entries if e[3].startswith(_RAISED))
    left = sum(1 for e in entries if e[3].startswith(_LEFT))
    refused = sum(1 for e in entries if _REFUSED.match(e[3]))
    summary = f"linea-raise: {raised} op(s) raised, {left} candidate(s) left as written"
    if refused:
        summary += f", {refused} more pattern refusal(s)"
    return "\n".join([summary] + [e[2] for e in entries])


def raise_report(text, explain=1):
    """What linea-raise makes of the IR `text`: one line per raised op, per
    candidate left as written and per other pattern that refused one (with
    why), each at its source line. `explain=2`: each reason in full."""
    explain = int(explain)
    if explain < 1:
        raise LineaError(1, f"explain={explain!r}: the report takes 1 or 2")
    tool = build_dir() / "bin" / "linea-opt"
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "model.mlir"
        path.write_text(text)
        done = subprocess.run([str(tool), str(path), f"--linea-raise=explain={explain}",
                               "--mlir-print-op-on-diagnostic=false", "-o", "/dev/null"],
                              capture_output=True, text=True)
    if done.returncode != 0:
        raise LineaError(done.returncode, done.stderr)
    return format_report(done.stderr, path)
