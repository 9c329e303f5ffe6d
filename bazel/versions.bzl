"""Every candidate's library versions as build inputs: the repository @tcts_versions.

Bazel does not see what a candidate links with `-l…` or what a testee imports (Debian's
packages, node_modules): they are not action inputs, so a test would answer from the cache
after an upgrade. This rule records each candidate's library identity into one file,
@tcts_versions//:<candidate>.txt, which every conformance test of that candidate has in its
data (bazel/tcts.bzl conformance_test) and passes to the runner (--library-version-file), and
which the main job (//conformance:run) has for every candidate (--known-library-version). A
change of a recorded version changes that file, so exactly that candidate's tests re-run;
an unchanged file leaves every test cached (Bazel compares contents, not times).

What a file holds, one `key=value` a line (LIBRARIES below says which keys each candidate has):
  dpkg:PACKAGE=VERSION        `dpkg-query -W -f '${Version}' PACKAGE` ("not-installed" without it)
  npm-lock:DIR=sha256:HEX     conformance/testees/DIR/package-lock.json's sha256 (what npm ci installs)
  pypi:PACKAGE=VERSION        the version bazel/pypi/requirements.lock pins (what install.sh installs,
                              hashes checked); a pin of another package leaves the file unchanged
  pypi-python=…               the PyPI venv's interpreter (`--version`) when it holds the lock, else
                              "not-installed (why)" (bazel/pypi.bzl): installing the venv re-runs
                              the PyPI testees' tests, which skipped without it
  python=…                    `/usr/bin/python3 --version` (Debian's interpreter, which runs the testees)
  node=…                      `node --version` (node on PATH, as the Node.js testees' launcher finds it)
  cc=…                        the C++ compiler's first `--version` line (CC, else cc), for in-process candidates
  override=VALUE              TCTS_VERSION_OVERRIDE_<candidate>, when set (a proof's stand-in for an upgrade)

When the rule runs again (and so when a system change is seen): it is `local = True`, so
at every Bazel server start and whenever WORKSPACE or a file it loads changes; `configure = True`,
so `bazel sync --configure` re-runs it by hand; when an npm lockfile changes (read through its
label); and when a variable in `environ` changes (TCTS_VERSION_OVERRIDE_<candidate>, PATH, CC —
give them with --repo_env). A package upgraded while a Bazel server is running is therefore seen
after `bazel shutdown` (or `bazel sync --configure`), not by that server's next build.
"""

load("//bazel:pypi.bzl", "LOCK", "lock_versions", "venv_state")

# The candidates' libraries, by candidate name: what identifies the library a candidate's tests
# judge. Every candidate that has conformance tests is here (conformance_test fails otherwise).
_CPP = [("cc", "")]
_PY = [("python", "/usr/bin/python3")]
_TORCH_PY = [("dpkg", "python3-torch"), ("dpkg", "python3-numpy")] + _PY
_NUMPY_PY = [("dpkg", "python3-numpy")] + _PY

# The PyPI testees (bazel/pypi/requirements.lock), under the venv's interpreter.
_PYPI = [("pypi-python", "")]
_TORCH2 = [("pypi", "torch"), ("pypi", "numpy")] + _PYPI
# JAX's arrays are jaxlib's (XLA); NumPy and ml_dtypes are its host arrays and dtypes.
# JAX imports opt_einsum (jax/_src/numpy/einsum.py), which paddlepaddle pins too.
_JAX = [("pypi", "jax"), ("pypi", "jaxlib"), ("pypi", "ml-dtypes"), ("pypi", "numpy"), ("pypi", "opt-einsum")] + _PYPI

