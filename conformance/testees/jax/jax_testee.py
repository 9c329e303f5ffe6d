"""JAX as a tensor-cts testee (conformance/protocol/PROTOCOL.md), with 64-bit types off or on.

    # JAX's default: 32-bit types only (jax_enable_x64 off)
    bazel run //conformance:run -- --candidate=jax
    # jax_enable_x64 on: 64-bit types, Python floats are float64
    bazel run //conformance:run -- --candidate=jax_x64

--x64 sets JAX_ENABLE_X64=1 before JAX is imported (JAX reads it at import: "Double (64bit)
precision", https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html); without it
the environment decides. The handshake's name and build say what jax.config reports.

JAX's arrays are immutable values on a device: no strides, no storage offset, no memory the
caller can write (the same page, "In-place updates"), no memory formats. The testee declares
strides unsupported (`not_supported`), answers meta with "strides": [] and "storage_offset": 0
as PROTOCOL.md "Strides" says, and leaves every operation JAX has no API for unimplemented, so
the suite judges the rest (docs/main-job.md "A case's checks, values as a capability").

Every answer is JAX's own; this file translates the suite's torch-shaped requests into the
jax.numpy call a user would write and nothing else:

  dtypes            jnp.dtype(name), jnp.finfo / jnp.iinfo; is_floating_point / is_complex from
                    jnp.issubdtype (jnp.floating, jnp.complexfloating: bfloat16 is a floating type
                    there), is_signed from the dtype's minimum (iinfo/finfo .min < 0). complex32
                    does not exist (jnp.zeros((), 'complex32') refuses it): declared missing.
                    Under x64 off the 64-bit names exist and jnp.promote_types answers them, but
                    an array asked for as int64 / float64 / complex128 is made 32-bit ("Explicitly
                    requested dtype ... is not available, and will be truncated"): the testee
                    asks JAX and reports what JAX made.
  promotion         jnp.promote_types, jnp.result_type (arrays, 0-d arrays and Python numbers as
                    given: Python scalars are weakly typed, "Type promotion semantics",
                    https://docs.jax.dev/en/latest/type_promotion.html).
  can_cast          jnp.can_cast(from, to, casting='same_kind') (torch.can_cast is the rule for
                    writing a result into an output; same_kind is NumPy's ufunc output rule).
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to
                    the dtype (numpy / ml_dtypes are JAX's host dtypes), jnp.asarray puts them on
                    the device. Meta: shape, dtype, the array's device (jax.Device.platform:
                    'cpu'; a GPU is 'cuda:<id>').
  arithmetic        jnp.add / jnp.subtract / jnp.multiply / jnp.true_divide. JAX has no alpha
                    (NotSupported for an alpha other than the integer 1), no out= and no in-place
                    update (binary_out, binary_inplace: not implemented).
  memory formats    not implemented: JAX has no memory format argument (jnp.empty takes none) and
                    no strides (empty_strided, is_contiguous).
  views             jax.Array.T (t), jnp.swapaxes (transpose), jnp.transpose(axes) (permute),
                    basic indexing (narrow, slice, select), jnp.broadcast_to (expand),
                    jnp.expand_dims, jnp.squeeze, jnp.reshape. JAX's results are new arrays, not
                    views (there is nothing to alias); view (a reshape that never copies) and
                    as_strided have no JAX equivalent: not implemented.
  format copies     clone: jax.Array.copy() for contiguous_format / preserve_format;
                    jnp.empty_like; contiguous: not implemented. channels_last: NotSupported.
  asarray           jnp.asarray(obj, dtype=, device=, copy=): host arrays as NumPy arrays over the
                    suite's memory, NumPy scalars as NumPy scalars, buffers as memoryviews; a
                    device string as jax.devices(platform)[index]. jnp.asarray does not read
                    DLPack capsules: NotSupported.
  DLPack            jax.Array.__dlpack__() and jnp.from_dlpack(x), x the kit's DLPackProducer
                    (its __dlpack__ hands over the suite's capsule, __dlpack_device__ its device).

Not implemented, because JAX has no such API: default_dtype, legacy_constructor, devices (no
torch.device-like object built from a string), default_device, storage, storage_values,
data_ptr, sparse layouts, autograd's requires_grad_.
"""

import os
import sys

_X64_FLAG = "--x64"
for _arg in sys.argv[1:]:
    if _arg == _X64_FLAG:
        os.environ["JAX_ENABLE_X64"] = "1"
    else:
        sys.exit(f"jax_testee.py: unknown argument {_arg!r} (usage: jax_testee.py [--x64])")
# The CPU backend only: JAX would otherwise probe for GPU and TPU plugins at start.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import warnings  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import tcts_testee  # noqa: E402

# JAX warns where it truncates a 64-bit request under x64 off; stderr is no channel of the
# protocol, and the answers (the dtype JAX made) are what counts.
warnings.simplefilter("ignore")

X64 = bool(jax.config.jax_enable_x64)

UFUNC = {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "div": jnp.true_divide}
# torch.memory_format values JAX's single layout answers: a dense array in its default order.
LAYOUT_FREE = {"contiguous_format", "preserve_format"}


def translated(op):
    if op not in UFUNC:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to jax.numpy")
    return UFUNC[op]


