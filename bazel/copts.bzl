"""Compiler options for the project's own C++ (never for system or external headers, which
are included with -isystem or from system directories and so are not warned about).

    load("//bazel:copts.bzl", "TCTS_COPTS")
    cc_library(name = "x", srcs = [...], copts = TCTS_COPTS)

Warnings are errors in our code. -Wno-unused-parameter: the candidate interface's default
implementations name parameters they do not use, as documentation.
"""

TCTS_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Werror",
]
