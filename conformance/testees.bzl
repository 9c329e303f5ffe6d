"""The testees kept in this repository (conformance/testees/), by candidate name: conformance/BUILD
binds each to every suite, and the main job (//conformance:run) and the replay
(//conformance/replay) take each by its name (--candidate=NAME runs it as --testee=CMD would).
Each name's expectations are conformance/expectations/<name>.txt."""

load("@tcts_pypi//:defs.bzl", "HAVE_PYPI", "PYPI_MESSAGE", "PYPI_PYTHON")

# Libraries judged through a Python testee.
TESTEES = {
    "torch_python": "/usr/bin/python3 conformance/testees/torch/torch_testee.py",
    # PyTorch's own re-implementations of its semantics, through the same testee: every tensor on
    # the meta device, every call inside FakeTensorMode, the operations through torch._refs.
    "torch_meta": "/usr/bin/python3 conformance/testees/torch/torch_testee.py --device=meta",
    "torch_fake": "/usr/bin/python3 conformance/testees/torch/torch_testee.py --fake",
    "torch_refs": "/usr/bin/python3 conformance/testees/torch/torch_testee.py --refs",
    "numpy": "/usr/bin/python3 conformance/testees/numpy/numpy_testee.py",
    "numpy_weak": "/usr/bin/python3 conformance/testees/numpy/numpy_testee.py --promotion=weak",
}

# Libraries from PyPI (bazel/pypi/requirements.lock), judged through a Python testee run by the
# project's venv's interpreter (bazel/pypi.bzl), by candidate name: the program and its arguments.
# The same testees as Debian's torch 1.13 and NumPy 1.24, on torch 2.x and NumPy 2. Without the
# venv (bash bazel/pypi/install.sh, which .ci/setup runs) their tests are placeholders that say
# why (PYPI_MISSING), and the main job does not know them.
PYPI_TESTEES = {
    "torch2_python": "conformance/testees/torch/torch_testee.py",
    "torch2_meta": "conformance/testees/torch/torch_testee.py --device=meta",
    "torch2_fake": "conformance/testees/torch/torch_testee.py --fake",
    "torch2_refs": "conformance/testees/torch/torch_testee.py --refs",
    "torch2_compile": "conformance/testees/torch/torch_testee.py --compile",
    "numpy2": "conformance/testees/numpy/numpy_testee.py",
    # JAX through jax.numpy: 32-bit types by default, and with jax_enable_x64.
    "jax": "conformance/testees/jax/jax_testee.py",
    "jax_x64": "conformance/testees/jax/jax_testee.py --x64",
    # The Array API standard's reference implementation.
    "array_api_strict": "conformance/testees/array_api_strict/array_api_strict_testee.py",
    # MLX's CPU backend (the mlx-cpu wheel): lazy arrays without strides, its own promotion.
    "mlx": "conformance/testees/mlx/mlx_testee.py",
    # TensorFlow's tf.experimental.numpy with NumPy behaviour enabled (tensorflow-cpu).
    "tensorflow": "conformance/testees/tensorflow/tensorflow_testee.py",
    # TensorFlow's own ops (tf.math.add, tf.transpose, ...), without NumPy behaviour.
    "tensorflow_ops": "conformance/testees/tensorflow/tensorflow_ops_testee.py",
    # tinygrad's lazy Tensor on its CPU device (kernels compiled by clang as values are read).
    "tinygrad": "conformance/testees/tinygrad/tinygrad_testee.py",
    # PaddlePaddle's Tensor API on the CPU (paddlepaddle): PyTorch-shaped, strided.
    "paddle": "conformance/testees/paddle/paddle_testee.py",
}

