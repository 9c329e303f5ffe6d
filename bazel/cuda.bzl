"""Detects the CUDA toolkit for the reference's cuda/ backend.

Where it looks, in order (the first that has bin/nvcc, include/cuda_runtime.h and libcudart):
  1. the `path` attribute of cuda_configure (WORKSPACE);
  2. $CUDA_PATH;
  3. the directory above the `nvcc` found on $PATH;
  4. /usr/local/cuda;
  5. NVIDIA's CUDA 13 wheels in the project's PyPI venv (bazel/pypi: cuda-toolkit[nvcc,crt,nvvm,
     cccl,cudart], pinned in requirements.lock), site-packages/nvidia/cu13, used only when the venv
     holds the lock (bazel/pypi.bzl). The wheels ship libcudart.so.13 without the unversioned
     link, so it is linked by its file name.
Bazel re-runs the rule when CUDA_PATH, PATH, TCTS_CUDA_ARCHS, TCTS_NO_CUDA, TCTS_REQUIRE_CUDA or
TCTS_PYPI_VENV change, or the lock does.
TCTS_NO_CUDA=1 builds as if no toolkit were installed (the path a machine without CUDA takes).
TCTS_REQUIRE_CUDA=1 makes a missing toolkit an error naming every place tried (CI sets it: the
kernels must keep compiling), never a silent //cuda:cuda_not_found.

TCTS_CUDA_ARCHS: the real architectures to build, comma-separated compute capabilities
(default "90": sm_90 for H100/H200); PTX for the highest one is embedded too, so newer GPUs
JIT it. CUDA 13 supports 75 and newer.

Produces @cuda with:
  //:cudart     a cc_library linking the CUDA runtime (empty when absent)
  //:defs.bzl   HAVE_CUDA, CUDA_MESSAGE (what was found with nvcc's release, or why not), NVCC (its path),
                CUDA_INCLUDE, NVCC_ARCH_FLAGS (the -gencode flags)
Absence is not an error: cuda/ then builds clearly labelled placeholders.
"""

load("//bazel:pypi.bzl", "venv_state")

def _probe(ctx, root):
    """The reason `root` is not a usable toolkit, or None when it is."""
    if not root:
        return "no directory"
    for rel in ["bin/nvcc", "include/cuda_runtime.h"]:
        if not ctx.path(root + "/" + rel).exists:
            return "no %s/%s" % (root, rel)
    if not _libdir(ctx, root):
        return "no libcudart.so under %s/lib64 or %s/lib" % (root, root)
    if not _nvcc_release(ctx, root):
        return "%s/bin/nvcc --version failed" % root
    return None

def _nvcc_release(ctx, root):
    """nvcc's "release" line ("Cuda compilation tools, release 13.2, V13.2.86"), or None."""
    r = ctx.execute([root + "/bin/nvcc", "--version"], timeout = 60)
    release = [l.strip() for l in r.stdout.splitlines() if "release" in l]
    return release[0] if r.return_code == 0 and release else None

def _libdir(ctx, root):
    lib = _cudart(ctx, root)
    return lib[0] if lib else None

def _cudart(ctx, root):
    """(directory, linker flag) of the CUDA runtime under root, or None: libcudart.so, or the
    versioned libcudart.so.N alone (NVIDIA's wheels ship no unversioned link)."""
    for d in ["lib64", "lib", "targets/x86_64-linux/lib"]:
        path = ctx.path("%s/%s" % (root, d))
        if ctx.path("%s/%s/libcudart.so" % (root, d)).exists:
            return "%s/%s" % (root, d), "-lcudart"
        if path.exists:
            versioned = sorted([f.basename for f in path.readdir() if f.basename.startswith("libcudart.so.")])
            if versioned:
                return "%s/%s" % (root, d), "-l:" + versioned[0]
    return None

