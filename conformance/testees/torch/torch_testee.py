"""PyTorch through its Python API, as a tensor-cts testee (conformance/protocol/PROTOCOL.md).

    bazel run //conformance:run -- --testee='/usr/bin/python3 conformance/testees/torch/torch_testee.py' \\
        --candidate=torch_python --expectations=conformance/expectations/torch_python.txt

Every answer is torch's own: the real torch.asarray (with real NumPy arrays and scalars,
writable buffers, DLPack capsules), torch.device on strings, (type, index) and legacy
ordinals with str/repr/==/hash, dtype attributes, torch.finfo, the legacy constructors,
get/set_default_dtype, Python numbers through the real argument parser, views, memory
formats, add/sub/mul/div with out= and in-place, and (torch 2) the default device. This file
only translates the suite's requests into those calls. It runs on Debian's torch 1.13 (torch_*)
and on PyPI's torch 2.x (torch2_*, bazel/pypi): what a version has no API for (1.13:
torch.set_default_device, torch.get_default_device and `with torch.device(...)`; CUDA tensors in
a build without a GPU) answers NotSupported, declared so.

Modes: PyTorch's own re-implementations of its semantics, judged through this one testee (the
candidates torch_meta, torch_fake and torch_refs, conformance/testees.bzl):

  --device=DEV  every tensor the suite asks for is made on DEV by the call that makes it
                (make_tensor, empty, empty_strided, empty_on and asarray of a Python sequence or
                number without a device: torch 2's default-device rule; torch 1.13 has no
                torch.set_default_device). --device=meta is the candidate torch_meta; a backend
                author runs the same command with their own device (--device=xpu).
  --fake        every call inside one torch._subclasses.fake_tensor.FakeTensorMode, entered
                for the whole session (torch_fake). The suite's input tensors (make_tensor)
                are made as Dynamo, AOTAutograd and torch.export make theirs: eagerly, then
                turned into FakeTensors by the mode's from_tensor, so they hold no constant
                and every operation on them runs FakeTensor's own rules (a tensor of at most
                one element that torch.tensor made inside the mode would keep its value as a
                constant, and an operation whose tensor arguments are all constants runs eager
                torch's kernel instead: docs/findings.md).
  --compile     every operation that makes a tensor from the suite's tensors (binary ops with
                out= and in place, views, as_strided, memory formats, format copies, empty,
                empty_strided, empty_like) runs as a function compiled by torch.compile with its
                default backend, Inductor (its CPU code is C++ built by g++), fullgraph=True and
                dynamic=True (torch2_compile; torch 2 only; no other mode, --device included:
                tensors stay on the default device). The result's dtype, sizes, strides,
                storage offset, storage and values are judged. What is not compiled (dtype and
                device objects, promotion functions, asarray, DLPack, autograd) is left out,
                declared unsupported: the candidate torch2_python judges those. Each call runs
                code compiled for its own signature (dtypes, sizes, strides, storage, aliasing,
                the values of its Python arguments) after torch._dynamo.reset(), with
                dynamic=True, so that its answer depends on its own inputs, never on the cases
                before it (CompileTestee._call); a call of one of the 16 signatures used last
                runs the code compiled for it, as a compiled function runs (CompiledCalls);
                a call Dynamo cannot trace as one graph raises what torch.compile raises
                (torch._dynamo.exc.Unsupported, a RuntimeError). Inductor's compile cache is its
                own (TORCHINDUCTOR_CACHE_DIR, default /tmp/torchinductor_$USER). One thing is left
                out of each compile: Dynamo's timing of the guards it has just built and checked,
                which only feeds a log line, a metric and the structured trace
                (skip_guard_latency_profile).
  --refs        binary ops, views, memory formats and format copies through torch._refs,
                promote_types / result_type / can_cast through torch._prims_common (get_higher_dtype,
                elementwise_dtypes, can_safe_cast_to) (torch_refs); combines with --device.
                What the refs lack is not forwarded to eager torch: a feature with no ref at all
                is left out (declared unsupported); an op missing from a feature the refs
                otherwise cover (select, slice) answers NotSupported. Tensors are made, read and
                inspected (meta, values, storage) by eager torch: they are the refs' inputs.

Meta tensors and FakeTensors hold no values: in those modes the operations of the features
`values` (values) and `storage_values` (storage_values, write_storage, write_element) are not
implemented, so the kit declares them unsupported and the suite judges every case on its other
checks.
"""

import collections
import os
import sys
import types
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import ctypes  # noqa: E402
import logging  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.utils.dlpack  # noqa: E402
from torch.utils._mode_utils import no_dispatch  # noqa: E402  (--fake's inputs: made outside it)

import tcts_testee  # noqa: E402

