"""The special-point sweep: a signature table in, a Report of mismatches and counts out.

A table maps a function's name (or ``name[variant]``) to a Sig: its argument kinds (points.py),
how to call it (``call(xp, *args)`` with xp the namespace: ours, jax's, or numpy for the
reference), and its float64 reference. ``sweep`` builds every case of a dtype family into a few
graphs (runners.py), runs the same cases through jax in the same dtype and in float64, and
compares them with the rules of compare.py. Mismatches a table lists on purpose are matched by
``listed``; every other one is a finding to fix.

Bounds: values within ULPS ulps of the reference (never worse than jax's own error at the
point), derivatives within DULPS ulps of jax's float64 derivative (the same "never worse").
Where ours agrees with the reference and jax's does not, the point counts as "better than jax"
(Report.better), not as a mismatch.

Cost: each XLA compile of a chunk is most of the time, so cases are built many to a graph, names
that are one function in both namespaces (arccos, acos) run once, the empty-array cases compare
values only, jax's float64 reference runs only for cases where ours and jax's disagree somewhere,
and jax's side runs on a second thread while ours compiles.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from . import points as pts
from .compare import agree, leaf_rules
from .runners import PARTS, NoDerivative, leaves, run_jax, run_ours, upcast_flushed

# The highest derivative swept: second derivatives more than double the sweep's compile time (both
# libraries build each Hessian row as a gradient of a gradient), so the 10-minute suite (make test)
# compares values and first derivatives (less for the heaviest tables: see ``families`` and the
# test files), and `make sweep` (STABLEGRAPH_FULL_SWEEP=1, run by CI after the suite) compares all
# three parts in both dtype families.
FULL = os.environ.get("STABLEGRAPH_FULL_SWEEP") == "1"


def depth(in_suite: int = 1) -> int:
    """The highest derivative a table is swept to: 2 in the full sweep, ``in_suite`` in make test."""
    return 2 if FULL else in_suite


ULPS = 4  # values: a float result may be this many ulps from the float64 reference (or jax's error)
DULPS = 64  # derivatives: chain rules round more; still never worse than jax's float32 derivative


@dataclass(frozen=True)
class Sig:
    """How to sweep one function.

    kinds: one argument kind per argument (points.py); call: ``call(xp, *args)``, None for
    ``xp.<name>(*args)``; ref: the float64 reference ``ref(*args)`` on the arguments cast to
    float64, None for the table's default (numpy's function of the same call, else jax in
    float64), or "jax" for jax in float64; order: the highest derivative compared (jax
    permitting); ulps, dulps: the bounds; empty: also run an elementwise function on empty
    arrays; flush: the references see subnormal inputs as zeros, as XLA does (False for
    functions of the bits, such as frexp, which must not flush); d1ref, d2ref: closed-form
    float64 derivatives (the d1 and d2 parts' leaves) where jax's own are wrong.
    """

    kinds: tuple[str, ...]
    call: Callable | None = None
    ref: Callable | str | None = None
    order: int = 2
    ulps: float = ULPS
    dulps: float = DULPS
    empty: bool = True
    flush: bool = True
    d1ref: Callable | None = None
    d2ref: Callable | None = None
    atol: float = 0.0  # derivatives: also right within atol * eps of the reference (exact zeros that cancel)
    defined_only: bool = (
        False  # derivatives: not compared where ours and jax's or the reference's value are nan
    )
    wrt: tuple[int, ...] | None = None  # the arguments differentiated (None: every floating one)


def fn_name(key: str) -> str:
    """The function a table key sweeps (``sum[axis=0]`` sweeps ``sum``)."""
    return key.split("[", 1)[0]


@dataclass
class Case:
    key: str
    sig: Sig
    inputs: list
    diff: tuple[int, ...]  # the floating arguments, differentiated

    def call(self, xp, *args):
        if self.sig.call is None:
            return getattr(xp, fn_name(self.key))(*args)
        return self.sig.call(xp, *args)


@dataclass
class Mismatch:
    key: str
    family: str
    part: str
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.key} [{self.family} {self.part}] {self.rule}: {self.detail}"


@dataclass
class Report:
    family: str
    functions: set = field(default_factory=set)
    cases: int = 0
    points: dict = field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    agreed_raises: int = 0
    mismatches: list = field(default_factory=list)
    better: list = field(default_factory=list)  # points where jax is off the reference and ours is not


_GRID_CACHE: dict = {}


def _inputs(kinds: tuple[str, ...], family: pts.Family, empty: bool) -> list:
    """The arrays of a signature, shared by every case with the same kinds (one placeholder each)."""
    key = (kinds, family.name, empty)
    if key not in _GRID_CACHE:
        if empty:
            dt = {"x": family.float, "i": family.int, "j": family.int, "b": bool}
            params = pts.PARAMETER_KINDS.items()
            dt.update({k: family.float if v.floating else family.int for k, v in params})
            arrays = [np.zeros((0,), dt[k]) for k in kinds]
        elif all(k in pts.ELEMENTWISE_KINDS for k in kinds):
            arrays = pts.elementwise(kinds, family)
        else:
            arrays = [pts.array_kind(k, family) for k in kinds]
        _GRID_CACHE[key] = arrays
    return _GRID_CACHE[key]


def make_cases(table: dict, family: pts.Family) -> list[Case]:
    """One case per table entry, and one on empty arrays per elementwise entry (values only: the
    shapes and dtypes; their derivatives would cost compile time for empty results)."""
    cases = []
    for key, sig in table.items():
        diff = tuple(k for k, kind in enumerate(sig.kinds) if pts.is_float_kind(kind))
        diff = diff if sig.wrt is None else tuple(k for k in diff if k in sig.wrt)
        cases.append(Case(key, sig, _inputs(sig.kinds, family, False), diff))
        if sig.empty and sig.kinds and all(k in pts.ELEMENTWISE_KINDS for k in sig.kinds):
            empty = replace(sig, order=0)
            cases.append(Case(f"{key}[empty]", empty, _inputs(sig.kinds, family, True), diff))
    return cases


def _aliases(cases: list[Case], ours_ns, jax_ns) -> dict[str, str]:
    """{key: the key of an earlier case it repeats}: a name that is the same function as another
    in both namespaces (arccos and acos), called the same way, runs once."""
    first, alias = {}, {}
    for case in cases:
        if case.sig.call is not None:
            continue
        name = fn_name(case.key)
        ident = (id(getattr(ours_ns, name, None)), id(getattr(jax_ns, name, None)), case.key[len(name) :])
        ident += (case.sig.kinds, case.sig.order)
        if ident in first:
            alias[case.key] = first[ident]
        else:
            first[ident] = case.key
    return alias


def _settled(case: Case, part: str, ours: dict, theirs: dict) -> bool:
    """Whether ours agrees with jax's within the bound at every point (or cannot be compared):
    then no float64 reference is needed to judge it."""
    o, t = ours.get((case.key, part)), theirs.get((case.key, part))
    if not isinstance(o, list) or not isinstance(t, list) or len(o) != len(t):
        return True
    bound = case.sig.ulps if part == "value" else case.sig.dulps
    for a, b in zip(o, t):
        if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind not in "fc":
            continue
        if not agree(a.real, b.real, bound).all() or not agree(a.imag, b.imag, bound).all():
            return False
    return True


def _jax_judges(case: Case, part: str, default: str) -> bool:
    """Whether jax in float64 may be the reference of a part: no closed form or scipy function is
    given for it (numpy's function of the same name may be missing, then jax stands in)."""
    if part == "value":
        ref = case.sig.ref if case.sig.ref is not None else default
    else:
        ref = case.sig.d1ref if part == "d1" else case.sig.d2ref
    return ref is None or isinstance(ref, str)


def _reference(case: Case, part: str, default: str) -> list | None:
    """The float64 reference's leaves of a part, or None where jax in float64 stands in."""
    if part == "value":
        ref = case.sig.ref if case.sig.ref is not None else default
    else:
        ref = case.sig.d1ref if part == "d1" else case.sig.d2ref
    if ref is None or ref == "jax":
        return None
    if case.sig.flush:
        args = [upcast_flushed(a) for a in case.inputs]
    else:
        args = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in case.inputs]
    fn = (lambda *xs: case.call(np, *xs)) if ref == "numpy" else ref
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return [np.asarray(v) for v in leaves(fn(*args))]
        except Exception as e:
            if ref == "numpy":  # numpy lacks it, or spells it differently: jax stands in
                return None
            # a closed form or scipy reference that raises is a bug of the reference: jax standing in
            # for it would judge every point of the part unnoticed
            raise AssertionError(f"{case.key} [{part}]: its reference raised {e!r}") from e


def _examples(case: Case, mask: np.ndarray, ours, theirs, ref) -> str:
    if np.ndim(mask) == 0:
        return ""
    where = np.argwhere(np.atleast_1d(mask))[:3]
    out = []
    for idx in where:
        idx = tuple(idx) if np.ndim(mask) else ()
        at = ""
        if np.ndim(mask) == 1 and all(np.shape(a) == np.shape(mask) for a in case.inputs):
            at = "(" + ", ".join(repr(a[idx].item()) for a in case.inputs) + ") "
        elif idx:
            at = f"[{', '.join(map(str, idx))}] "
        vals = [np.asarray(v)[idx] if np.ndim(v) else v for v in (ours, theirs, ref)]
        out.append(f"{at}ours {vals[0]!r} jax {vals[1]!r} ref {vals[2]!r}")
    return "; ".join(out)


def _leaf_label(case: Case, part: str, k: int, count: int) -> str:
    if count == 1:
        return ""
    if part == "value":
        return f" (result {k})"
    if part == "d1":
        return f" (arg {case.diff[k]})"
    pairs = [(i, j) for i in case.diff for j in case.diff if j >= i]
    return f" (args {pairs[k][0]}, {pairs[k][1]})"


def _outside_atol(bad: dict, ours, ref, atol: float) -> dict:
    """The rule failures left where ours is not within ``atol`` eps of the reference (a sum that
    cancels to 0 leaves rounding noise of the size of its terms, which ulps cannot judge)."""
    ours = np.asarray(ours)
    if ours.dtype.kind != "f":
        return bad
    with np.errstate(all="ignore"):
        ref = np.broadcast_to(np.asarray(ref, np.float64), ours.shape)
        near = np.abs(ours.astype(np.float64) - ref) <= atol * float(np.finfo(ours.dtype).eps)
    kept = {rule: mask & ~near for rule, mask in bad.items()}
    return {rule: mask for rule, mask in kept.items() if mask.any()}


def _compare_part(case, part, family, ours, theirs, refs, report: Report) -> None:
    if isinstance(theirs, NoDerivative) and isinstance(ours, NoDerivative | Exception):
        return
    if isinstance(theirs, Exception) and part != "value":
        return  # jax defines no such derivative: nothing to compare
    if isinstance(ours, Exception) and isinstance(theirs, Exception):
        report.agreed_raises += 1
        return
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        who, e = ("ours", ours) if isinstance(ours, Exception) else ("jax", theirs)
        msg = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
        report.mismatches.append(Mismatch(case.key, family.name, part, f"{who} raises", msg))
        return
    if len(ours) != len(theirs):
        rule = f"{len(ours)} results, jax has {len(theirs)}"
        report.mismatches.append(Mismatch(case.key, family.name, part, rule, ""))
        return
    bound = case.sig.ulps if part == "value" else case.sig.dulps
    refs = refs if refs is not None and len(refs) == len(theirs) else [None] * len(theirs)
    for k, (o, t, r) in enumerate(zip(ours, theirs, refs)):
        report.points[part] += int(np.size(t))
        bad, better = leaf_rules(o, t, r, bound, part == "value")
        if case.sig.atol and part != "value":
            bad = _outside_atol(bad, o, t if r is None else r, case.sig.atol)
        if better.any():
            report.better.append(f"{case.key} [{family.name} {part}]: {_examples(case, better, o, t, r)}")
        for rule, mask in bad.items():
            where = _leaf_label(case, part, k, len(theirs))
            detail = _examples(case, mask, o, t, r)
            report.mismatches.append(Mismatch(case.key, family.name, part, rule + where, detail))


def _side_by_side(ours_fn, jax_fn):
    """Both runs at once, jax's on a second thread: most of either is XLA compiling, which releases
    the GIL, so on two cores the sweep takes about the longer of the two instead of their sum."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        theirs = pool.submit(jax_fn)
        ours = ours_fn()
        return ours, theirs.result()


def sweep(
    table: dict,
    ours_ns,
    jax_ns,
    family: pts.Family,
    default_ref: str = "numpy",
    optimize_jax: bool = True,
    in_suite: int = 1,
) -> Report:
    """Run every case of ``table`` in ``family``'s dtypes and compare; see the module docstring.

    ``optimize_jax=False`` compiles jax's programs without LLVM's optimizations (half the compile
    time), for tables of data movement, reductions and sorting, whose numbers they do not change;
    ``in_suite``: the highest derivative compared in make test (see ``depth``)."""
    table = {key: replace(sig, order=min(sig.order, depth(in_suite))) for key, sig in table.items()}
    cases = make_cases(table, family)
    alias = _aliases(cases, ours_ns, jax_ns)
    run = [c for c in cases if c.key not in alias]
    ours, theirs = _side_by_side(
        lambda: run_ours(ours_ns, run), lambda: run_jax(jax_ns, run, x64=family.x64, optimize=optimize_jax)
    )
    if family.x64:
        ref64 = theirs
    else:  # only where ours and jax's disagree somewhere does the float64 reference decide
        unsettled = [
            c
            for c in run
            if any(_jax_judges(c, p, default_ref) and not _settled(c, p, ours, theirs) for p in PARTS)
        ]
        ref64 = run_jax(jax_ns, unsettled, x64=True, upcast=True)
    for results in (ours, theirs, ref64):
        results.update(
            {(key, p): results[(rep, p)] for key, rep in alias.items() for p in PARTS if (rep, p) in results}
        )
    report = Report(family.name, {fn_name(c.key) for c in cases}, len(cases))
    for case in cases:
        value_refs = None
        for part in PARTS:
            o, t, r64 = (side.get((case.key, part)) for side in (ours, theirs, ref64))
            refs = _reference(case, part, default_ref)
            refs = r64 if refs is None else refs
            refs = None if isinstance(refs, Exception) else refs
            if part == "value":
                value_refs = refs
            elif case.sig.defined_only:
                values = [side.get((case.key, "value")) for side in (ours, theirs)]
                o, t, refs = _where_defined(*values, value_refs, o, t, refs)
            _compare_part(case, part, family, o, t, refs, report)
    return report


def _where_defined(ours_value, theirs_value, value_ref, *parts):
    """The derivative parts with 0 where jax's derivative is no reference: where the value is
    undefined (nan in ours and in jax's value or the value's float64 reference: invalid parameters,
    as scipy answers nan where jax's formula goes on), and where jax's value is wrong and ours is
    right (a pmf off the integers). The value part itself still judges ours at those points."""
    if not isinstance(ours_value, list) or not isinstance(theirs_value, list) or len(ours_value) != 1:
        return parts
    ours0, theirs0 = (np.asarray(v[0], np.float64) for v in (ours_value, theirs_value))
    undefined = np.isnan(ours0)
    said_by = np.isnan(theirs0)
    if isinstance(value_ref, list) and len(value_ref) == 1 and np.shape(value_ref[0]) == undefined.shape:
        ref0 = np.asarray(value_ref[0], np.float64)
        said_by = said_by | np.isnan(ref0)
        # where jax's value is wrong (another nan/inf pattern than the reference's, or off by more
        # than WRONG relative) and ours is right, jax's slope is no reference: a pmf off the
        # integers is 0 (log -inf), jax's formula goes on between them
        undefined = (undefined & said_by) | (_near(ours0, ref0) & ~_near(theirs0, ref0))
    else:
        undefined = undefined & said_by
    if not undefined.any():
        return parts
    out = []
    for leaves_ in parts:
        if not isinstance(leaves_, list):
            out.append(leaves_)
            continue
        out.append(
            [
                np.where(undefined, np.zeros((), np.asarray(v).dtype), v)
                if np.shape(v) == undefined.shape
                else v
                for v in leaves_
            ]
        )
    return out


WRONG = 1e-3  # a value this far (relative) from the reference is wrong, not imprecise


def _near(x: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """x has the reference's nan/inf pattern and, where finite, lies within WRONG of it."""
    with np.errstate(all="ignore"):
        close = np.abs(x - ref) <= WRONG * np.abs(ref)
    same = (np.isnan(x) & np.isnan(ref)) | (np.isinf(x) & (x == ref))
    return same | (np.isfinite(x) & np.isfinite(ref) & close)


def listing_key(m: Mismatch, differences: dict) -> str | None:
    """The key of ``differences`` that lists a mismatch: ``name[@family][:part[:rule]]`` with name
    the function or the table key (``sum[axis=0]``) and rule the rule's first word or words
    (nan, inf, ulps, zero sign, exact, dtype, shape, ours raises, ...), most specific first."""
    rule = m.rule.split(" (")[0]
    rule = rule if rule in ("zero sign", "ours raises", "jax raises") else rule.split(" ")[0]
    for name in (m.key, fn_name(m.key)):
        for fam in (f"@{m.family}", ""):
            for tail in (f":{m.part}:{rule}", f":{m.part}", ""):
                if name + fam + tail in differences:
                    return name + fam + tail
    return None


def families(*in_suite: str) -> tuple[pts.Family, ...]:
    """The dtype families a table is swept in: both in the full sweep, the ones named in make test
    (both unless named)."""
    return tuple(f for f in pts.FAMILIES if FULL or not in_suite or f.name in in_suite)


def swept(key: str, in_suite: int = 1, run: tuple = pts.FAMILIES) -> bool:
    """Whether this run sweeps the part and family a listing key names (see ``depth``, ``families``):
    a listed difference of a part or family not swept is not stale."""
    head, *parts = key.split(":")
    family = head.split("@")[1] if "@" in head else None
    if family is not None and family not in {f.name for f in run}:
        return False
    return not parts or PARTS.index(parts[0]) <= depth(in_suite)


def listed(m: Mismatch, differences: dict) -> str | None:
    """The reason ``differences`` gives for a mismatch (see listing_key), or None."""
    key = listing_key(m, differences)
    return None if key is None else differences[key]


def summary(reports: list[Report]) -> str:
    """The counts the issue's note wants, one line per family."""
    lines = []
    for r in reports:
        p = r.points
        lines.append(
            f"{r.family}: {len(r.functions)} functions, {r.cases} cases, {p['value']} value points, "
            f"{p['d1']} first- and {p['d2']} second-derivative points, {len(r.mismatches)} mismatches"
        )
    return "\n".join(lines)


def public_functions(ours_ns, jax_ns) -> set[str]:
    """The public callables both namespaces have (classes and modules left out)."""
    names = set()
    for n in dir(ours_ns):
        if n.startswith("_") or not hasattr(jax_ns, n):
            continue
        a, b = getattr(ours_ns, n), getattr(jax_ns, n)
        if callable(a) and callable(b) and not inspect.isclass(b) and not inspect.ismodule(b):
            names.add(n)
    return names


def unneeded(reports, listing: dict, in_suite: int = 1, table: dict | None = None) -> list[str]:
    """The keys of ``listing`` (those about a function of ``table``, if given) that no mismatch of
    these reports needs, among the parts and families this run sweeps: fixed since they were listed."""
    run = tuple(f for f in pts.FAMILIES if f.name in {r.family for r in reports})
    found = {listing_key(m, listing) for r in reports for m in r.mismatches}
    keys = set(listing)
    if table is not None:
        names = {fn_name(k) for k in table} | set(table)
        keys = {k for k in keys if k.split(":")[0].split("@")[0] in names}
    return sorted(k for k in keys - found if swept(k, in_suite, run))


def check(report: Report, differences: dict, pending: dict | None = None) -> None:
    """Fail with every mismatch neither ``differences`` nor ``pending`` lists."""
    unexpected = [m for m in report.mismatches if not listed(m, {**differences, **(pending or {})})]
    assert not unexpected, f"{len(unexpected)} mismatches:\n" + "\n".join(map(str, unexpected))


def check_listing(reports, differences: dict, table: dict | None = None, in_suite: int = 1) -> None:
    """Fail for an entry of ``differences`` (about a function of ``table``, if given) that no
    mismatch of these reports needs: a fixed difference must leave the list."""
    stale = unneeded(list(reports), differences, in_suite, table)
    assert not stale, f"no mismatch needs these DIFFERENCES entries any more, remove them: {stale}"


def check_coverage(ours_ns, jax_ns, tables: tuple[dict, ...], skipped: dict, where: str) -> None:
    """Fail unless every public function both namespaces have is swept by an entry of ``tables``
    or SKIPPED with a reason, and every name they cover is one both have."""
    names = public_functions(ours_ns, jax_ns)
    covered = {fn_name(key) for table in tables for key in table} | set(skipped)
    missing = sorted(names - covered)
    assert not missing, f"add these to {where} (or SKIPPED with a reason): {missing}"
    unknown = sorted(covered - names)
    assert not unknown, f"{where} names functions the two namespaces do not both have: {unknown}"


def print_counts(title: str, reports, capsys, pending: dict | None = None, in_suite: int = 1) -> None:
    """The counts of a sweep (for the issue's note), and the PENDING keys no mismatch needs any more."""
    reports = list(reports)
    with capsys.disabled():
        if pending is not None:
            fixed = unneeded(reports, pending, in_suite)
            print(f"\n{len(pending)} open (PENDING); no mismatch needs these any more, remove them: {fixed}")
        print(f"\n{title} at special points:\n" + summary(reports))
