"""NumPy as a tensor-cts testee (conformance/protocol/PROTOCOL.md), under either promotion state.

    # NumPy's default, legacy value-based promotion (uint8 array + 300 -> uint16):
    bazel run //conformance:run -- --testee='/usr/bin/python3 conformance/testees/numpy/numpy_testee.py' \\
        --candidate=numpy --expectations=conformance/expectations/numpy.txt
    # NEP 50 "weak" promotion (NumPy 1.24's opt-in, NumPy 2's default):
    bazel run //conformance:run -- \\
        --testee='/usr/bin/python3 conformance/testees/numpy/numpy_testee.py --promotion=weak' \\
        --candidate=numpy_weak --expectations=conformance/expectations/numpy_weak.txt

--facts=meta,storage sends protocol version 3's facts with each new array (PROTOCOL.md "Version
3"; default none: see NumpyTestee.facts); the tests that exercise facts use it.

--promotion=STATE sets NPY_PROMOTION_STATE (NumPy 1.24's switch, NEP 50) before NumPy is
imported; without it the environment decides, so `env NPY_PROMOTION_STATE=weak /usr/bin/python3
numpy_testee.py` is the same candidate. The handshake's name and build say which state NumPy
reports (np._get_promotion_state()).

Debian's python3-numpy imports only under /usr/bin/python3 (../shared/TOOLCHAIN.md).

Every answer is NumPy's own; this file translates the suite's torch-shaped requests into the
NumPy call a user would write and nothing else:

  dtypes            np.dtype(name) (NumPy's own string parser: 'float' is float64 there),
                    np.finfo; is_floating_point / is_complex from NumPy's type hierarchy
                    (np.floating, np.complexfloating), is_signed from the dtype's documented
                    minimum (np.iinfo / np.finfo .min < 0; np.bool_ is no np.number). bfloat16
                    and complex32 do not exist in NumPy (np.dtype() rejects them): the testee
                    declares them missing (missing_dtypes), so the cases that need them are
                    NOT_SUPPORTED, naming the dtype; a call naming one still answers NotSupported.
  promotion         np.promote_types, np.result_type (arrays, 0-d arrays and Python numbers as
                    given: value-based under 'legacy', weak Python scalars under 'weak').
  can_cast          np.can_cast(from, to, casting='same_kind'): torch.can_cast is the rule for
                    writing a result into an out= or in-place output, and NumPy's ufuncs check
                    their outputs with casting='same_kind' (their default).
  tensors           make_tensor: np.array(values) at the values' widest kind, then .astype(dtype)
                    (NumPy's cast, like torch's .to). Meta: shape, strides in bytes divided by
                    the itemsize (a stride that is not a whole number of elements is answered
                    NotSupported), the offset of the first element from the start of the memory
                    owner (below), the device from __dlpack_device__() (kDLCPU -> 'cpu').
  arithmetic        np.add / np.subtract / np.multiply / np.true_divide, out= as the ufunc's
                    out=, in-place as Python's augmented assignment (a += b: ndarray.__iadd__,
                    which is np.add(a, b, out=a)). NumPy has no alpha: add/sub with an alpha
                    other than the integer 1 answer NotSupported.
  memory formats    contiguous_format is order 'C' and preserve_format is order 'K' ("match
                    the layout of a as closely as possible"): np.empty(order=), np.copy(order=),
                    np.empty_like(order=), np.ascontiguousarray, ndarray.flags.c_contiguous;
                    empty_strided is the ndarray constructor np.ndarray(shape, dtype,
                    strides=bytes). NumPy has no channels_last / channels_last_3d (its orders are
                    C, F, A and K): NotSupported.
  views             ndarray.T (t), np.swapaxes (transpose), np.transpose(axes) (permute), basic
                    slicing (narrow: [start:start + length]; slice: [start:end:step]),
                    integer indexing with an Ellipsis (select: a 0-d array view, not a copied
                    scalar), np.broadcast_to (expand; read-only), np.expand_dims, np.squeeze,
                    np.reshape, assignment to .shape of a fresh view (view: NumPy's reshape
                    that never copies), np.lib.stride_tricks.as_strided (byte strides, over
                    the memory owner from its first element). Axes are normalised by NumPy
                    (normalize_axis_index: AxisError is both an IndexError and a ValueError).
  storage           NumPy's memory owner: follow .base (ndarray.base "Base object if memory is
                    from some other object"; np.lib.stride_tricks' DummyArray keeps its array
                    as .base too) to the object that owns the memory: an ndarray with base None
                    (its prod(shape) * itemsize bytes), or a buffer object (a memoryview). The
                    storage id is that object's identity, numel its bytes / itemsize, and
                    storage_values / write_storage go through an array over exactly those bytes
                    (the array interface). Memory NumPy imported through DLPack is owned by the
                    producer's capsule, whose extent NumPy does not know: NotSupported there.
  asarray           np.asarray(obj, dtype=) for copy=None, np.array(obj, dtype=, copy=True|False)
                    otherwise (NumPy 1.24: copy=False means "copy only if needed", never an
                    error). NumPy 1.24 has no device argument (NotSupported when one is given)
                    and np.asarray does not read DLPack capsules (only np.from_dlpack does:
                    NotSupported). Host arrays are real ndarrays over the suite's memory, NumPy
                    scalars real NumPy scalars, buffers real memoryviews.
  DLPack            ndarray.__dlpack__() and np.from_dlpack(x), where x is a tiny object whose
                    __dlpack__() hands over the suite's capsule (1.24's from_dlpack takes an
                    object with __dlpack__, not a bare capsule).

Declared unsupported, because NumPy 1.24 has no such API: default_dtype (no get/set of a
default dtype: Python floats are float64), devices / device_factories / default_device (no
device object, no device= argument before NumPy 2.0), legacy_constructor (torch.*.FloatTensor
is a PyTorch spelling), sparse_layout, cuda_tensors.
"""