warnings.simplefilter("ignore")  # complex32's "experimental" warning, on every use

USAGE = "usage: torch_testee.py [--device=DEV] [--refs] | --fake | --compile"


def options(argv):
    """The mode's options: {"device": DEV or None, "fake": bool, "refs": bool}."""
    opts = {"device": None, "fake": False, "refs": False, "compile": False}
    for arg in argv:
        if arg.startswith("--device=") and arg != "--device=":
            opts["device"] = str(torch.device(arg.removeprefix("--device=")))  # torch's own parse
        elif arg in ("--fake", "--refs", "--compile"):
            opts[arg[2:]] = True
        else:
            sys.exit(f"torch_testee.py: unknown argument {arg!r} ({USAGE})")
    if opts["fake"] and (opts["refs"] or opts["device"] or opts["compile"]):
        sys.exit(f"torch_testee.py: --fake takes no other mode ({USAGE})")
    if opts["compile"] and (opts["refs"] or opts["device"]):
        # The compiled factories (empty, empty_strided, empty_like) take no device: tensors stay
        # on the default device, so --device would be honoured by some calls and not others.
        sys.exit(f"torch_testee.py: --compile takes no other mode ({USAGE})")
    return opts


# Below vm.mmap_min_addr's default (64 KiB) no memory is ever mapped.
NEVER_MAPPED = 1 << 16
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The operations that read or write element values: a tensor without values (meta, FakeTensor)
# has none of them.
VALUE_OPS = ("values", "storage_values", "write_storage", "write_element")
# The operations of the feature default_device (torch 2's API).
DEFAULT_DEVICE_OPS = ("default_device", "set_default_device", "enter_device", "exit_device", "reset_default_device")



def function(module, op):
    """The spec's binary op `op` is PyTorch's function of that name (torch.add, torch._refs.add; the
    in-place method is op + "_"); an op the module lacks answers NotSupported."""
    fn = getattr(module, op, None)
    if fn is None:
        raise tcts_testee.NotSupported(f"{module.__name__} has no {op}")
    return fn


def alpha_kwargs(op, value):
    """The keyword arguments that pass the spec's alpha to PyTorch's op: add and sub take it;
    mul and div have none."""
    return {"alpha": value} if op in ("add", "sub") else {}


def dtype(name):
    d = getattr(torch, name, None)
    if not isinstance(d, torch.dtype):
        raise tcts_testee.TesteeError("Internal", f"torch has no dtype named {name!r}")
    return d


def usable(device):
    """`device`, unless it is a CUDA device and this torch has none (NotSupported)."""
    if torch.device(device).type == "cuda" and not torch.cuda.is_available():
        raise tcts_testee.NotSupported("empty_on: this torch has no CUDA device")
    return device


def name_of(d):
    return str(d).removeprefix("torch.")  # torch's own name: "torch.float32"


def quiet_fake_tensor_log():
    """FakeTensorMode logs, with its traceback, each error a meta kernel raises
    (torch/_subclasses/fake_tensor.py `log.exception("failed while attempting to run meta for
    %s", func)`, level ERROR, which torch's own stderr handler formats: torch._logging, set up
    when torch is imported): under --fake and --compile that is every case whose call torch
    refuses, an answer here and not a fault (658 tracebacks, 1.15 MB of the log, in one
    torch2_fake run). The error itself is raised and answered as before; only its log line goes."""
    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)


