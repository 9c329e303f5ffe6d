"""Where a report was made: the machine (report.json `machine`) and the tensor-cts commit that ran
(`tool.commit`)."""

from __future__ import annotations

import os
import platform
import socket
import subprocess

from . import cli

HERE = os.path.dirname(os.path.abspath(__file__))


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    return {"hostname": socket.gethostname(), "os": f"{platform.system()} {platform.release()}",
            "cpu": cpu, "cpus": os.cpu_count() or 0, "memory_gib": memory, "python": platform.python_version()}


def tool_commit(where: str | None = None) -> str | None:
    """The tensor-cts commit that ran: the HEAD of the checkout at `where` (default: the
    workspace bazel run names, else this file's). The suite bundle, which has no checkout,
    passes its stamp to the runner instead (conformance/bundle/tcts.in: --suite-commit)."""
    where = where or cli.workspace() or HERE
    try:
        p = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None
