"""TensorFlow's own ops as a tensor-cts testee (conformance/protocol/PROTOCOL.md): tf.math, tf.reshape,
tf.transpose and the rest, without tf.experimental.numpy's NumPy behaviour, on TensorFlow's CPU wheel,
judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=tensorflow_ops

The candidate `tensorflow` judges tf.experimental.numpy after tnp.experimental_enable_numpy_behavior(),
which changes the promotion of TensorFlow's own operators process-wide; this testee never calls it,
so tf.math.add and friends keep TensorFlow's rule: both operands of one dtype, a Python number
converted to the tensor's dtype (tensorflow/python/framework/ops.py convert_to_tensor), and an
InvalidArgumentError for two tensors of different dtypes (the op kernel's type check). TensorFlow's
tensors are immutable values on a device, with no strides, storage or memory formats: the testee
declares strides unsupported (`not_supported`), answers meta with "strides": [] and
"storage_offset": 0 (PROTOCOL.md "Strides"), leaves unimplemented every operation TensorFlow's API
has no function for, and translates the rest into the call a user writes:

  dtypes            tf.as_dtype(name), TensorFlow's parser (dtype_from_name; no complex32:
                    missing_dtypes); names back by tf.DType.name. dtype_info: tf.DType.size,
                    is_floating, is_complex, and is_signed as not tf.DType.is_unsigned (TF's one
                    word on signedness). TF has no finfo outside tf.experimental.numpy: not
                    implemented.
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to the
                    dtype's NumPy type, tf.constant(host, dtype) makes the tensor. Values: .numpy().
  arithmetic        tf.math.add / subtract / multiply / truediv (`/`: TensorFlow's true division,
                    which makes int8/int16/uint8/uint16 float32 and int32/int64 float64); no alpha
                    (NotSupported for an alpha other than the integer 1), no out= and no in-place
                    update. A Python number operand is passed as the user writes it.
  views             tf.transpose (t, transpose, permute), Python indexing (narrow, slice, select:
                    tf.strided_slice), tf.broadcast_to (expand), tf.expand_dims, tf.squeeze,
                    tf.reshape. No view and no as_strided.
  format copies     clone: tf.identity, for contiguous_format and preserve_format only. TF has no
                    contiguous and no empty_like: not implemented.
  devices           'cpu' is '/CPU:0'. TF has no empty: empty_on not implemented.
  asarray           tf.convert_to_tensor(obj, dtype=), inside tf.device(...) for a device: host
                    arrays as NumPy arrays over the suite's memory, NumPy scalars, Python values,
                    DLPack capsules as given. It has no copy argument: copy=True and copy=False are
                    NotSupported.
  DLPack            tf.experimental.dlpack.to_dlpack(x) and from_dlpack(capsule).

Not implemented, because TensorFlow's API has no such function: promote_types, result_type,
can_cast, finfo, default_dtype, legacy_constructor, devices as objects, default_device, storage,
data_ptr, sparse layouts, contiguous, empty_like, empty_on, autograd's requires_grad_, binary_out
and binary_inplace.
"""

import os
import sys

if sys.argv[1:]:
    sys.exit(f"tensorflow_ops_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")
# TensorFlow's C++ log lines (oneDNN, CPU features, a refused op's kernel) go to stderr; only errors are kept.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tcts_testee  # noqa: E402
from tf_names import NAMES, device_of, meta, name_of, tdtype, values  # noqa: E402

OPS = {"add": tf.math.add, "sub": tf.math.subtract, "mul": tf.math.multiply, "div": tf.math.truediv}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}


def translated(op):
    if op not in OPS:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to a TensorFlow op")
    return OPS[op]


def perm_swapping(rank, dim0, dim1):
    """tf.transpose's perm that swaps two dims (TensorFlow has no swapaxes of its own): each dim
    wrapped as TensorFlow wraps perm entries; an out-of-range dim goes to tf.transpose as given."""
    perm = list(range(rank))
    d0, d1 = (d + rank if -rank <= d < 0 else d for d in (dim0, dim1))
    if 0 <= d0 < rank and 0 <= d1 < rank:
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return perm
    return [dim0, dim1] + perm[2:]  # not a permutation: TensorFlow's own refusal answers


class TensorFlowOpsTestee(tcts_testee.Testee):
    name = "tensorflow (TensorFlow ops)"
    version = tf.__version__
    build = (f"Python {sys.version.split()[0]}, TensorFlow {tf.__version__} (tensorflow-cpu), NumPy {np.__version__}; "
             "TensorFlow's own ops, no tf.experimental.numpy NumPy behaviour")
    missing_dtypes = {"complex32"}
    not_supported = {"strides"}

    # -- dtypes
    def dtype_from_name(self, name):
        return name_of(tf.as_dtype(name))  # TensorFlow's parser: its TypeError for a name it lacks

    def dtype_info(self, dtype):
        d = tdtype(dtype)
        return {"itemsize": d.size, "is_floating_point": bool(d.is_floating), "is_complex": bool(d.is_complex),
                "is_signed": not d.is_unsigned}

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = tdtype(dtype)
        return tf.constant(tcts_testee.host_values(np, values, d.as_numpy_dtype).reshape(sizes), dtype=d)

    def meta(self, t):
        return meta(t)

    def values(self, t):
        return values(t)

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"tf.math.{translated(op).__name__} has no alpha (asked for alpha={alpha!r})")
        return translated(op)(a, b)

    # -- views (new tensors in TensorFlow)
    def t(self, t):
        return tf.transpose(t)

    def transpose(self, t, dim0, dim1):
        return tf.transpose(t, perm_swapping(len(t.shape), dim0, dim1))

    def permute(self, t, dims):
        return tf.transpose(t, list(dims))

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return tf.broadcast_to(t, list(sizes))

    def unsqueeze(self, t, dim):
        return tf.expand_dims(t, dim)

    def squeeze(self, t, dim):
        return tf.squeeze(t) if dim is None else tf.squeeze(t, axis=[dim])

    def reshape(self, t, sizes):
        return tf.reshape(t, list(sizes))

    # -- format copies
    def clone(self, t, memory_format):
        if memory_format not in LAYOUT_FREE:
            raise tcts_testee.NotSupported(f"TensorFlow has no memory format {memory_format!r}: its tensors have one layout")
        return tf.identity(t)

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if copy is not None:
            raise tcts_testee.NotSupported(f"tf.convert_to_tensor has no copy argument (asked for copy={copy!r})")
        if isinstance(source, tcts_testee.HostArray):
            source = source.to_numpy(np, tdtype(source.dtype).as_numpy_dtype if source.dtype in NAMES else None)
        kw = {} if dtype is None else {"dtype": tdtype(dtype)}
        if device is None:
            return tf.convert_to_tensor(source, **kw)
        with tf.device(device_of(device)):
            return tf.convert_to_tensor(source, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return tf.experimental.dlpack.to_dlpack(t)

    def from_dlpack(self, capsule):
        return tf.experimental.dlpack.from_dlpack(capsule)


if __name__ == "__main__":
    tcts_testee.serve(TensorFlowOpsTestee())
