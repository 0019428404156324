#!/usr/bin/env bash
# The whole test suite: dependencies, Chromium for the UI tests, the type check, the layer
# check (`npm run check`), then every test file through node:test (Node 20's --test takes no
# globs, so the shell lists them). The installs run as this user (they fill node_modules and
# the shared caches); the checks, build and tests run as on a fresh machine: a new empty HOME
# and no git identity (scripts/fresh-home.sh), sharing only the npm and agent-CLI caches.
set -euo pipefail
cd "$(dirname "$0")/.."
# The caches both halves use, named before HOME changes.
export OAR_AGENTS_CACHE="${OAR_AGENTS_CACHE:-$HOME/.cache/oar-agents}"
export npm_config_cache="${npm_config_cache:-$(npm config get cache)}"
bash scripts/ensure-deps.sh
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "warning: could not install chromium; UI tests will fail"
  else
    echo "warning: /usr/bin/chromium is missing and this user cannot apt-get install it; UI tests will fail"
  fi
fi
# The pinned agent CLIs for the end-to-end tests, once, into a cache outside the repository.
bash scripts/install-agents.sh >/dev/null || echo "warning: some agent CLIs are missing; their end-to-end tests will be skipped"
# Every test file, or the ones named: bash scripts/test.sh test/a.test.ts …
shopt -s nullglob
if [ $# -gt 0 ]; then files=("$@"); else files=(test/*.test.ts); fi
# Tests start bin/oar, which runs the compiled bundle when it is fresh: they test what ships.
bash scripts/fresh-home.sh bash -c 'npx tsc --noEmit -p . && node scripts/check-layers.mjs && npx biome ci --error-on-warnings . && node scripts/build.mjs --if-stale && exec node --import tsx --test --test-concurrency=3 --test-timeout=300000 "$@"' tests "${files[@]}"