class TorchTestee(tcts_testee.Testee):
    name = "torch (Python API)"
    version = torch.__version__
    build = f"Python {sys.version.split()[0]}, NumPy {np.__version__}; " + torch.__config__.show().replace("\n", " ").strip()
    # repr(torch.device) and its (type, index) and ordinal forms are the Python API's own.
    also_supports = {"device_forms", "device_repr", "sparse_layout"} | ({"cuda_tensors"} if torch.cuda.is_available() else set())
    made_on = None  # --device: where the calls that make tensors put them (None: torch's default)
    # A mode (RefsTestee, CompileTestee): what its name and build add, and the operations it has
    # no counterpart for, declared unsupported (never forwarded to eager torch).
    MODE_NAME = MODE_BUILD = ""
    LEFT_OUT = ()
    # The suite's dtypes this torch has no torch.dtype for: uint16, uint32 and uint64 came with 2.3
    # (1.13 has none), declared missing so their cases are NOT_SUPPORTED naming the dtype.
    missing_dtypes = {n for n in ("uint16", "uint32", "uint64") if not isinstance(getattr(torch, n, None), torch.dtype)}

    def __init__(self, device=None, fake=None):
        self._fake = fake  # the session's FakeTensorMode (--fake), or None
        self._device_contexts = []
        if not (hasattr(torch, "get_default_device") and hasattr(torch.device, "__enter__")):
            self._without(DEFAULT_DEVICE_OPS)  # torch 1.13 has no API for the default device
        if fake is not None:
            self._without(VALUE_OPS)  # a FakeTensor has no values to read or write
            quiet_fake_tensor_log()
        self._without(self.LEFT_OUT)
        self._identify()
        if device is not None:
            self.use_device(device)

    def _without(self, ops):
        """Leaves `ops` not implemented (NotSupported, declared so)."""
        for op in ops:
            setattr(self, op, None)

    def _identify(self):
        """The name and build, with the modes this testee runs in."""
        modes = ([f"tensors made on {self.made_on}"] if self.made_on else []) + (
            ["inside FakeTensorMode"] if self._fake is not None else [])
        name, build = type(self).name, type(self).build
        if modes:
            name, build = f"{name}, {', '.join(modes)}", f"mode: {'; '.join(modes)}; {build}"
        if self.MODE_NAME:
            name, build = f"{name}, {self.MODE_NAME}", f"mode: {self.MODE_BUILD}; {build}"
        self.name, self.build = name, build

    def use_device(self, device):
        """--device=DEV, or hello's device: every tensor the suite asks for from now on is made on
        `device` by the call that makes it (torch's own parse of the name; a device this torch
        cannot make a tensor on raises torch's error). Under it, the mode itself decides where
        every new tensor goes (empty_on without a device included), so the default-device rule
        cannot be observed through it: that feature is left out; so are values on meta."""
        if self._fake is not None:
            raise tcts_testee.NotSupported("--fake takes no device: FakeTensorMode fakes the device of what it is given")
        d = str(torch.device(device))
        torch.empty((), device=usable(d))
        self.made_on = d
        self._without(DEFAULT_DEVICE_OPS)
        if torch.device(d).type == "meta":
            self._without(VALUE_OPS)  # no values to read or write: not implemented (NotSupported)
        self._identify()

    def _made(self):
        """The keyword that puts a new tensor on the mode's device."""
        return {} if self.made_on is None else {"device": self.made_on}

    # -- dtypes
    def dtype_from_name(self, name):
        d = getattr(torch, name, None)
        if not isinstance(d, torch.dtype):
            raise AttributeError(f"module 'torch' has no attribute '{name}'")  # what torch.<name> raises
        return name_of(d)

    def dtype_info(self, dtype):
        d = globals()["dtype"](dtype)
        return {"itemsize": torch.empty((), dtype=d).element_size(), "is_floating_point": d.is_floating_point,
                "is_complex": d.is_complex, "is_signed": d.is_signed}

    def finfo(self, dtype):
        f = torch.finfo(globals()["dtype"](dtype))
        return {"bits": f.bits, "eps": f.eps, "max": f.max, "min": f.min, "tiny": f.tiny}

    def legacy_constructor(self, dtype):
        d = globals()["dtype"](dtype)
        legacy = torch.empty((), dtype=d).type()  # "torch.FloatTensor"
        constructor = getattr(torch, legacy.removeprefix("torch."))
        if constructor().dtype != d:
            raise tcts_testee.TesteeError("Internal", f"{legacy}() makes {constructor().dtype}, not {d}")
        return "torch.*." + legacy.removeprefix("torch.")  # the doc writes torch.*.FloatTensor

    # -- promotion and casting
    def promote_types(self, a, b):
        return name_of(torch.promote_types(dtype(a), dtype(b)))

    def result_type(self, a, b):
        return name_of(torch.result_type(a, b))

    def can_cast(self, from_, to):
        return torch.can_cast(dtype(from_), dtype(to))

    def default_dtype(self):
        return name_of(torch.get_default_dtype())

    def set_default_dtype(self, dtype):
        torch.set_default_dtype(globals()["dtype"](dtype))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        if self._fake is None:
            return self._make_tensor(sizes, dtype, values)
        with no_dispatch():  # eager torch, outside the mode
            real = self._make_tensor(sizes, dtype, values)
        return self._fake.from_tensor(real)

    def _make_tensor(self, sizes, dtype, values):
        d = globals()["dtype"](dtype)
        kinds = {type(v) for v in values}
        if len(kinds) == 1:
            # One kind: torch.tensor at its widest dtype, then torch's own cast (.to), a copy to
            # the same dtype too: a tensor of its own, as the other branch makes, never a view of
            # the flat one.
            wide = {bool: torch.bool, int: torch.int64, float: torch.float64, complex: torch.complex128}[kinds.pop()]
            return torch.tensor(values, dtype=wide, **self._made()).reshape(sizes).to(d, copy=True)
        t = torch.empty(sizes, dtype=d, **self._made())
        flat = t.view(-1)
        for k, v in enumerate(values):
            flat[k].fill_(v)
        return t

    def meta(self, t):
        strided = t.layout == torch.strided
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": list(t.stride()) if strided else [],
                "storage_offset": t.storage_offset() if strided else 0, "device": str(t.device),
                "layout": str(t.layout).removeprefix("torch.")}

    @staticmethod
    def _list(t):
        if t.dtype == torch.complex32:  # 1.13 cannot read ComplexHalf into Python; complex64 holds it exactly
            t = t.to(torch.complex64)
        return t.reshape(-1).tolist()

    def values(self, t):
        return self._list(t)

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        return function(torch, op)(a, b, **alpha_kwargs(op, alpha))

    def binary_out(self, op, a, b, alpha, out):
        function(torch, op)(a, b, **alpha_kwargs(op, alpha), out=out)

    def binary_inplace(self, op, target, other, alpha):
        method = getattr(target, op + "_", None)
        if method is None:
            raise tcts_testee.NotSupported(f"torch.Tensor has no {op}_")
        method(other, **alpha_kwargs(op, alpha))

    # -- strided tensors
    def empty(self, sizes, dtype, layout, memory_format):
        d = globals()["dtype"](dtype)
        if layout == "sparse_coo":
            return torch.empty(sizes, dtype=d, layout=torch.sparse_coo, **self._made())
        return torch.empty(sizes, dtype=d, memory_format=getattr(torch, memory_format), **self._made())

    def empty_strided(self, sizes, strides, dtype):
        return torch.empty_strided(sizes, strides, dtype=globals()["dtype"](dtype), **self._made())

    def is_contiguous(self, t, memory_format):
        return t.is_contiguous(memory_format=getattr(torch, memory_format))

    def as_strided(self, t, sizes, strides, storage_offset):
        return t.as_strided(sizes, strides, storage_offset)

    def t(self, t):
        return t.t()

    def transpose(self, t, dim0, dim1):
        return t.transpose(dim0, dim1)

    def permute(self, t, dims):
        return t.permute(dims)

    def narrow(self, t, dim, start, length):
        return t.narrow(dim, start, length)

    def select(self, t, dim, index):
        return t.select(dim, index)

    def slice(self, t, dim, start, end, step):
        # t[..., start:end:step, ...]: Python's indexing, with dim wrapped as torch wraps dimensions.
        d = dim + t.dim() if dim < 0 else dim
        return t[(slice(None),) * d + (slice(start, end, step),)]

    def expand(self, t, sizes):
        return t.expand(sizes)

    def unsqueeze(self, t, dim):
        return t.unsqueeze(dim)

    def squeeze(self, t, dim):
        return t.squeeze() if dim is None else t.squeeze(dim)

    def view(self, t, sizes):
        return t.view(sizes)

    def reshape(self, t, sizes):
        return t.reshape(sizes)

    def contiguous(self, t, memory_format):
        return t.contiguous(memory_format=getattr(torch, memory_format))

    def clone(self, t, memory_format):
        return t.clone(memory_format=getattr(torch, memory_format))

    def empty_like(self, t, memory_format):
        return torch.empty_like(t, memory_format=getattr(torch, memory_format))

    # -- storage
    def storage(self, t):
        s = t.storage()
        return {"id": s._cdata, "numel": s.size()}

    def storage_values(self, t):
        s = t.storage()
        if t.dtype == torch.complex32:
            return self._list(torch.empty(0, dtype=t.dtype).set_(s))
        return s.tolist()

    def write_storage(self, t, index, value):
        t.storage()[index] = value

    def write_element(self, t, index, value):
        if len(index) != t.dim():
            raise IndexError(f"an index of {len(index)} dimensions for a tensor of {t.dim()}")
        t[tuple(index)] = value

    def data_ptr(self, t):
        return t.data_ptr()

    # -- devices
    @staticmethod
    def _device(arg):
        if arg.form == "string":
            return torch.device(arg.text)
        if arg.form == "type_index":
            return torch.device(arg.text, arg.index)
        return torch.device(arg.index)

    def device(self, arg):
        d = self._device(arg)
        return {"type": d.type, "index": d.index, "str": str(d), "repr": repr(d)}

    def compare_devices(self, a, b):
        x, y = self._device(a), self._device(b)
        return {"equal": x == y, "same_hash": hash(x) == hash(y)}

    # -- the default device (torch 2: torch.set_default_device, torch.get_default_device (2.3) and
    # `with torch.device(...)`); a torch without them (1.13) has the feature unimplemented.
    def default_device(self):
        return str(torch.get_default_device())

    def set_default_device(self, device):
        torch.set_default_device(device)

    def reset_default_device(self):
        torch.set_default_device(None)  # no DeviceContext any more, as the process started

    def enter_device(self, device):
        context = torch.device(device)
        context.__enter__()
        self._device_contexts.append(context)

    def exit_device(self):
        if not self._device_contexts:
            raise tcts_testee.TesteeError("Internal", "exit_device without a `with torch.device(...)` block entered")
        self._device_contexts.pop().__exit__(None, None, None)

    def empty_on(self, sizes, dtype, device):
        d = globals()["dtype"](dtype)
        if device is None:
            return torch.empty(sizes, dtype=d, **self._made())
        return torch.empty(sizes, dtype=d, device=usable(device))

    # -- asarray
    NUMPY = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
             "complex64": np.complex64, "complex128": np.complex128}

    def asarray(self, source, dtype=None, device=None, copy=None, requires_grad=None):
        if isinstance(source, tcts_testee.HostArray):
            if source.dtype not in self.NUMPY:
                raise tcts_testee.NotSupported(f"NumPy has no {source.dtype} array to give torch.asarray")
            array = np.ndarray(source.shape, dtype=self.NUMPY[source.dtype], buffer=source.memory,
                               offset=source.offset, strides=source.byte_strides)
            source = array[()] if source.scalar else array  # a NumPy scalar: numpy.int32(...)
        kw = {}
        if dtype is not None:
            kw["dtype"] = globals()["dtype"](dtype)
        if device is not None:
            kw["device"] = device
        elif type(source) in (list, bool, int, float, complex):
            # A sequence or a Python number takes the default device (torch 2's rule); a NumPy
            # scalar does not, though numpy.float64 subclasses float (hence type(), not isinstance).
            kw.update(self._made())
        if copy is not None:
            kw["copy"] = copy
        if requires_grad is not None:
            kw["requires_grad"] = requires_grad
        return torch.asarray(source, **kw)

    # -- autograd
    def requires_grad_(self, t, requires_grad):
        t.requires_grad_(requires_grad)

    def autograd(self, t):
        return {"requires_grad": t.requires_grad, "is_leaf": t.is_leaf,
                "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__}

    # -- DLPack
    def to_dlpack(self, t):
        capsule = torch.utils.dlpack.to_dlpack(t)
        data = ctypes.c_void_p.from_address(_capsule_pointer(capsule, b"dltensor")).value  # DLTensor.data
        if (data or 0) < NEVER_MAPPED and t.numel() > 0:
            # A FakeTensor's export: NULL, or NULL plus the storage offset's bytes, as a host
            # address with elements behind it; mirroring it would read there (a segfault).
            raise tcts_testee.TesteeError("Internal", f"torch.utils.dlpack.to_dlpack exported a {t.device} tensor "
                                          f"of {t.numel()} elements whose data pointer is {data or 0:#x}")
        return capsule

    def from_dlpack(self, capsule):
        return torch.utils.dlpack.from_dlpack(capsule)


class RefsTestee(TorchTestee):
    """--refs: the operations through PyTorch's Python references (torch._refs, PrimTorch) and
    promotion through torch._prims_common. Eager torch makes, reads and inspects the tensors."""

    # No ref for these: declared unsupported, not forwarded to eager torch.
    LEFT_OUT = ("dtype_from_name", "dtype_info", "finfo", "legacy_constructor", "binary_inplace",
                "device", "compare_devices", "asarray", "to_dlpack", "from_dlpack", "requires_grad_", "autograd") + DEFAULT_DEVICE_OPS
    also_supports = {"sparse_layout"}
    MODE_NAME, MODE_BUILD = "through torch._refs", "torch._refs and torch._prims_common"

    # -- promotion and casting: what elementwise_dtypes and the refs' out= copy use
    def promote_types(self, a, b):
        return name_of(pc.get_higher_dtype(dtype(a), dtype(b)))

    def result_type(self, a, b):
        return name_of(pc.elementwise_dtypes(a, b, type_promotion_kind=pc.ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)[1])

    def can_cast(self, from_, to):
        return pc.can_safe_cast_to(cast_from=dtype(from_), cast_to=dtype(to))

    # -- arithmetic (torch._refs has no add_ / sub_ / mul_ / div_: binary_inplace is left out)
    def binary(self, op, a, b, alpha):
        return function(refs, op)(a, b, **alpha_kwargs(op, alpha))

    def binary_out(self, op, a, b, alpha, out):
        function(refs, op)(a, b, **alpha_kwargs(op, alpha), out=out)

    # -- memory formats, views, format copies
    def empty(self, sizes, dtype, layout, memory_format):
        return refs.empty(sizes, dtype=globals()["dtype"](dtype), layout=getattr(torch, layout),
                          memory_format=getattr(torch, memory_format), **self._made())

    def empty_strided(self, sizes, strides, dtype):
        return refs.empty_strided(sizes, strides, dtype=globals()["dtype"](dtype), **self._made())

    def empty_on(self, sizes, dtype, device):
        return refs.empty(sizes, dtype=globals()["dtype"](dtype), device=usable(device) if device else self.made_on)

    def is_contiguous(self, t, memory_format):
        return pc.is_contiguous_for_memory_format(t, memory_format=getattr(torch, memory_format))

    def as_strided(self, t, sizes, strides, storage_offset):
        return refs.as_strided(t, sizes, strides, storage_offset)

    def t(self, t):
        return refs.t(t)

    def transpose(self, t, dim0, dim1):
        return refs.transpose(t, dim0, dim1)

    def permute(self, t, dims):
        return refs.permute(t, dims)

    def narrow(self, t, dim, start, length):
        return refs.narrow(t, dim, start, length)

    def select(self, t, dim, index):
        raise tcts_testee.NotSupported(f"torch._refs ({torch.__version__}) has no select")

    def slice(self, t, dim, start, end, step):
        raise tcts_testee.NotSupported(f"torch._refs ({torch.__version__}) has no slice (Python indexing is eager torch's)")

    def expand(self, t, sizes):
        return refs.expand(t, sizes)

    def unsqueeze(self, t, dim):
        return refs.unsqueeze(t, dim)

    def squeeze(self, t, dim):
        return refs.squeeze(t, dim)

    def view(self, t, sizes):
        return refs.view(t, sizes)

    def reshape(self, t, sizes):
        return refs.reshape(t, sizes)

    def contiguous(self, t, memory_format):
        return refs.contiguous(t, memory_format=getattr(torch, memory_format))

    def clone(self, t, memory_format):
        return refs.clone(t, memory_format=getattr(torch, memory_format))

    def empty_like(self, t, memory_format):
        return refs.empty_like(t, memory_format=getattr(torch, memory_format))


# --compile: the functions torch.compile compiles, one per kind of call. Dynamo guards on their
# arguments (the op's name, dims, sizes are constants of the graph; tensors by dtype, sizes and
# strides), so each new combination is compiled anew, and one already compiled is reused.
def _binary(op, a, b, kwargs):
    return getattr(torch, op)(a, b, **kwargs)


def _binary_out(op, a, b, kwargs, out):
    getattr(torch, op)(a, b, **kwargs, out=out)


def _inplace(op, target, other, kwargs):
    getattr(target, op + "_")(other, **kwargs)


def _method(name, t, args):
    return getattr(t, name)(*args)


def _index(t, index):
    return t[index]


def _contiguous(t, memory_format):
    return t.contiguous(memory_format=memory_format)


def _clone(t, memory_format):
    return t.clone(memory_format=memory_format)


def _empty(sizes, dtype, memory_format):
    return torch.empty(sizes, dtype=dtype, memory_format=memory_format)


def _empty_strided(sizes, strides, dtype):
    return torch.empty_strided(sizes, strides, dtype=dtype)


def _empty_like(t, memory_format):
    return torch.empty_like(t, memory_format=memory_format)


def skip_guard_latency_profile():
    """Dynamo builds and checks the guards of each graph it compiles, then runs them 5 more times
    to warm up and once more, timed, after a 32 MB flush of the CPU caches (torch/_dynamo/guards.py
    CheckFunctionManager.__init__: `profile_guard_manager(...)`, whose comment calls the flush
    expensive), only to log "Guard eval latency", add it to the compile metric guard_latency_us
    and write it into the structured trace (which then read 0). No answer depends on it, and
    here it was about 20 ms of every compile: half of one whose graph Inductor's cache serves
    (25 against 46 ms for a transpose, 18 against 40 ms for an add). --compile skips the timing;
    the guards are built and checked as before. A torch without the function has nothing to skip."""
    import torch._dynamo.guards as guards

    if hasattr(guards, "profile_guard_manager"):
        guards.profile_guard_manager = lambda *args, **kwargs: 0.0


def _call_signature(value, storages: dict):
    """What torch.compile's code for a call can depend on in one argument, hashable: a tensor's
    dtype, device, sizes, strides, storage offset and size, which earlier argument's storage it
    shares (`storages`: StorageImpl -> index), grad, conjugate and negative bits and the geometry
    of the tensor it views; a Python value's type and repr; a list, tuple or dict element by
    element. None where a tensor is not strided (not kept)."""
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided:
            return None
        storage = value.untyped_storage()
        base = value._base
        return ("tensor", value.dtype, value.device, tuple(value.shape), value.stride(), value.storage_offset(),
                storage.nbytes(), storages.setdefault(storage._cdata, len(storages)), value.requires_grad,
                value.is_conj(), value.is_neg(),
                None if base is None else (base.dtype, tuple(base.shape), base.stride(), base.storage_offset()))
    if isinstance(value, (list, tuple)):
        items = tuple(_call_signature(v, storages) for v in value)
        return None if None in items else (type(value).__name__, items)
    if isinstance(value, dict):
        items = tuple((k, _call_signature(v, storages)) for k, v in value.items())
        return None if any(v is None for _, v in items) else ("dict", items)
    return (type(value).__qualname__, repr(value))


class CompiledCalls:
    """The functions --compile has compiled for the LIMIT call signatures it used last
    (_call_signature of every argument, and the default dtype and grad mode Dynamo guards on).

    Every call of a new signature is compiled afresh: Dynamo's state is reset
    (torch._dynamo.reset()) and a function of its own (a copy of fn's code under a name of its
    own, so that no cache or code state is shared) is compiled, as before. A call of a kept
    signature runs the function compiled for it, as a compiled function runs a second call
    whose guards hold: the same code, nothing traced again; it runs under
    torch.compiler.set_stance("fail_on_recompile"), so that where a guard did not hold Dynamo
    raises before anything runs and the call is compiled afresh instead (never recompiled
    without the reset). reset() clears the caches of every code Dynamo has seen
    (torch/_dynamo/__init__.py reset_code_caches: convert_frame.input_codes); a kept function's
    code is taken out of that list once compiled, so that the resets of later calls leave its
    compiled code in place. Without that list or set_stance (a torch older or otherwise built)
    nothing is kept: every call is compiled afresh. In the strided suite's tables 19 % of a
    process's compiles repeat a signature among its last 8 calls (its last 64 hold no more)."""

    LIMIT = 16
    RECOMPILE = "Detected recompile when torch.compile stance is 'fail_on_recompile'"

    def __init__(self):
        import torch._dynamo  # reset(), for every new signature
        import torch._dynamo.convert_frame as convert_frame

        codes = getattr(convert_frame, "input_codes", None)
        seen, seen_ids = getattr(codes, "seen", None), getattr(codes, "seen_ids", None)
        keeps = isinstance(seen, list) and isinstance(seen_ids, set) and hasattr(torch.compiler, "set_stance")
        self._seen, self._seen_ids = (seen, seen_ids) if keeps else (None, None)
        self._kept = collections.OrderedDict()  # signature -> compiled function, oldest first
        self._count = 0

    def __call__(self, fn, args):
        key = None
        if self._seen is not None:
            storages = {}
            parts = tuple(_call_signature(a, storages) for a in args)
            if None not in parts:
                key = (fn, parts, torch.get_default_dtype(), torch.is_grad_enabled())
        compiled = self._kept.get(key) if key is not None else None
        if compiled is not None:
            self._kept.move_to_end(key)
            try:
                with torch.compiler.set_stance("fail_on_recompile"):
                    return compiled(*args)
            except RuntimeError as e:
                if not str(e).startswith(self.RECOMPILE):
                    raise  # the compiled code's own error: the answer
                del self._kept[key]
        torch._dynamo.reset()
        self._count += 1
        code = fn.__code__.replace(co_name=f"{fn.__name__}_{self._count}")
        own = types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)
        own.__kwdefaults__ = fn.__kwdefaults__
        compiled = torch.compile(own, fullgraph=True, dynamic=True)
        result = compiled(*args)
        if key is not None:
            self._seen[:] = [ref for ref in self._seen if ref() is not code]
            self._seen_ids.discard(id(code))
            self._kept[key] = compiled
            if len(self._kept) > self.LIMIT:
                self._kept.popitem(last=False)
        return result


