"""spec/strided.toml: loading, validation and the rules it states, as executable Python.

The tables state each rule in words with its basis (a doc clause or a PyTorch source);
this module is that rule written down once, so the generators can derive exhaustive
expected values (strides of every format for every swept shape, is_contiguous, the
preserve_format strides, the geometry of every view in the sweep). The table's literal
examples are checked against these functions when the spec loads, so a rule written
here that disagrees with the table's own examples fails the build.

Geometry is (sizes, strides, offset) in elements; storage sizes are in elements.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Sequence

INT64_MAX = 2**63 - 1
COPY_OPS = ("contiguous", "clone", "empty_like")  # ops whose argument is a memory format
VARIANTS = ("contiguous", "channels_last", "channels_last_3d", "reversed", "swap_last", "gap_last",
            "broadcast_first", "size1_odd")


@dataclasses.dataclass(frozen=True)
class Geometry:
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    @property
    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    def extent(self) -> int:
        """Elements of storage the view reaches (0 when empty): offset + 1 + sum((size-1)*stride)."""
        if self.numel == 0:
            return 0
        return self.offset + 1 + sum((s - 1) * st for s, st in zip(self.sizes, self.strides))


# The errors each op's rules can raise (RuleError.cause); spec/strided.toml's [[view]] row
# for the op must specify exactly these (dimension wrapping is [dim_wrap]'s).
VIEW_CAUSES = {
    "t": {"rank"}, "transpose": set(), "permute": {"length", "duplicate"},
    "narrow": {"zero_dim", "length", "start", "bounds"}, "select": {"zero_dim", "index"},
    "slice": {"zero_dim", "step"}, "expand": {"rank", "leading_minus1", "mismatch"}, "unsqueeze": set(),
    "squeeze": set(), "view": {"numel", "infer", "incompatible"}, "reshape": {"numel", "infer"},
    "as_strided": {"length", "negative", "offset", "bounds"}, "contiguous": set(), "clone": set(),
    "empty_like": set(),
}


class RuleError(Exception):
    """An operation the rules reject: `row` is the spec row, `cause` a key of its errors."""

    def __init__(self, row: str, cause: str, detail: str):
        super().__init__(f"{row}: {cause}: {detail}")
        self.row, self.cause, self.detail = row, cause, detail


def shape_token(sizes: Sequence[int]) -> str:
    return "x".join(str(s) for s in sizes) if sizes else "scalar"


def ints_token(values: Sequence[int]) -> str:
    return "_".join(str(v).replace("-", "m") for v in values) if values else "none"


# ------------------------------------------------------------------ memory formats
def format_order(fmt: dict, rank: int) -> list[int]:
    order = fmt["order"]
    return list(range(rank - 1, -1, -1)) if order == "reverse" else list(order)


def format_strides(fmt: dict, sizes: Sequence[int]) -> tuple[int, ...]:
    """The strides `empty(sizes, memory_format=fmt)` allocates. RuleError for a wrong rank."""
    if not fmt["allocates"]:
        raise RuleError(fmt["id"], "empty", f"{fmt['name']} does not allocate")
    if fmt["rank"] != "any" and len(sizes) != fmt["rank"]:
        raise RuleError(fmt["id"], "rank", f"{fmt['name']} needs rank {fmt['rank']}, got {len(sizes)}")
    strides = [0] * len(sizes)
    running = 1
    for d in format_order(fmt, len(sizes)):
        strides[d] = running
        running *= max(sizes[d], fmt["size_floor"])
    return tuple(strides)


def is_contiguous(fmt: dict, sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """is_contiguous(memory_format=fmt) as c10/core/Contiguity.h defines it."""
    if fmt["rank"] == "any":
        if any(s == 0 for s in sizes):
            return True
    elif len(sizes) != fmt["rank"]:
        return False
    expected = 1
    for d in format_order(fmt, len(sizes)):
        if sizes[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def non_overlapping_and_dense(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """c10 _compute_non_overlapping_and_dense: some permutation of the dims is contiguous."""
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    big = sorted((d for d in range(len(sizes)) if sizes[d] >= 2), key=lambda d: strides[d])
    require = 1
    for d in big:
        if strides[d] != require:
            return False
        require *= sizes[d]
    return True


def tensoriterator_order(n: int, should_swap) -> list[int]:
    """TensorIterator's dimension order, innermost first: an insertion sort over the reversed
    dimensions in which should_swap(d0, d1) > 0 moves d1 inside d0, < 0 stops, 0 passes."""
    perm = list(range(n - 1, -1, -1))
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def infer_dense_strides(sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """Dense strides in the input's dimension order (aten infer_dense_strides)."""
    n = len(sizes)
    if n == 0:
        return ()
    if n == 1:
        return (1,)

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    perm = tensoriterator_order(n, should_swap)
    out = [0] * n
    running = 1
    for d in perm:
        out[d] = running
        if sizes[d] > 1:
            running *= sizes[d]
    return tuple(out)