def _venv_toolkit(ctx):
    """The CUDA root inside the PyPI venv's NVIDIA wheels, or (None, why)."""
    python, why = venv_state(ctx)
    if not python:
        return None, why
    lib = ctx.path(python).dirname.dirname.get_child("lib")
    for d in (lib.readdir() if lib.exists else []):
        root = d.get_child("site-packages").get_child("nvidia").get_child("cu13")
        if root.exists:
            return str(root), None
    return None, "no site-packages/nvidia/cu13 in the PyPI venv"

def _cuda_configure_impl(ctx):
    candidates = []
    if ctx.attr.path:
        candidates.append(("the path attribute", ctx.attr.path))
    if ctx.os.environ.get("CUDA_PATH"):
        candidates.append(("$CUDA_PATH", ctx.os.environ["CUDA_PATH"]))
    nvcc = ctx.which("nvcc")
    if nvcc:
        candidates.append(("nvcc on $PATH", str(nvcc.dirname.dirname)))
    candidates.append(("the default", "/usr/local/cuda"))
    wheels, no_wheels = _venv_toolkit(ctx)
    if wheels:
        candidates.append(("the NVIDIA wheels in the PyPI venv", wheels))

    root, how, tried = None, None, []
    if ctx.os.environ.get("TCTS_NO_CUDA", "") not in ("", "0"):
        candidates, tried = [], ["nothing: TCTS_NO_CUDA is set"]
    for source, path in candidates:
        why = _probe(ctx, path)
        if why == None:
            root, how = path, source
            break
        tried.append("%s (%s): %s" % (path, source, why))
    if not root and no_wheels and candidates:
        tried.append("the NVIDIA wheels: " + no_wheels)

    archs = [a.strip() for a in ctx.os.environ.get("TCTS_CUDA_ARCHS", "90").split(",") if a.strip()]
    for a in archs:
        if not a.isdigit() or int(a) < 75:
            fail("TCTS_CUDA_ARCHS: '%s' is not a compute capability CUDA 13 supports (75 or newer, e.g. 90)" % a)
    flags = []
    for a in archs:
        flags += ["-gencode", "arch=compute_%s,code=sm_%s" % (a, a)]
    top = archs[-1]
    flags += ["-gencode", "arch=compute_%s,code=compute_%s" % (top, top)]

    if root:
        lib, flag = _cudart(ctx, root)
        msg = "CUDA found via %s: %s, nvcc %s (sm_%s + PTX compute_%s)" % (how, root, _nvcc_release(ctx, root), ", sm_".join(archs), top)
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
cc_library(
    name = "cudart",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "{flag}"],
)
""".format(lib = lib, flag = flag))
    else:
        msg = "CUDA not found (tried %s); the cuda/ backend is not built and its tests are placeholders. Install a CUDA toolkit (13 or newer; bash bazel/pypi/install.sh installs the NVIDIA wheels) or set CUDA_PATH." % "; ".join(tried)
        if ctx.os.environ.get("TCTS_REQUIRE_CUDA", "") not in ("", "0"):
            fail("TCTS_REQUIRE_CUDA is set and " + msg)
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
# CUDA was not found; nothing here links it.
cc_library(name = "cudart")
""")
    ctx.file("defs.bzl", "\n".join([
        "HAVE_CUDA = %s" % (root != None),
        "CUDA_MESSAGE = %r" % msg,
        "NVCC = %r" % ((root + "/bin/nvcc") if root else ""),
        "CUDA_INCLUDE = %r" % ((root + "/include") if root else ""),
        "NVCC_ARCH_FLAGS = %r" % flags,
        "",
    ]))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    attrs = {"path": attr.string(doc = "A CUDA toolkit root to use before looking elsewhere.")},
    environ = ["CUDA_PATH", "PATH", "TCTS_CUDA_ARCHS", "TCTS_NO_CUDA", "TCTS_REQUIRE_CUDA", "TCTS_PYPI_VENV", "HOME"],
    local = True,
)