def jdtype(name):
    """JAX's dtype for a spec dtype name, by jnp.dtype."""
    try:
        return jnp.dtype(name)
    except TypeError as e:
        raise tcts_testee.NotSupported(f"JAX {jax.__version__} has no dtype {name!r} (jnp.dtype: {e})") from None


def name_of(d):
    return jnp.dtype(d).name


def device_of(name):
    """A jax.Device for a torch-style device string: 'cpu', 'cuda' or 'cuda:N'."""
    kind, _, index = name.partition(":")
    platform = {"cpu": "cpu", "cuda": "gpu"}.get(kind)
    if platform is None:
        raise tcts_testee.NotSupported(f"JAX has no {kind!r} platform")
    try:
        devices = jax.devices(platform)
    except RuntimeError as e:  # this jaxlib has no backend for the platform (a CPU-only wheel has no GPU)
        raise tcts_testee.NotSupported(f"this JAX has no {platform!r} backend (jax.devices: {e})") from None
    return devices[int(index) if index else 0]


def device_name(d):
    return "cpu" if d.platform == "cpu" else f"cuda:{d.id}"


def layout_free(memory_format):
    if memory_format not in LAYOUT_FREE:
        raise tcts_testee.NotSupported(f"JAX has no memory format {memory_format!r}: its arrays have one layout")


class JaxTestee(tcts_testee.Testee):
    name = f"jax (jax_enable_x64 {'on' if X64 else 'off'})"
    version = jax.__version__
    build = (f"Python {sys.version.split()[0]}, JAX {jax.__version__}, jaxlib {jax.lib.__version__}, NumPy "
             f"{np.__version__}; jax_enable_x64={X64}, backend {jax.default_backend()}")
    missing_dtypes = {"complex32"}
    not_supported = {"strides"}

    # -- dtypes
    def dtype_from_name(self, name):
        return name_of(jnp.dtype(name))

    def dtype_info(self, dtype):
        d = jdtype(dtype)
        if jnp.issubdtype(d, jnp.integer):
            signed = jnp.iinfo(d).min < 0
        elif jnp.issubdtype(d, jnp.inexact):
            signed = jnp.finfo(d).min < 0
        else:  # bool has no minimum below zero
            signed = False
        return {"itemsize": d.itemsize, "is_floating_point": bool(jnp.issubdtype(d, jnp.floating)),
                "is_complex": bool(jnp.issubdtype(d, jnp.complexfloating)), "is_signed": bool(signed)}

    def finfo(self, dtype):
        f = jnp.finfo(jdtype(dtype))
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min),
                "tiny": float(f.tiny)}

    # -- promotion and casting
    def promote_types(self, a, b):
        return name_of(jnp.promote_types(jdtype(a), jdtype(b)))

    def result_type(self, a, b):
        return name_of(jnp.result_type(a, b))

    def can_cast(self, from_, to):
        return bool(jnp.can_cast(jdtype(from_), jdtype(to), casting="same_kind"))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = jdtype(dtype)
        return jnp.asarray(tcts_testee.host_values(np, values, d).reshape(sizes), dtype=d)

    def meta(self, t):
        (d,) = t.devices()
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": [], "storage_offset": 0,
                "device": device_name(d)}

    def values(self, t):
        host = np.asarray(t)
        if host.dtype == jnp.bfloat16:  # ml_dtypes' scalars are no Python floats; float32 holds every bfloat16
            host = host.astype(np.float32)
        return host.ravel().tolist()

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"jax.numpy's {translated(op).__name__} has no alpha (asked for "
                                           f"alpha={alpha!r})")
        return translated(op)(a, b)

    # -- views (new arrays in JAX)
    def t(self, t):
        return t.T

    def transpose(self, t, dim0, dim1):
        return jnp.swapaxes(t, dim0, dim1)

    def permute(self, t, dims):
        return jnp.transpose(t, dims)

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return jnp.broadcast_to(t, sizes)

    def unsqueeze(self, t, dim):
        return jnp.expand_dims(t, dim)

    def squeeze(self, t, dim):
        return jnp.squeeze(t) if dim is None else jnp.squeeze(t, axis=dim)

    def reshape(self, t, sizes):
        return jnp.reshape(t, sizes)

    # -- format copies
    def clone(self, t, memory_format):
        layout_free(memory_format)
        return t.copy()

    def empty_like(self, t, memory_format):
        layout_free(memory_format)
        return jnp.empty_like(t)

    # -- devices
    def empty_on(self, sizes, dtype, device):
        d = jdtype(dtype)
        if device is None:
            return jnp.empty(sizes, dtype=d)
        return jnp.empty(sizes, dtype=d, device=device_of(device))

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if type(source).__name__ == "PyCapsule":
            raise tcts_testee.NotSupported("jnp.asarray does not read DLPack capsules (JAX imports DLPack through "
                                           "jnp.from_dlpack)")
        if isinstance(source, tcts_testee.HostArray):
            source = source.to_numpy(np, jdtype(source.dtype))  # an ndarray, or a NumPy scalar
        kw = {"copy": copy}
        if dtype is not None:
            kw["dtype"] = jdtype(dtype)
        if device is not None:
            kw["device"] = device_of(device)
        return jnp.asarray(source, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return t.__dlpack__()

    def from_dlpack(self, capsule):
        return jnp.from_dlpack(tcts_testee.DLPackProducer(capsule))


if __name__ == "__main__":
    tcts_testee.serve(JaxTestee())