class CompileTestee(TorchTestee):
    """--compile: each operation that makes a tensor from tensors through torch.compile
    (Inductor, fullgraph=True). Eager torch makes the inputs and reads every result."""

    # Not compiled here: judged by the eager candidate (torch2_python), declared unsupported.
    LEFT_OUT = ("dtype_from_name", "dtype_info", "finfo", "legacy_constructor", "promote_types", "result_type",
                "can_cast", "device", "compare_devices", "asarray", "to_dlpack", "from_dlpack", "requires_grad_",
                "autograd") + DEFAULT_DEVICE_OPS
    also_supports = set()  # no sparse layout: Dynamo traces strided tensors
    MODE_NAME = "through torch.compile (Inductor, fullgraph=True, dynamic=True)"
    MODE_BUILD = ("torch.compile (backend inductor, fullgraph=True, dynamic=True), each call signature compiled "
                  f"afresh (the {CompiledCalls.LIMIT} used last kept), Dynamo's guard-latency timing skipped")

    def use_device(self, device):
        # The compiled factories (empty, empty_strided, empty_like) take no device: tensors stay
        # on the default device, so a device would be honoured by some calls and not others.
        raise tcts_testee.NotSupported("--compile takes no device: the compiled factories make tensors on the default device")

    def __init__(self):
        super().__init__()
        quiet_fake_tensor_log()  # Dynamo traces every call with FakeTensors
        skip_guard_latency_profile()
        self._compiled = CompiledCalls()

    def _call(self, fn, *args):
        """fn(*args), compiled for a call of this signature (CompiledCalls). Dynamo's caches are
        emptied before each compile (torch._dynamo.reset()), so that no graph compiled for an
        earlier case (another shape, dtype or stride) is reused: the answer depends on this
        call's inputs only, never on the cases before it in the process (with reuse, clone() of
        a [0, 0, 0, 0] tensor had strides [0, 0, 1, 1] or [0, 1, 1, 1] by history).
        dynamic=True: every size is symbolic (but 0 and 1, which Dynamo specializes), the code a
        compiled function runs once its shapes have varied; Inductor's cache (its own,
        TORCHINDUCTOR_CACHE_DIR) then serves every shape of a graph from one build. What
        torch.compile raises is the answer, as it is: a call Dynamo cannot trace as one graph
        raises torch._dynamo.exc.Unsupported, a RuntimeError."""
        return self._compiled(fn, args)

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        return self._call(_binary, op, a, b, alpha_kwargs(op, alpha))

    def binary_out(self, op, a, b, alpha, out):
        self._call(_binary_out, op, a, b, alpha_kwargs(op, alpha), out)

    def binary_inplace(self, op, target, other, alpha):
        self._call(_inplace, op, target, other, alpha_kwargs(op, alpha))

    # -- strided tensors
    def empty(self, sizes, dtype, layout, memory_format):
        if layout != "strided":
            raise tcts_testee.NotSupported(f"torch.compile traces strided tensors, not {layout}")
        return self._call(_empty, sizes, globals()["dtype"](dtype), getattr(torch, memory_format))

    def empty_strided(self, sizes, strides, dtype):
        return self._call(_empty_strided, sizes, strides, globals()["dtype"](dtype))

    def empty_like(self, t, memory_format):
        return self._call(_empty_like, t, getattr(torch, memory_format))

    def as_strided(self, t, sizes, strides, storage_offset):
        return self._call(_method, "as_strided", t, (sizes, strides, storage_offset))

    def t(self, t):
        return self._call(_method, "t", t, ())

    def transpose(self, t, dim0, dim1):
        return self._call(_method, "transpose", t, (dim0, dim1))

    def permute(self, t, dims):
        return self._call(_method, "permute", t, (dims,))

    def narrow(self, t, dim, start, length):
        return self._call(_method, "narrow", t, (dim, start, length))

    def select(self, t, dim, index):
        return self._call(_method, "select", t, (dim, index))

    def slice(self, t, dim, start, end, step):
        d = dim + t.dim() if dim < 0 else dim
        return self._call(_index, t, (slice(None),) * d + (slice(start, end, step),))

    def expand(self, t, sizes):
        return self._call(_method, "expand", t, (sizes,))

    def unsqueeze(self, t, dim):
        return self._call(_method, "unsqueeze", t, (dim,))

    def squeeze(self, t, dim):
        return self._call(_method, "squeeze", t, () if dim is None else (dim,))

    def view(self, t, sizes):
        return self._call(_method, "view", t, (sizes,))

    def reshape(self, t, sizes):
        return self._call(_method, "reshape", t, (sizes,))

    def contiguous(self, t, memory_format):
        return self._call(_contiguous, t, getattr(torch, memory_format))

    def clone(self, t, memory_format):
        return self._call(_clone, t, getattr(torch, memory_format))


def testee(argv):
    """The testee of the mode argv names (module imports for a mode happen here)."""
    opts = options(argv)
    if opts["compile"]:
        if not hasattr(torch, "compile"):
            sys.exit(f"torch_testee.py: --compile needs torch 2 (this is {torch.__version__})")
        return CompileTestee()
    if opts["refs"]:
        global refs, pc
        import torch._prims_common as pc
        import torch._refs as refs
    fake = None
    if opts["fake"]:
        from torch._subclasses.fake_tensor import FakeTensorMode
        fake = FakeTensorMode()
        fake.__enter__()  # for the whole session: every call below runs inside it
    try:
        return RefsTestee(opts["device"]) if opts["refs"] else TorchTestee(opts["device"], fake)
    except Exception as e:  # noqa: BLE001: torch's refusal of --device, said before the handshake
        sys.exit(f"torch_testee.py: --device={opts['device']}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    tcts_testee.serve(testee(sys.argv[1:]))
