#!/usr/bin/env bash
# ctest browser_report: skips (exit 77, with the reason) when node, playwright-core or chromium
# is missing; otherwise runs report_test.mjs.
#   run.sh GRAINSCOPE EXAMPLE_PI WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then echo "SKIP: node is not installed"; exit 77; fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "SKIP: $here/node_modules is absent (make test runs npm ci there when npm exists)"; exit 77
fi
exec node "$here/report_test.mjs" --grainscope "$1" --example-pi "$2" --work "$3"