import operator
import os
import sys

# The promotion state must be in the environment before NumPy is imported (NEP 50: NumPy 1.24
# reads NPY_PROMOTION_STATE once, at import).
_PROMOTION_FLAG, _FACTS_FLAG = "--promotion=", "--facts="
_FACTS: set = set()
for _arg in sys.argv[1:]:
    if _arg.startswith(_PROMOTION_FLAG):
        os.environ["NPY_PROMOTION_STATE"] = _arg[len(_PROMOTION_FLAG):]
    elif _arg.startswith(_FACTS_FLAG) and set(_arg[len(_FACTS_FLAG):].split(",")) <= {"meta", "storage"}:
        _FACTS = set(_arg[len(_FACTS_FLAG):].split(","))
    else:
        sys.exit(f"numpy_testee.py: unknown argument {_arg!r} "
                 "(usage: numpy_testee.py [--promotion=legacy|weak] [--facts=meta,storage])")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import ctypes  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
try:  # NumPy 2 (numpy.core is private there)
    from numpy.lib.array_utils import normalize_axis_index  # noqa: E402
except ImportError:  # NumPy 1.24
    from numpy.core.multiarray import normalize_axis_index  # noqa: E402

import tcts_testee  # noqa: E402

# NumPy warns where it computes anyway (overflow, 0/0, complex to real, out-of-bound Python
# integers); stderr is no channel of the protocol, and the answers are what counts.
warnings.simplefilter("ignore")

# NumPy 1.24 and 2.0-2.1 report their state; NumPy 2.2 removed the switch (and the legacy
# state): NEP 50's weak promotion is then all there is, which the name says in NumPy's words.
PROMOTION_STATE = np._get_promotion_state() if hasattr(np, "_get_promotion_state") else "NEP 50 only"
# NumPy 2's np.asarray takes device= and copy= (the Array API standard's signature).
ASARRAY_V2 = int(np.__version__.split(".")[0]) >= 2

