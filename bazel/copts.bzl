"""Compiler options for the project's own C++ (never for system or external headers, which
are included with -isystem or from system directories and so are not warned about).

    load("//bazel:copts.bzl", "TCTS_COPTS")
    cc_library(name = "x", srcs = [...], copts = TCTS_COPTS)

Warnings are errors in our code. -Wno-unused-parameter: the candidate interface's default
implementations name parameters they do not use, as documentation. -Wno-maybe-uninitialized:
GCC 12 at -O2 (-c opt) reports std::optional members read behind has_value() checks as
maybe uninitialized (a known false positive of that analysis); -Wuninitialized stays on.

The default (fastbuild) compiles the suites, checks, harness and adapters at -O1: the suites run 2.4x faster (the reference's
every suite: 3.30 s -> 1.35 s of CPU), and the large generated tables even compile faster than
at -O0 (strided_gtest.cc: 9.3 s at -O0, 8.3 s at -O1, 12.1 s at -O2). -c opt keeps its -O2 and
-c dbg its -O0.
"""

TCTS_WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-maybe-uninitialized",
    "-Werror",
]

# reference/ and cuda/ keep the toolchain's level in every mode: //cuda:element_ops_test compares
# the kernels' element bodies with the reference's CPU loop byte for byte, and the NaN results of
# complex multiplication differ between -O0 and -O1 code (libgcc's __muldc3 against GCC's inline
# expansion) — a difference of the compiler's, not of either implementation.
TCTS_REFERENCE_COPTS = TCTS_WARNINGS

TCTS_COPTS = TCTS_WARNINGS + select({
    "//bazel:opt": [],
    "//bazel:dbg": [],
    "//conditions:default": ["-O1"],
})