def dense_for_preserve(formats: dict[str, dict], sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """TensorImpl's is_non_overlapping_and_dense: contiguous in some format (so every empty
    tensor) or some permutation of the dimensions dense."""
    return (any(is_contiguous(f, sizes, strides) for f in formats.values() if f["allocates"]) or
            non_overlapping_and_dense(sizes, strides))


def preserve_strides(formats: dict[str, dict], sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    if dense_for_preserve(formats, sizes, strides):
        return tuple(strides)
    return infer_dense_strides(sizes, strides)


def layout_variant(variant: str, sizes: tuple[int, ...], formats: dict[str, dict]) -> tuple[int, ...] | None:
    """Strides of one sweep layout variant for `sizes` (None when it does not apply)."""
    n = len(sizes)
    contiguous = format_strides(formats["contiguous_format"], sizes)
    if variant == "contiguous":
        return contiguous
    if variant in ("channels_last", "channels_last_3d"):
        fmt = formats[variant]
        return format_strides(fmt, sizes) if n == fmt["rank"] else None
    if variant == "reversed":
        if n < 2:
            return None
        rev = format_strides(formats["contiguous_format"], sizes[::-1])
        return tuple(rev[::-1])
    if variant == "swap_last":
        if n < 2:
            return None
        swapped = list(sizes)
        swapped[-1], swapped[-2] = swapped[-2], swapped[-1]
        st = list(format_strides(formats["contiguous_format"], tuple(swapped)))
        st[-1], st[-2] = st[-2], st[-1]
        return tuple(st)
    if variant == "gap_last":
        return tuple(s * 2 for s in contiguous) if n else None
    if variant == "broadcast_first":
        return (0, *contiguous[1:]) if n else None
    if variant == "size1_odd":
        if 1 not in sizes:
            return None
        return tuple(7 if s == 1 else st for s, st in zip(sizes, contiguous))
    raise ValueError(variant)


def shapes(sets: list[dict]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for s in sets:
        for rank in s["ranks"]:
            out.extend(itertools.product(s["sizes"], repeat=rank))
    return out


# ------------------------------------------------------------------ views
def wrap_dim(dim: int, rank: int) -> int:
    n = max(rank, 1)
    if dim < -n or dim >= n:
        raise RuleError("view.dim_wrap", "dim", f"dim {dim} out of range [{-n}, {n - 1}]")
    return dim + n if dim < 0 else dim


def infer_shape(row: str, shape: Sequence[int], numel: int) -> tuple[int, ...]:
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise RuleError(row, "infer", "only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    out = list(shape)
    if infer:
        if known == 0 or numel % known:
            raise RuleError(row, "numel", f"shape {list(shape)} is invalid for input of size {numel}")
        out[infer[0]] = numel // known
    elif known != numel:
        raise RuleError(row, "numel", f"shape {list(shape)} is invalid for input of size {numel}")
    return tuple(out)


def compute_stride(old: Geometry, newshape: Sequence[int]) -> tuple[int, ...] | None:
    """aten computeStride: the strides of view(newshape), or None when none exist."""
    if not old.sizes:
        return tuple(1 for _ in newshape)
    if old.numel == 0:
        if tuple(newshape) == old.sizes:
            return old.strides
        strides = [0] * len(newshape)
        running = 1
        for d in range(len(newshape) - 1, -1, -1):
            strides[d] = running
            running *= max(newshape[d], 1)
        return tuple(strides)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base = old.strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old.sizes) - 1, -1, -1):
        tensor_numel *= old.sizes[tensor_d]
        if tensor_d == 0 or (old.sizes[tensor_d - 1] != 1 and
                             old.strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old.strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of one op: its geometry and whether it is a copy (a new storage)."""

    geometry: Geometry
    copies: bool


def apply(op: str, args: list, g: Geometry, storage_numel: int, formats: dict[str, dict]) -> Outcome:
    """Applies one view/copy op as the spec's rules define it. RuleError when it is rejected."""
    sizes, strides, offset, n = list(g.sizes), list(g.strides), g.offset, len(g.sizes)
    row = f"view.{op}"

    def view(sz, st, off=offset) -> Outcome:
        return Outcome(Geometry(tuple(sz), tuple(st), off), False)

    if op == "t":
        if n > 2:
            raise RuleError(row, "rank", f"t() on a {n}-D tensor")
        return apply("transpose", [0, 1 if n == 2 else 0], g, storage_numel, formats)
    if op == "transpose":
        d0, d1 = wrap_dim(args[0], n), wrap_dim(args[1], n)
        if n:
            sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
            strides[d0], strides[d1] = strides[d1], strides[d0]
        return view(sizes, strides)
    if op == "permute":
        if len(args) != n:
            raise RuleError(row, "length", f"{len(args)} dims for a rank-{n} tensor")
        dims = [wrap_dim(d, n) for d in args]
        if len(set(dims)) != len(dims):
            raise RuleError(row, "duplicate", f"dims {args}")
        return view([sizes[d] for d in dims], [strides[d] for d in dims])
    if op in ("narrow", "select", "slice") and n == 0:
        raise RuleError(row, "zero_dim", f"{op}() on a 0-dim tensor")
    if op == "narrow":
        start, length = args[1], args[2]
        if length < 0:
            raise RuleError(row, "length", f"negative length {length}")
        dim = wrap_dim(args[0], n)
        size = sizes[dim]
        if start < -size or start > size:
            raise RuleError(row, "start", f"start {start} outside [{-size}, {size}]")
        start = start + size if start < 0 else start
        if start + length > size:
            raise RuleError(row, "bounds", f"start ({start}) + length ({length}) exceeds dimension size ({size})")
        sizes[dim] = length
        return view(sizes, strides, offset + start * strides[dim])
    if op == "select":
        dim, index = wrap_dim(args[0], n), args[1]
        size = sizes[dim]
        if index < -size or index >= size:
            raise RuleError(row, "index", f"index {index} out of range for size {size}")
        index = index + size if index < 0 else index
        new_offset = offset + index * strides[dim]
        del sizes[dim], strides[dim]
        return view(sizes, strides, new_offset)
    if op == "slice":
        dim, start, end, step = wrap_dim(args[0], n), args[1], args[2], args[3]
        if step <= 0:
            raise RuleError(row, "step", f"step {step}")
        size = sizes[dim]
        start = start + size if start < 0 else start
        end = end + size if end < 0 else end
        start = min(max(start, 0), size)
        end = min(max(end, start), size)
        sizes[dim] = (end - start + step - 1) // step
        new_offset = offset + start * strides[dim]
        strides[dim] *= step
        return view(sizes, strides, new_offset)
    if op == "expand":
        target = list(args)
        if len(target) < n:
            raise RuleError(row, "rank", f"{len(target)} sizes for a rank-{n} tensor")
        if n == 0:  # a 0-dim tensor takes the sizes as given, every stride 0
            return view(target, [0] * len(target))
        m = len(target)
        out_sizes, out_strides = [0] * m, [0] * m
        for i in range(m - 1, -1, -1):
            d = n - (m - i)
            size = sizes[d] if d >= 0 else 1
            stride = strides[d] if d >= 0 else out_sizes[i + 1] * out_strides[i + 1]
            t = target[i]
            if t == -1:
                if d < 0:
                    raise RuleError(row, "leading_minus1", f"-1 at new leading dimension {i}")
                t = size
            if size != t:
                if size != 1:
                    raise RuleError(row, "mismatch", f"size {t} at dimension {i} vs existing {size}")
                size, stride = t, 0
            out_sizes[i], out_strides[i] = size, stride
        return view(out_sizes, out_strides)
    if op == "unsqueeze":
        dim = wrap_dim(args[0], n + 1)
        new_stride = 1 if dim >= n else sizes[dim] * strides[dim]
        sizes.insert(dim, 1)
        strides.insert(dim, new_stride)
        return view(sizes, strides)
    if op == "squeeze":
        if not args:
            keep = [d for d in range(n) if sizes[d] != 1]
        else:
            dim = wrap_dim(args[0], n)
            keep = [d for d in range(n) if not (d == dim and sizes[d] == 1)]
        return view([sizes[d] for d in keep], [strides[d] for d in keep])
    if op in ("view", "reshape"):
        shape = infer_shape(row, args, g.numel)
        st = compute_stride(g, shape)
        if st is not None:
            return view(shape, st)
        if op == "view":
            raise RuleError(row, "incompatible", f"view {list(shape)} of sizes {g.sizes} strides {g.strides}")
        return Outcome(Geometry(shape, format_strides(formats["contiguous_format"], shape), 0), True)
    if op == "as_strided":
        k = len(args) // 2
        if len(args) != 2 * k + 1:
            raise RuleError(row, "length", "sizes and strides differ in length")
        new = Geometry(tuple(args[:k]), tuple(args[k:2 * k]), args[-1])
        if any(s < 0 for s in new.strides):
            raise RuleError(row, "negative", f"strides {new.strides}")
        if new.offset < 0:
            raise RuleError(row, "offset", f"offset {new.offset}")
        if new.extent() > storage_numel:
            raise RuleError(row, "bounds", f"needs {new.extent()} elements, storage has {storage_numel}")
        return Outcome(new, False)
    if op in COPY_OPS:
        fmt = formats[args[0]]
        if op == "contiguous":
            # is_contiguous(preserve_format) reads as contiguous_format; only a tensor that
            # would need a copy makes preserve_format an error.
            if is_contiguous(fmt if fmt["allocates"] else formats["contiguous_format"], g.sizes, g.strides):
                return Outcome(g, False)
            if not fmt["allocates"]:
                raise RuleError(fmt["id"], "contiguous", "contiguous(preserve_format) of a non-contiguous tensor")
        if fmt["allocates"]:
            st = format_strides(fmt, g.sizes)
        else:
            st = preserve_strides(formats, g.sizes, g.strides)
        return Outcome(Geometry(g.sizes, st, 0), True)
    raise ValueError(f"unknown op {op!r}")


def allocated_geometry(sizes: Sequence[int], formats: dict[str, dict]) -> Geometry:
    return Geometry(tuple(sizes), format_strides(formats["contiguous_format"], sizes), 0)


def view_arg_sweep(op: str, g: Geometry) -> list[list]:
    """The argument lists the view table tries on a base of geometry g (valid and invalid)."""
    n = len(g.sizes)
    dims = list(range(-max(n, 1) - 1, max(n, 1) + 1))  # one past each end
    sizes = g.sizes
    if op == "t":
        return [[]]
    if op == "transpose":
        return [[a, b] for a in dims for b in dims if a <= b]
    if op == "permute":
        perms = [list(p) for p in itertools.permutations(range(n))] if n <= 3 else [list(range(n))[::-1]]
        bad = [list(range(n + 1)), [0] * n] if n else [[0]]
        if n >= 1:
            bad.append([d - n for d in range(n)])  # all negative: valid
        return perms + [b for b in bad if b not in perms]
    # Single-dimension ops try the first and last dimension (negative) and one out of range.
    some_dims = dedupe([[0], [-1], [max(n, 1)]]) if n else [[0], [-1], [1]]
    if op == "narrow":
        out = []
        for (dim,) in some_dims:
            size = sizes[wrap_dim_or(dim, n)] if n else 0
            for start in (-size - 1, -1, 0, 1, size):
                for length in (0, 1, size):
                    out.append([dim, start, length])
            # A negative length, alone and together with a bad start: which error comes first.
            out += [[dim, 0, -1], [dim, -size - 1, -1]]
        return dedupe(out)
    if op == "select":
        out = []
        for (dim,) in some_dims:
            size = sizes[wrap_dim_or(dim, n)] if n else 0
            for index in (-size - 1, -size, -1, 0, size - 1, size):
                out.append([dim, index])
        return dedupe(out)
    if op == "slice":
        out = []
        for (dim,) in some_dims:
            size = sizes[wrap_dim_or(dim, n)] if n else 0
            for start, end in ((0, INT64_MAX), (1, INT64_MAX), (-2, -1), (size + 1, INT64_MAX), (1, 0)):
                for step in (1, 2, 0):
                    out.append([dim, start, end, step])
        return dedupe(out)
    if op == "expand":
        out = [list(sizes), [2, *sizes], [1, *sizes]]
        if n:
            out += [[-1] * n, [-1, *sizes]]
        out.append([s if s != 1 else 5 for s in sizes])
        out.append([s + 1 for s in sizes] if n else [3])
        if n:
            out.append(list(sizes[1:]))
        return dedupe(out)
    if op == "unsqueeze":
        return [[d] for d in range(-n - 2, n + 2)]
    if op == "squeeze":
        return [[]] + [[d] for d in dims]
    if op in ("view", "reshape"):
        numel = g.numel
        cands = [[numel], [-1], [1, numel], [numel, 1], [-1, 1], [-1, -1], list(sizes[::-1]), [numel + 1]]
        if n >= 2:
            cands.append([sizes[0] * sizes[1], *sizes[2:]])
            cands.append([*sizes[:-2], sizes[-2] * sizes[-1]])
        for a in range(2, 5):
            if numel and numel % a == 0:
                cands.append([a, numel // a])
                cands.append([numel // a, -1])
        if numel == 0:
            cands = [c for c in cands if -1 not in c]
        return dedupe(cands)
    if op == "as_strided":
        ext = g.extent()
        return dedupe([[*sizes, *g.strides, g.offset], [2, 2, 1, 2, 0], [3, 1, 0], [2, 2, ext],
                       [1, 1, ext - 1 if ext else 0], [2, -1, 0], [2, 1, -1], [2, 3, 1]])
    if op in COPY_OPS:
        return [["contiguous_format"], ["channels_last"], ["channels_last_3d"], ["preserve_format"]]
    raise ValueError(op)


def wrap_dim_or(dim: int, n: int) -> int:
    """dim wrapped into range, or 0 when out of range (the sweep still tries it)."""
    try:
        return wrap_dim(dim, n)
    except RuleError:
        return 0


def dedupe(items: list[list]) -> list[list]:
    seen, out = set(), []
    for it in items:
        key = tuple(it)
        if key not in seen:
            seen.add(key)
            out.append(it)
    return out