# The translation of each binary op of the interface; another answers NotSupported (translated()).
UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
AUGMENTED = {"add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "div": operator.itruediv}


def translated(table, op):
    if op not in table:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to NumPy")
    return table[op]
# torch.memory_format -> NumPy's order argument, where NumPy has one.
ORDER = {"contiguous_format": "C", "preserve_format": "K"}
# The device NumPy reports through __dlpack_device__ (dlpack.h DLDeviceType): kDLCPU is 'cpu';
# any other (NumPy 1.24 imports kDLCUDAHost, kDLROCMHost and kDLCUDAManaged memory too) is
# reported as the DLPack code it is, not renamed.
DL_DEVICES = {1: "cpu"}


def dtype(name):
    """NumPy's dtype for a spec dtype name, by NumPy's own parser."""
    try:
        return np.dtype(name)
    except TypeError as e:
        raise tcts_testee.NotSupported(f"NumPy {np.__version__} has no dtype {name!r} (np.dtype: {e})") from None


def name_of(d):
    return np.dtype(d).name


def order_of(memory_format):
    if memory_format not in ORDER:
        raise tcts_testee.NotSupported(f"NumPy has no memory format {memory_format!r} (its orders are 'C', 'F', "
                                       "'A' and 'K')")
    return ORDER[memory_format]


def axis(dim, ndim):
    return normalize_axis_index(dim, ndim)


def address(a):
    """The address of a's first element (NumPy's array interface)."""
    return a.__array_interface__["data"][0]


_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _capsule_data(capsule):
    """dl_tensor.data of the DLManagedTensor in a capsule (dlpack.h: the struct's first field)."""
    managed = _PyCapsule_GetPointer(capsule, _PyCapsule_GetName(capsule))
    return ctypes.c_void_p.from_address(managed).value or 0


class _Interface:
    """An object that describes memory through the array interface (as np.lib.stride_tricks'
    DummyArray does), keeping its owner alive."""

    def __init__(self, owner, data, shape, typestr, strides=None, readonly=False):
        self.base = owner
        self.__array_interface__ = {"data": (data, readonly), "shape": tuple(shape), "typestr": typestr,
                                    "strides": None if strides is None else tuple(strides), "version": 3}


class _Producer:
    """What NumPy 1.24's np.from_dlpack takes: an object whose __dlpack__() returns a capsule."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule


class NumpyTestee(tcts_testee.Testee):
    name = f"numpy (promotion state '{PROMOTION_STATE}')"
    version = np.__version__
    build = (f"Python {sys.version.split()[0]}, NumPy {np.__version__} from {os.path.dirname(np.__file__)}; "
             f"promotion state '{PROMOTION_STATE}', NPY_PROMOTION_STATE="
             f"{os.environ.get('NPY_PROMOTION_STATE', '(unset)')}")
    # NumPy 1.24 and 2 have neither (np.dtype('bfloat16'), np.dtype('complex32'): "data type ... not understood").
    missing_dtypes = {"bfloat16", "complex32"}
    # Protocol version 3's facts: none unless --facts names them. Its meta and storage find the array's memory owner
    # (29 and 9 us a call, against torch's 5 and 6): computed for every new array they cost
    # more than the round trips they save (runner wall time 1.08x with them).
    facts = _FACTS

    # -- dtypes
    def dtype_from_name(self, name):
        return name_of(np.dtype(name))

    def dtype_info(self, dtype):
        d = globals()["dtype"](dtype)
        if np.issubdtype(d, np.integer):
            signed = np.iinfo(d).min < 0
        elif np.issubdtype(d, np.inexact):
            signed = np.finfo(d).min < 0
        else:  # np.bool_ is no np.number: it has no minimum below zero
            signed = False
        return {"itemsize": d.itemsize, "is_floating_point": np.issubdtype(d, np.floating),
                "is_complex": np.issubdtype(d, np.complexfloating), "is_signed": signed}

    def finfo(self, dtype):
        f = np.finfo(globals()["dtype"](dtype))
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min),
                "tiny": float(f.tiny)}

    # -- promotion and casting
    def promote_types(self, a, b):
        return name_of(np.promote_types(dtype(a), dtype(b)))

    def result_type(self, a, b):
        return name_of(np.result_type(a, b))

    def can_cast(self, from_, to):
        return np.can_cast(dtype(from_), dtype(to), casting="same_kind")

    # -- tensors
    WIDEST = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}

    def make_tensor(self, sizes, dtype, values):
        d = globals()["dtype"](dtype)
        kinds = {type(v) for v in values}
        if len(kinds) <= 1:
            wide = self.WIDEST[kinds.pop()] if kinds else d
            return np.array(values, dtype=wide).astype(d).reshape(sizes)
        flat = np.empty(len(values), dtype=d)
        for k, v in enumerate(values):
            flat[k] = np.array(v, dtype=self.WIDEST[type(v)]).astype(d)
        return flat.reshape(sizes)

    @staticmethod
    def _elements(t, byte_counts, what):
        item = t.dtype.itemsize
        for b in byte_counts:
            if b % item:
                raise tcts_testee.NotSupported(f"{what} of {b} bytes is not a whole number of {item}-byte elements")
        return [b // item for b in byte_counts]

    def meta(self, t):
        if isinstance(t, np.generic):  # a NumPy scalar: its value, no memory to share
            return {"dtype": name_of(t.dtype), "sizes": [], "strides": [], "storage_offset": 0, "device": "cpu"}
        device_type, _ = t.__dlpack_device__()
        strides = self._elements(t, t.strides, "a NumPy stride")
        _, start, _ = self._memory(t)
        (offset,) = self._elements(t, [address(t) - start], "the offset from the memory owner")
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": strides, "storage_offset": offset,
                "device": DL_DEVICES.get(device_type, f"DLPack device type {device_type}")}

    def values(self, t):
        return np.ravel(t).tolist() if isinstance(t, np.ndarray) else [t.item()]

    # -- arithmetic
    @staticmethod
    def _alpha(op, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"NumPy's {translated(UFUNC, op).__name__} has no alpha (asked for alpha={alpha!r})")

    def binary(self, op, a, b, alpha):
        self._alpha(op, alpha)
        return translated(UFUNC, op)(a, b)

    def binary_out(self, op, a, b, alpha, out):
        self._alpha(op, alpha)
        translated(UFUNC, op)(a, b, out=out)

    def binary_inplace(self, op, target, other, alpha):
        self._alpha(op, alpha)
        if translated(AUGMENTED, op)(target, other) is not target:
            raise tcts_testee.TesteeError("Internal", f"augmented {op} made a new object (a NumPy scalar is "
                                          "immutable): nothing was written in place")

    # -- memory formats
    def empty(self, sizes, dtype, layout, memory_format):
        d = globals()["dtype"](dtype)
        if layout != "strided":
            raise tcts_testee.NotSupported(f"NumPy has no {layout} layout")
        return np.empty(sizes, dtype=d, order=order_of(memory_format))

    def empty_strided(self, sizes, strides, dtype):
        d = globals()["dtype"](dtype)
        return np.ndarray(sizes, dtype=d, strides=[s * d.itemsize for s in strides])

    def is_contiguous(self, t, memory_format):
        if memory_format != "contiguous_format":
            raise tcts_testee.NotSupported(f"NumPy has no contiguity flag for {memory_format!r} (its flags are "
                                           "C_CONTIGUOUS and F_CONTIGUOUS)")
        return bool(t.flags.c_contiguous)

    # -- views
    def as_strided(self, t, sizes, strides, storage_offset):
        flat = self._storage_array(t)
        return np.lib.stride_tricks.as_strided(flat[storage_offset:], sizes, [s * t.dtype.itemsize for s in strides])

    def t(self, t):
        return t.T

    def transpose(self, t, dim0, dim1):
        return np.swapaxes(t, dim0, dim1)

    def permute(self, t, dims):
        return np.transpose(t, dims)

    @staticmethod
    def _index(t, dim, key):
        return t[(slice(None),) * axis(dim, t.ndim) + key]

    def narrow(self, t, dim, start, length):
        return self._index(t, dim, (slice(start, start + length),))

    def select(self, t, dim, index):
        return self._index(t, dim, (index, Ellipsis))

    def slice(self, t, dim, start, end, step):
        return self._index(t, dim, (slice(start, end, step),))

    def expand(self, t, sizes):
        return np.broadcast_to(t, sizes)

    def unsqueeze(self, t, dim):
        return np.expand_dims(t, dim)

    def squeeze(self, t, dim):
        return np.squeeze(t) if dim is None else np.squeeze(t, axis=dim)

    def view(self, t, sizes):
        v = t.view()
        v.shape = sizes
        return v

    def reshape(self, t, sizes):
        return np.reshape(t, sizes)

    # -- format copies
    def contiguous(self, t, memory_format):
        if memory_format != "contiguous_format":
            raise tcts_testee.NotSupported(f"NumPy has no contiguous copy in {memory_format!r} "
                                           "(np.ascontiguousarray is C order)")
        return np.ascontiguousarray(t)

    def clone(self, t, memory_format):
        return np.copy(t, order=order_of(memory_format))

    def empty_like(self, t, memory_format):
        return np.empty_like(t, order=order_of(memory_format))

    # -- storage: NumPy's memory owner
    @staticmethod
    def _owner(t):
        owner = t
        while getattr(owner, "base", None) is not None:
            owner = owner.base
        return owner

    def _memory(self, t):
        """(owner, first byte, bytes) of the memory that t's data lives in, as NumPy knows it."""
        owner = self._owner(t)
        if isinstance(owner, np.ndarray):  # owns its data: prod(shape) * itemsize bytes from its first element
            return owner, address(owner), owner.nbytes
        if type(owner).__name__ == "PyCapsule":
            # Imported through DLPack: NumPy keeps the producer's DLManagedTensor in a capsule
            # and counts from its dl_tensor.data (what its own __dlpack__ re-exports as data,
            # with byte_offset the rest); the extent of that memory is not NumPy's to know.
            return owner, _capsule_data(owner), None
        view = memoryview(owner)
        return owner, address(np.frombuffer(view, dtype=np.uint8)) if view.nbytes else 0, view.nbytes

    def _sized_memory(self, t):
        owner, start, nbytes = self._memory(t)
        if nbytes is None:
            raise tcts_testee.NotSupported("the memory of this array was imported through DLPack: its owner is the "
                                           "producer's capsule (ndarray.base), whose extent NumPy does not know")
        return owner, start, nbytes

    def _storage_array(self, t):
        owner, start, nbytes = self._sized_memory(t)
        item = t.dtype.itemsize
        return np.asarray(_Interface(owner, start, (nbytes // item,), t.dtype.str))

    def storage(self, t):
        if isinstance(t, np.generic):
            raise tcts_testee.NotSupported("a NumPy scalar holds its value itself: there is no memory owner")
        owner, _, nbytes = self._sized_memory(t)
        return {"id": id(owner), "numel": nbytes // t.dtype.itemsize}

    def storage_values(self, t):
        if isinstance(t, np.generic):
            raise tcts_testee.NotSupported("a NumPy scalar holds its value itself: there is no memory owner")
        return self._storage_array(t).tolist()

    def write_storage(self, t, index, value):
        if isinstance(t, np.generic):
            raise tcts_testee.NotSupported("a NumPy scalar holds its value itself: there is no memory owner")
        self._storage_array(t)[index] = value

    def write_element(self, t, index, value):
        t[tuple(index)] = value

    def data_ptr(self, t):
        if isinstance(t, np.generic):
            raise tcts_testee.NotSupported("a NumPy scalar holds its value itself: it has no data pointer")
        return address(t)

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if device is not None and not ASARRAY_V2:
            raise tcts_testee.NotSupported(f"NumPy {np.__version__}'s asarray has no device argument")
        if type(source).__name__ == "PyCapsule":
            raise tcts_testee.NotSupported("np.asarray does not read DLPack capsules (NumPy imports DLPack only "
                                           "through np.from_dlpack)")
        if isinstance(source, tcts_testee.HostArray):
            array = np.ndarray(source.shape, dtype=globals()["dtype"](source.dtype), buffer=source.memory,
                               offset=source.offset, strides=source.byte_strides)
            source = array[()] if source.scalar else array  # a NumPy scalar: numpy.float64(...)
        kw = {} if dtype is None else {"dtype": globals()["dtype"](dtype)}
        if ASARRAY_V2:  # np.asarray(obj, dtype=, device=, copy=): copy=False refuses to copy (ValueError)
            return np.asarray(source, device=device, copy=copy, **kw)
        if copy is None:
            return np.asarray(source, **kw)
        return np.array(source, copy=copy, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return t.__dlpack__()

    def from_dlpack(self, capsule):
        return np.from_dlpack(_Producer(capsule))


if __name__ == "__main__":
    tcts_testee.serve(NumpyTestee())
