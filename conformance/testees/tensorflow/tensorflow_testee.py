"""TensorFlow as a tensor-cts testee (conformance/protocol/PROTOCOL.md): tf.experimental.numpy with
NumPy behaviour enabled, on TensorFlow's CPU wheel, judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=tensorflow

The testee calls tnp.experimental_enable_numpy_behavior() with its defaults (prefer_float32=False,
dtype_conversion_mode='legacy': "TF-NumPy" promotion, https://www.tensorflow.org/guide/tf_numpy)
before anything else, as a user of the NumPy API does, and says so in its build. TensorFlow's
tensors are immutable values on a device, with no strides, storage or memory formats: the testee
declares strides unsupported (`not_supported`), answers meta with "strides": [] and
"storage_offset": 0 (PROTOCOL.md "Strides"), leaves unimplemented every operation the API has no
function for, and translates the rest into the call a user writes:

  dtypes            tf.as_dtype(name), TensorFlow's parser (dtype_from_name; bool, the integers,
                    float16, bfloat16, float32, float64, complex64, complex128; no complex32:
                    missing_dtypes); names back by tf.DType.name. dtype_info: tf.DType.size,
                    is_floating, is_complex, and is_signed from tnp.iinfo / tnp.finfo's min. finfo:
                    tnp.finfo (NumPy's, over the dtype's NumPy type: ml_dtypes' for bfloat16).
  promotion         tnp.promote_types and tnp.result_type (arrays and Python scalars as given);
                    tnp has no can_cast: not implemented.
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to the
                    dtype's NumPy type, tnp.asarray(host, dtype) makes the tensor. Values: .numpy().
  arithmetic        tnp.add / tnp.subtract / tnp.multiply / tnp.true_divide; no alpha (NotSupported
                    for an alpha other than the integer 1), no out= and no in-place update.
  views             .T (t), tnp.swapaxes (transpose), tnp.transpose(axes) (permute), NumPy indexing
                    (narrow, slice, select), tnp.broadcast_to (expand), tnp.expand_dims,
                    tnp.squeeze, tnp.reshape. No view and no as_strided.
  format copies     contiguous: tnp.ascontiguousarray (contiguous_format only); clone:
                    tnp.copy; empty_like: tnp.empty_like; for contiguous_format and
                    preserve_format only.
  devices           'cpu' is '/CPU:0'; empty_on: tnp.empty inside tf.device(...). The CPU wheel
                    has no GPU: NotSupported for 'cuda'.
  asarray           tnp.asarray(obj, dtype=), tnp.array(obj, dtype=, copy=True) for copy=True, inside
                    tf.device(...) for a device: host arrays as NumPy arrays over the suite's memory,
                    NumPy scalars, memoryviews, Python values, DLPack capsules as given. tnp has no
                    copy=False: NotSupported.
  DLPack            tf.experimental.dlpack.to_dlpack(x) and from_dlpack(capsule).

Not implemented, because the API has no such function: can_cast, default_dtype,
legacy_constructor, devices as objects, default_device, storage, data_ptr, sparse layouts,
autograd's requires_grad_, binary_out and binary_inplace.
"""

import os
import sys

if sys.argv[1:]:
    sys.exit(f"tensorflow_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")
# TensorFlow's C++ log lines (oneDNN, CPU features) go to stderr; only errors are kept.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow.experimental.numpy as tnp  # noqa: E402

import tcts_testee  # noqa: E402
from tf_names import NAMES, device_of, meta, name_of, tdtype, values  # noqa: E402

tnp.experimental_enable_numpy_behavior()

UFUNC = {"add": tnp.add, "sub": tnp.subtract, "mul": tnp.multiply, "div": tnp.true_divide}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}


def translated(op):
    if op not in UFUNC:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to tf.experimental.numpy")
    return UFUNC[op]


def layout_free(memory_format):
    if memory_format not in LAYOUT_FREE:
        raise tcts_testee.NotSupported(f"TensorFlow has no memory format {memory_format!r}: its tensors have one layout")