# PyPI testees whose suites take too long for `bazel test //...` (CI), by name: the seconds a case
# may take (a property compiles each of its draws) and the suites whose expectations are reviewed
# (the others have no test yet). Their tests are tagged manual and run when named (bazel test
# //conformance:torch2_compile) or through the main job (--case-timeout=900 --suites=...).
# torch.compile compiles every operation of every case afresh (Dynamo, then Inductor's C++ built
# by g++: about a second for each new graph); docs/findings.md "torch.compile" gives the measured times.
PYPI_MANUAL = {
    "torch2_compile": struct(case_timeout = 900, suites = ["dtypes", "promotion", "casting", "strided", "arithmetic", "devices", "asarray", "dlpack"]),
}

# PyPI testees whose suite tests need Bazel's "long" timeout (900 s) rather than the default
# (300 s), by name: the seconds a case may take. JAX compiles every operation for each new shape,
# dtype and Python scalar with XLA (docs/candidates.md "JAX"): its promotion suite under jax_enable_x64 took
# 300 s beside the other tests on 2 cores, and the property result_type.ignores_values alone 64 s
# of it (the runner's default case timeout is 120 s).
PYPI_LONG = {"jax": 600, "jax_x64": 600}

# Why the PyPI testees' tests are placeholders ("" when the venv holds the lock).
PYPI_MISSING = "" if HAVE_PYPI else PYPI_MESSAGE

def pypi_testee_command(name):
    """The command line that starts PyPI testee NAME, from the repository's root."""
    return "%s %s" % (PYPI_PYTHON or "python3", PYPI_TESTEES[name])

# Libraries judged through a Node.js testee (conformance/protocol/js), by candidate name: the
# testee's directory under conformance/testees/ (its program, package.json and package-lock.json;
# .ci/setup runs npm ci in every such directory), its program's arguments, and the package whose
# presence in the directory's node_modules says the pinned packages are installed. Their suite
# tests go through a launcher (testees/node_testee_test.sh) that skips, saying why, when node or
# those packages are absent. Each directory is the filegroup //conformance/testees:<directory>.
NODE_TESTEE_DIRS = {
    "tfjs": ("tfjs_testee.js", "@tensorflow/tfjs-core"),
    "stdlib_ndarray": ("stdlib_ndarray_testee.js", "@stdlib/ndarray"),
    "onnxruntime": ("onnxruntime_testee.js", "onnxruntime-node"),
}

NODE_TESTEES = {
    "tfjs_cpu": ("tfjs", "--backend=cpu"),
    "tfjs_wasm": ("tfjs", "--backend=wasm"),
    "stdlib_ndarray": ("stdlib_ndarray", ""),
    "onnxruntime": ("onnxruntime", ""),
}

def node_testee_command(name):
    """The command line that starts Node.js testee NAME, from the repository's root."""
    directory, args = NODE_TESTEES[name]
    return " ".join(["node", "conformance/testees/%s/%s" % (directory, NODE_TESTEE_DIRS[directory][0])] + ([args] if args else []))

def node_testee_launcher_args(name, suite):
    """node_testee_test.sh's arguments before the runner's: TEST_NAME TESTEE_JS PACKAGE."""
    directory = NODE_TESTEES[name][0]
    program, package = NODE_TESTEE_DIRS[directory]
    return ["%s_%s" % (suite, name), "conformance/testees/%s/%s" % (directory, program), package]

# The runner's arguments naming every testee kept here (run.py --known-testee).
KNOWN_TESTEE_ARGS = ["'--known-testee=%s=%s'" % (name, command) for name, command in TESTEES.items()] + [
    "'--known-testee=%s=%s'" % (name, pypi_testee_command(name))
    for name in (PYPI_TESTEES if HAVE_PYPI else [])
] + [
    "'--known-testee=%s=%s'" % (name, node_testee_command(name))
    for name in NODE_TESTEES
]

# What those testees need at run time: their programs and the kits.
KNOWN_TESTEE_DATA = [
    "//conformance/protocol:python_kit",
    "//conformance/testees",
] + ["//conformance/testees:" + directory for directory in NODE_TESTEE_DIRS]
