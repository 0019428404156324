#!/usr/bin/env bash
# Installs the npm dependencies when a fresh clone has none yet (better-sqlite3 compiles
# from source here: about a minute and a half on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ ! -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] || [ ! -d node_modules/esbuild ]; then
  npm ci --no-fund --no-audit
fi