class TensorFlowTestee(tcts_testee.Testee):
    name = "tensorflow (tf.experimental.numpy, NumPy behaviour)"
    version = tf.__version__
    build = (f"Python {sys.version.split()[0]}, TensorFlow {tf.__version__} (tensorflow-cpu), NumPy {np.__version__}; "
             "tnp.experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode='legacy')")
    missing_dtypes = {"complex32"}
    not_supported = {"strides"}

    # -- dtypes
    def dtype_from_name(self, name):
        return name_of(tf.as_dtype(name))  # TensorFlow's parser: its TypeError for a name it lacks

    def dtype_info(self, dtype):
        d = tdtype(dtype)
        if d.is_integer:
            signed = tnp.iinfo(d.as_numpy_dtype).min < 0
        elif d.is_floating or d.is_complex:
            signed = tnp.finfo(d.as_numpy_dtype).min < 0
        else:  # bool has no minimum below zero
            signed = False
        return {"itemsize": d.size, "is_floating_point": bool(d.is_floating), "is_complex": bool(d.is_complex),
                "is_signed": bool(signed)}

    def finfo(self, dtype):
        f = tnp.finfo(tdtype(dtype).as_numpy_dtype)
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min),
                "tiny": float(f.tiny)}

    # -- promotion
    def promote_types(self, a, b):
        return name_of(tnp.promote_types(tdtype(a).as_numpy_dtype, tdtype(b).as_numpy_dtype))

    def result_type(self, a, b):
        return name_of(tnp.result_type(a, b))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = tdtype(dtype)
        return tnp.asarray(tcts_testee.host_values(np, values, d.as_numpy_dtype).reshape(sizes), dtype=d)

    def meta(self, t):
        return meta(t)

    def values(self, t):
        return values(t)

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"tnp.{translated(op).__name__} has no alpha (asked for alpha={alpha!r})")
        return translated(op)(a, b)

    # -- views (new tensors in TensorFlow)
    def t(self, t):
        return t.T

    def transpose(self, t, dim0, dim1):
        return tnp.swapaxes(t, dim0, dim1)

    def permute(self, t, dims):
        return tnp.transpose(t, list(dims))

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return tnp.broadcast_to(t, list(sizes))

    def unsqueeze(self, t, dim):
        return tnp.expand_dims(t, dim)

    def squeeze(self, t, dim):
        return tnp.squeeze(t) if dim is None else tnp.squeeze(t, axis=dim)

    def reshape(self, t, sizes):
        return tnp.reshape(t, list(sizes))

    # -- format copies
    def contiguous(self, t, memory_format):
        if memory_format != "contiguous_format":  # it takes no format: it makes the one layout there is
            raise tcts_testee.NotSupported(f"tnp.ascontiguousarray takes no memory format (asked for {memory_format!r})")
        return tnp.ascontiguousarray(t)

    def clone(self, t, memory_format):
        layout_free(memory_format)
        return tnp.copy(t)

    def empty_like(self, t, memory_format):
        layout_free(memory_format)
        return tnp.empty_like(t)

    # -- devices
    def empty_on(self, sizes, dtype, device):
        d = tdtype(dtype)
        if device is None:
            return tnp.empty(list(sizes), dtype=d)
        with tf.device(device_of(device)):
            return tnp.empty(list(sizes), dtype=d)

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if copy is False:
            raise tcts_testee.NotSupported("tnp has no asarray that refuses to copy (no copy=False)")
        if isinstance(source, tcts_testee.HostArray):
            source = source.to_numpy(np, tdtype(source.dtype).as_numpy_dtype if source.dtype in NAMES else None)
        kw = {} if dtype is None else {"dtype": tdtype(dtype)}
        # copy=True is tnp.array (its copy=True); otherwise tnp.asarray. A device is tf.device's scope.
        make = (lambda: tnp.array(source, copy=True, **kw)) if copy else (lambda: tnp.asarray(source, **kw))
        if device is None:
            return make()
        with tf.device(device_of(device)):
            return make()

    # -- DLPack
    def to_dlpack(self, t):
        return tf.experimental.dlpack.to_dlpack(t)

    def from_dlpack(self, capsule):
        return tf.experimental.dlpack.from_dlpack(capsule)


if __name__ == "__main__":
    tcts_testee.serve(TensorFlowTestee())
