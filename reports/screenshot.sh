#!/usr/bin/env bash
# Renders a report.html in headless Chromium (Debian's chromium package) and saves a PNG, to
# check the page by eye: the summary tables and the dtype matrices coloured by outcome.
#   bash reports/screenshot.sh out/libtorch/report.html [out.png] [WIDTHxHEIGHT]
# Default output: the HTML's name with .png; default size 1400x3000.
set -euo pipefail
html="${1:?usage: screenshot.sh REPORT.html [OUT.png] [WIDTHxHEIGHT]}"
png="${2:-${html%.html}.png}"
size="${3:-1400x3000}"
[[ -f "$html" ]] || { echo "screenshot: no such file: $html" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$browser" ]] || { echo "screenshot: chromium not found (sudo apt-get install chromium)" >&2; exit 2; }
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${size/x/,}" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$html")" 2>/dev/null
[[ -s "$png" ]] || { echo "screenshot: chromium wrote nothing to $png" >&2; exit 1; }
echo "screenshot: $png"
