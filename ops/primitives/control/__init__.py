"""Control-flow primitives whose bodies are Functions: cond, while and scan (ops layer).

Each primitive is one module with all its rules, the vjp rules of the
body-holding ones included: they differentiate bodies through the rule
context the reverse pass hands them (``ctx.backward``, ``ctx.simplify``),
so nothing is attached from transforms/. The user API (sg.cond, sg.scan,
...) is in ops/control_api.py.
"""

from .cond import CondAttrs, cond_call, cond_op
from .scan import ScanAttrs, scan_call, scan_op
from .while_loop import WhileAttrs, while_call, while_op

__all__ = [
    "CondAttrs", "ScanAttrs", "WhileAttrs", "cond_call", "cond_op", "scan_call", "scan_op", "while_call",
    "while_op",
]  # fmt: skip
