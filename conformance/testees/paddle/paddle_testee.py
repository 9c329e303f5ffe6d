"""PaddlePaddle as a tensor-cts testee (conformance/protocol/PROTOCOL.md): its Tensor API on the CPU
(the paddlepaddle CPU wheel), judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=paddle

Paddle's API is PyTorch-shaped (paddle.add(x, y, alpha=), out=, Tensor.strides, as_strided, view,
narrow, asarray(copy=, device=), DLPack), and its tensors are strided: the testee translates each
request into the paddle call of the same name and meaning, and nothing else:

  dtypes            paddle's dtype objects by the spec's names (paddle.float32, paddle.bfloat16, ...);
                    no complex32 (missing_dtypes). dtype_info: Tensor.element_size() of an empty
                    tensor, paddle.is_floating_point / paddle.is_complex of it, is_signed from
                    paddle.iinfo / paddle.finfo's min. finfo: paddle.finfo. default_dtype:
                    paddle.get_default_dtype / set_default_dtype. Paddle has no promote_types,
                    result_type or can_cast: not implemented.
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to the
                    dtype, paddle.to_tensor copies them (bfloat16 from float32, exact for the
                    values of a bfloat16 tensor). Meta: Tensor.shape, Tensor.strides (elements),
                    Tensor.offset (bytes: divided by Tensor.element_size()), Tensor.place.
                    Values: Tensor.numpy() (bfloat16 through Tensor.astype('float32')).
  arithmetic        paddle.add / subtract (with alpha) / multiply / divide, out= for binary_out,
                    Tensor.add_ / subtract_ / multiply_ / divide_ for binary_inplace;
                    Python numbers through Tensor's operators (Tensor.__add__, __radd__, ...) where an
                    operand is one; two Python numbers have no paddle call: NotSupported.
  views             paddle.t, paddle.transpose(x, dim0, dim1) (transpose), paddle.transpose(x,
                    perm) (permute), paddle.narrow, indexing (select, slice),
                    paddle.expand, paddle.unsqueeze, paddle.squeeze, paddle.view, paddle.reshape,
                    paddle.as_strided (its offset in bytes: the element offset times
                    Tensor.element_size()). is_contiguous: Tensor.is_contiguous().
  format copies     contiguous: Tensor.contiguous(); clone: Tensor.clone(); empty_like:
                    paddle.empty_like; empty: paddle.empty. Paddle's calls take no memory format:
                    each stands for PyTorch's default of the call (contiguous_format for empty,
                    contiguous and is_contiguous; preserve_format for clone and empty_like).
  devices           'cpu' is paddle's CPU place; empty_on: paddle.empty(device='cpu').
  asarray           paddle.asarray(obj, dtype=, device=, copy=): host arrays as NumPy arrays over the
                    suite's memory, NumPy scalars, memoryviews, DLPack capsules and Python values
                    as given.
  DLPack            paddle.utils.dlpack.to_dlpack(x) and from_dlpack(the kit's DLPackProducer).
  data_ptr          Tensor.data_ptr().

Not implemented, because Paddle has no such API: dtype_from_name, promote_types, result_type,
can_cast, legacy_constructor, devices as objects from strings, storage, sparse layouts. Not
translated yet, though Paddle has them: its default device (paddle.get_device / set_device,
paddle.device.device_guard) and autograd's requires_grad_ (Tensor.requires_grad_, asarray's
requires_grad).
"""

import os
import sys
import warnings

if sys.argv[1:]:
    sys.exit(f"paddle_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")
os.environ.setdefault("GLOG_minloglevel", "2")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import paddle  # noqa: E402

import tcts_testee  # noqa: E402

warnings.simplefilter("ignore")  # stderr is no channel of the protocol
paddle.set_device("cpu")

NAMES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
         "float32", "float64", "complex64", "complex128")
DTYPES = {name: getattr(paddle, name) for name in NAMES}
BY_DTYPE = {d: name for name, d in DTYPES.items()}
FUNCTION = {"add": paddle.add, "sub": paddle.subtract, "mul": paddle.multiply, "div": paddle.divide}
INPLACE = {"add": "add_", "sub": "subtract_", "mul": "multiply_", "div": "divide_"}
OPERATOR = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__"}
REFLECTED = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__"}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}


def pdtype(name):
    if name not in DTYPES:
        raise tcts_testee.NotSupported(f"paddle {paddle.__version__} has no dtype {name!r}")
    return DTYPES[name]


def name_of(d):
    return BY_DTYPE.get(d) or str(d).removeprefix("paddle.")


def only_default(memory_format, default, what):
    """Paddle's calls take no memory format: each is translated for the format that is PyTorch's
    default for the call (contiguous_format for empty and contiguous, preserve_format for clone
    and empty_like) and answers NotSupported for another."""
    if memory_format != default:
        raise tcts_testee.NotSupported(f"{what} takes no memory format (asked for {memory_format!r})")


def only_contiguous(memory_format, what):
    only_default(memory_format, "contiguous_format", what)


def device_name(t):
    return "cpu" if t.place.is_cpu_place() else str(t.place)


def translated(op):
    if op not in FUNCTION:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to paddle")
    return FUNCTION[op]


def alpha_kwargs(op, alpha):
    if op in ("add", "sub"):
        return {} if (type(alpha) is int and alpha == 1) else {"alpha": alpha}
    return {}


