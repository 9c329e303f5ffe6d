"""Compiler options for the project's own C++ (never for system or external headers, which
are included with -isystem or from system directories and so are not warned about).

    load("//bazel:copts.bzl", "TCTS_COPTS")
    cc_library(name = "x", srcs = [...], copts = TCTS_COPTS)

Warnings are errors in our code. -Wno-unused-parameter: the candidate interface's default
implementations name parameters they do not use, as documentation. -Wno-maybe-uninitialized:
GCC 12 at -O2 (-c opt) reports std::optional members read behind has_value() checks as
maybe uninitialized (a known false positive of that analysis); -Wuninitialized stays on.
"""

TCTS_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-maybe-uninitialized",
    "-Werror",
]
