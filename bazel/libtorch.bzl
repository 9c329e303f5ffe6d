"""Detects libtorch (the C++ ATen/c10 libraries) for the libtorch candidate.

Environment variables read (Bazel re-runs the rule when they change):
  TCTS_LIBTORCH_PREFIX  install prefix holding include/torch/... and lib/.../libtorch.so
                        (default: /usr, where Debian's libtorch-dev puts it).

Produces @libtorch with:
  //:libtorch     a cc_library linking ATen/c10 (only meaningful when found)
  //:defs.bzl     HAVE_LIBTORCH (bool), LIBTORCH_MESSAGE (what was found, or how to install it)
                  and LIBTORCH_COPTS (compile flags for code including libtorch's headers;
                  copts do not propagate through cc_library, so users add them)
Absence is not an error: candidate targets for libtorch become placeholders that say so.
"""

_LIB_DIRS = ["lib/x86_64-linux-gnu", "lib64", "lib"]

def _libtorch_configure_impl(ctx):
    prefix = ctx.os.environ.get("TCTS_LIBTORCH_PREFIX", "/usr")
    include = prefix + "/include"
    api_include = include + "/torch/csrc/api/include"
    header = ctx.path(api_include + "/torch/torch.h")
    libdir = None
    for d in _LIB_DIRS:
        if ctx.path(prefix + "/" + d + "/libtorch_cpu.so").exists:
            libdir = prefix + "/" + d
            break
    found = header.exists and libdir != None
    if found:
        msg = "libtorch found: headers %s, libraries %s" % (api_include, libdir)
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
cc_library(
    name = "libtorch",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-ltorch", "-ltorch_cpu", "-lc10", "-pthread"],
)
""".format(api = api_include, lib = libdir))
    else:
        msg = ("libtorch not found under %s (looked for %s and libtorch_cpu.so in %s); " +
               "the libtorch candidate is skipped. Install it with `sudo bash .ci/setup` " +
               "(Debian package libtorch-dev) or set TCTS_LIBTORCH_PREFIX.") % (prefix, header, ", ".join(_LIB_DIRS))
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
# libtorch was not found; nothing here links it.
cc_library(name = "libtorch")
""")
    copts = ["-isystem", api_include, "-Wno-deprecated-declarations"] if found else []
    ctx.file("defs.bzl", "HAVE_LIBTORCH = %s\nLIBTORCH_MESSAGE = %r\nLIBTORCH_COPTS = %r\n" % (found, msg, copts))

libtorch_configure = repository_rule(
    implementation = _libtorch_configure_impl,
    environ = ["TCTS_LIBTORCH_PREFIX"],
    local = True,
)