class PaddleTestee(tcts_testee.Testee):
    name = "paddle (CPU)"
    version = paddle.__version__
    build = f"Python {sys.version.split()[0]}, PaddlePaddle {paddle.__version__} (CPU), NumPy {np.__version__}"
    missing_dtypes = {"complex32"}

    # -- dtypes
    def dtype_info(self, dtype):
        d = pdtype(dtype)
        t = paddle.empty([0], dtype=d)
        if paddle.is_floating_point(t) or paddle.is_complex(t):
            signed = paddle.finfo(d).min < 0
        elif d == paddle.bool:
            signed = False
        else:
            signed = paddle.iinfo(d).min < 0
        return {"itemsize": t.element_size(), "is_floating_point": bool(paddle.is_floating_point(t)),
                "is_complex": bool(paddle.is_complex(t)), "is_signed": bool(signed)}

    def finfo(self, dtype):
        f = paddle.finfo(pdtype(dtype))
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min), "tiny": float(f.tiny)}

    def default_dtype(self):
        return paddle.get_default_dtype()

    def set_default_dtype(self, dtype):
        paddle.set_default_dtype(pdtype(dtype))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = pdtype(dtype)
        host_type = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
        return paddle.to_tensor(tcts_testee.host_values(np, values, host_type).reshape(sizes), dtype=d)

    def meta(self, t):
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": list(t.strides),
                "storage_offset": t.offset // t.element_size(), "device": device_name(t)}

    def values(self, t):
        if t.dtype == paddle.bfloat16:
            t = t.astype("float32")
        return np.asarray(t.numpy()).ravel().tolist()

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        kw = alpha_kwargs(op, alpha)
        if isinstance(a, paddle.Tensor) and isinstance(b, paddle.Tensor):
            return translated(op)(a, b, **kw)
        if kw:
            raise tcts_testee.NotSupported(f"paddle's operators take no alpha (asked for alpha={alpha!r} with a number)")
        if isinstance(a, paddle.Tensor):
            return getattr(a, OPERATOR[op])(b)
        if isinstance(b, paddle.Tensor):
            return getattr(b, REFLECTED[op])(a)
        raise tcts_testee.NotSupported("two Python numbers: no paddle call")

    def binary_out(self, op, a, b, alpha, out):
        if not (isinstance(a, paddle.Tensor) and isinstance(b, paddle.Tensor)):
            raise tcts_testee.NotSupported("paddle's out= functions take two tensors")
        translated(op)(a, b, out=out, **alpha_kwargs(op, alpha))
        return out

    def binary_inplace(self, op, target, other, alpha):
        """Tensor.add_ / subtract_ (with alpha) / multiply_ / divide_ of a tensor. paddle.Tensor has
        no in-place operators (no __iadd__: x += 1.5 rebinds x through __add__), and the methods
        take a tensor: NotSupported for a Python number."""
        if op not in INPLACE:
            raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to paddle")
        if not isinstance(other, paddle.Tensor):
            raise tcts_testee.NotSupported("paddle's in-place methods take a tensor, and paddle.Tensor has no "
                                           "in-place operator for a Python number")
        getattr(target, INPLACE[op])(other, **alpha_kwargs(op, alpha))

    def empty(self, sizes, dtype, layout, memory_format):
        if layout != "strided":
            raise tcts_testee.NotSupported(f"paddle.empty makes dense tensors only (asked for {layout!r})")
        only_contiguous(memory_format, "paddle.empty")
        return paddle.empty(list(sizes), dtype=pdtype(dtype))

    def is_contiguous(self, t, memory_format):
        only_contiguous(memory_format, "Tensor.is_contiguous")
        return bool(t.is_contiguous())

    def as_strided(self, t, sizes, strides, storage_offset):
        # paddle.as_strided's offset is in bytes from the start of the storage; PyTorch's in elements.
        return paddle.as_strided(t, list(sizes), list(strides), storage_offset * t.element_size())

    # -- views
    def t(self, t):
        return paddle.t(t)

    def transpose(self, t, dim0, dim1):
        return paddle.transpose(t, dim0, dim1)

    def permute(self, t, dims):
        return paddle.transpose(t, list(dims))

    def narrow(self, t, dim, start, length):
        return paddle.narrow(t, dim, start, length)

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return paddle.expand(t, list(sizes))

    def unsqueeze(self, t, dim):
        return paddle.unsqueeze(t, dim)

    def squeeze(self, t, dim):
        return paddle.squeeze(t) if dim is None else paddle.squeeze(t, dim)

    def view(self, t, sizes):
        return paddle.view(t, list(sizes))

    def reshape(self, t, sizes):
        return paddle.reshape(t, list(sizes))

    # -- format copies
    def contiguous(self, t, memory_format):
        only_contiguous(memory_format, "Tensor.contiguous")
        return t.contiguous()

    def clone(self, t, memory_format):
        only_default(memory_format, "preserve_format", "Tensor.clone")
        return t.clone()

    def empty_like(self, t, memory_format):
        only_default(memory_format, "preserve_format", "paddle.empty_like")
        return paddle.empty_like(t)

    def data_ptr(self, t):
        return t.data_ptr()

    # -- devices
    def empty_on(self, sizes, dtype, device):
        if device is None:
            return paddle.empty(list(sizes), dtype=pdtype(dtype))
        return paddle.empty(list(sizes), dtype=pdtype(dtype), device=device)

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if isinstance(source, tcts_testee.HostArray):  # an ndarray, or a NumPy scalar (ml_dtypes' bfloat16)
            source = source.to_numpy(np, ml_dtypes.bfloat16 if source.dtype == "bfloat16" else None)
        kw = {"copy": copy}
        if dtype is not None:
            kw["dtype"] = pdtype(dtype)
        if device is not None:
            kw["device"] = device
        return paddle.asarray(source, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return paddle.utils.dlpack.to_dlpack(t)

    def from_dlpack(self, capsule):
        return paddle.utils.dlpack.from_dlpack(tcts_testee.DLPackProducer(capsule))


if __name__ == "__main__":
    tcts_testee.serve(PaddleTestee())
