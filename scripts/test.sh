#!/usr/bin/env bash
# The whole test suite: dependencies, Chromium for the UI tests, the type check, then every
# test file through node:test (Node 20's --test takes no globs, so the shell lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
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
npx tsc --noEmit -p .
# Tests start bin/oar, which runs the compiled bundle when it is fresh: they test what ships.
node scripts/build.mjs --if-stale
shopt -s nullglob
files=(test/*.test.ts)
node --import tsx --test --test-concurrency=3 --test-timeout=300000 "${files[@]}"
