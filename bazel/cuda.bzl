"""Detects the CUDA toolkit for the reference's cuda/ backend.

Where it looks, in order (the first that has bin/nvcc, include/cuda_runtime.h and libcudart):
  1. the `path` attribute of cuda_configure (WORKSPACE);
  2. $CUDA_PATH;
  3. the directory above the `nvcc` found on $PATH;
  4. /usr/local/cuda.
Bazel re-runs the rule when CUDA_PATH, PATH, TCTS_CUDA_ARCHS or TCTS_NO_CUDA change.
TCTS_NO_CUDA=1 builds as if no toolkit were installed (the path a machine without CUDA takes).

TCTS_CUDA_ARCHS: the real architectures to build, comma-separated compute capabilities
(default "90": sm_90 for H100/H200); PTX for the highest one is embedded too, so newer GPUs
JIT it. CUDA 13 supports 75 and newer.

Produces @cuda with:
  //:cudart     a cc_library linking the CUDA runtime (empty when absent)
  //:defs.bzl   HAVE_CUDA, CUDA_MESSAGE (what was found, or why not), NVCC (its path),
                CUDA_INCLUDE, NVCC_ARCH_FLAGS (the -gencode flags)
Absence is not an error: cuda/ then builds clearly labelled placeholders.
"""

def _probe(ctx, root):
    """The reason `root` is not a usable toolkit, or None when it is."""
    if not root:
        return "no directory"
    for rel in ["bin/nvcc", "include/cuda_runtime.h"]:
        if not ctx.path(root + "/" + rel).exists:
            return "no %s/%s" % (root, rel)
    if not _libdir(ctx, root):
        return "no libcudart.so under %s/lib64 or %s/lib" % (root, root)
    return None

def _libdir(ctx, root):
    for d in ["lib64", "lib", "targets/x86_64-linux/lib"]:
        if ctx.path("%s/%s/libcudart.so" % (root, d)).exists:
            return "%s/%s" % (root, d)
    return None

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

    root, how, tried = None, None, []
    if ctx.os.environ.get("TCTS_NO_CUDA", "") not in ("", "0"):
        candidates, tried = [], ["nothing: TCTS_NO_CUDA is set"]
    for source, path in candidates:
        why = _probe(ctx, path)
        if why == None:
            root, how = path, source
            break
        tried.append("%s (%s): %s" % (path, source, why))

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
        lib = _libdir(ctx, root)
        msg = "CUDA found via %s: %s (sm_%s + PTX compute_%s)" % (how, root, ", sm_".join(archs), top)
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
cc_library(
    name = "cudart",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcudart"],
)
""".format(lib = lib))
    else:
        msg = "CUDA not found (tried %s); the cuda/ backend is not built and its tests are placeholders. Install a CUDA toolkit (13 or newer) or set CUDA_PATH." % "; ".join(tried)
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
    environ = ["CUDA_PATH", "PATH", "TCTS_CUDA_ARCHS", "TCTS_NO_CUDA"],
    local = True,
)