LIBRARIES = {
    # This repository's own library: its source is already an input; the compiler is not.
    "reference": _CPP,
    "libtorch": [("dpkg", "libtorch-dev")] + _CPP,
    "eigen": [("dpkg", "libeigen3-dev")] + _CPP,
    "xtensor": [("dpkg", "libxtensor-dev"), ("dpkg", "xtl-dev")] + _CPP,
    "torch_python": _TORCH_PY,
    "torch_meta": _TORCH_PY,
    "torch_fake": _TORCH_PY,
    "torch_refs": _TORCH_PY,
    "numpy": _NUMPY_PY,
    "numpy_weak": _NUMPY_PY,
    "tfjs_cpu": [("npm-lock", "tfjs"), ("node", "")],
    "tfjs_wasm": [("npm-lock", "tfjs"), ("node", "")],
    "stdlib_ndarray": [("npm-lock", "stdlib_ndarray"), ("node", "")],
    "onnxruntime": [("npm-lock", "onnxruntime"), ("node", "")],
    "torch2_python": _TORCH2,
    "torch2_meta": _TORCH2,
    "torch2_fake": _TORCH2,
    "torch2_refs": _TORCH2,
    # Inductor writes C++ and builds it with the machine's g++ (its version is the cc entry's compiler).
    "torch2_compile": _TORCH2 + [("dpkg", "g++")] + _CPP,
    "numpy2": [("pypi", "numpy")] + _PYPI,
    "jax": _JAX,
    "jax_x64": _JAX,
    "array_api_strict": [("pypi", "array-api-strict"), ("pypi", "numpy")] + _PYPI,
    "mlx": [("pypi", "mlx"), ("pypi", "mlx-cpu"), ("pypi", "numpy"), ("pypi", "ml-dtypes")] + _PYPI,
    "tensorflow": [("pypi", "tensorflow-cpu"), ("pypi", "numpy"), ("pypi", "ml-dtypes")] + _PYPI,
    "tensorflow_ops": [("pypi", "tensorflow-cpu"), ("pypi", "numpy"), ("pypi", "ml-dtypes")] + _PYPI,
    "paddle": [("pypi", "paddlepaddle"), ("pypi", "numpy")] + _PYPI,
    # tinygrad's CPU device compiles its kernels with the machine's clang (runtime/support/compiler_cpu.py).
    "tinygrad": [("pypi", "tinygrad"), ("pypi", "numpy"), ("pypi", "ml-dtypes"), ("dpkg", "clang")] + _PYPI,
}

OVERRIDE_PREFIX = "TCTS_VERSION_OVERRIDE_"

def _first_line(ctx, argv):
    r = ctx.execute(argv, timeout = 30)
    text = (r.stdout or r.stderr).strip()
    if r.return_code != 0 or not text:
        return "not-found"
    return text.splitlines()[0].strip()

def _dpkg_version(ctx, package):
    if not ctx.which("dpkg-query"):
        return "no-dpkg"
    r = ctx.execute(["dpkg-query", "-W", "-f", "${Version}", package], timeout = 30)
    return r.stdout.strip() if r.return_code == 0 and r.stdout.strip() else "not-installed"

def _sha256(ctx, path):
    r = ctx.execute(["sha256sum", str(path)], timeout = 30)
    if r.return_code != 0:
        fail("sha256sum %s: %s" % (path, r.stderr))
    return "sha256:" + r.stdout.split(" ")[0]

def _value(ctx, cache, kind, arg):
    key = kind + ":" + arg
    if key in cache:
        return cache[key]
    if kind == "dpkg":
        v = _dpkg_version(ctx, arg)
    elif kind == "npm-lock":
        v = _sha256(ctx, ctx.path(Label("//conformance/testees:%s/package-lock.json" % arg)))
    elif kind == "pypi":
        if "pypi-lock" not in cache:
            cache["pypi-lock"] = lock_versions(ctx.read(ctx.path(Label(LOCK))))
        v = cache["pypi-lock"].get(arg)
        if not v:
            fail("bazel/versions.bzl: %s is not pinned in bazel/pypi/requirements.lock" % arg)
    elif kind == "pypi-python":
        python, why = venv_state(ctx)
        v = _first_line(ctx, [python, "--version"]) if python else "not-installed (%s)" % why
    elif kind == "python":
        v = _first_line(ctx, [arg, "--version"]) if ctx.path(arg).exists else "not-found"
    elif kind == "node":
        node = ctx.which("node")
        v = _first_line(ctx, [node, "--version"]) if node else "not-found"
    elif kind == "cc":
        cc = ctx.os.environ.get("CC", "") or "cc"
        path = ctx.which(cc) if "/" not in cc else ctx.path(cc)
        v = _first_line(ctx, [path, "--version"]) if path and path.exists else "not-found"
    else:
        fail("unknown library kind %s" % kind)
    cache[key] = v
    return v

def _tcts_versions_impl(ctx):
    cache = {}
    names = sorted(LIBRARIES)
    for name in names:
        lines = ["# %s's library identity (bazel/versions.bzl; @tcts_versions)" % name]
        for kind, arg in LIBRARIES[name]:
            lines.append("%s=%s" % (kind + (":" + arg if arg and kind != "python" else ""), _value(ctx, cache, kind, arg)))
        override = ctx.os.environ.get(OVERRIDE_PREFIX + name, "")
        if override:
            lines.append("override=" + override)
        ctx.file(name + ".txt", "\n".join(lines) + "\n")
    ctx.file("BUILD", """# Generated by bazel/versions.bzl: one file per candidate.
package(default_visibility = ["//visibility:public"])

exports_files({files})

filegroup(
    name = "all",
    srcs = {files},
)
""".format(files = repr([n + ".txt" for n in names])))

tcts_versions = repository_rule(
    implementation = _tcts_versions_impl,
    environ = [OVERRIDE_PREFIX + name for name in LIBRARIES] + ["PATH", "CC", "TCTS_PYPI_VENV", "HOME"],
    local = True,
    configure = True,
)
