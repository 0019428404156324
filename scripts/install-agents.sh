#!/usr/bin/env bash
# Installs the pinned agent CLIs (scripts/agent-clis.json) for the end-to-end tests into a
# cache OUTSIDE the repository, nothing global:
#   ${OAR_AGENTS_CACHE:-$HOME/.cache/oar-agents}/<package>@<version>/node_modules/.bin
# Each is installed once (a marker file); a second run fetches nothing. Prints the bin
# folders, one a line. Install scripts are not run by npm (--ignore-scripts); the one that
# matters is run here once, on purpose: Grok ships its binary brotli-compressed, and without
# its postinstall the launcher unpacks ~200 MB into ~/.grok/bin at the first start under each
# HOME (15–25 s on a busy machine, for every test relay). Its postinstall unpacks it beside the
# package instead; GROK_HOME points at a throwaway folder so nothing lands in the user's home.
# Versions are named exactly: on Node 20, npm silently picks claude-agent-acp 0.49.0
# otherwise (it declares Node >= 22 but runs on 20). `with` names packages installed beside
# one, pinned too: codex-acp depends on a range of the Codex CLI it drives.
set -uo pipefail
cd "$(dirname "$0")/.."
cache="${OAR_AGENTS_CACHE:-$HOME/.cache/oar-agents}"
pins=$(node -e 'for (const p of require("./scripts/agent-clis.json")) console.log(`${p.package}@${p.version}@@${p.postinstall ?? ""}@@${(p.with ?? []).join(",")}`)')
failed=0
for line in $pins; do
  spec="${line%%@@*}"
  rest="${line#*@@}"
  post="${rest%%@@*}"
  with="${rest#*@@}"
  pkg="${spec%@*}"
  dir="$cache/$spec"
  marker="$dir/.oar-installed"
  if [ ! -f "$marker" ]; then
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{ "private": true }' > "$dir/package.json"
    echo "installing $spec into $dir (once)" >&2
    if (cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --save-exact "$spec" ${with//,/ } > install.log 2>&1); then
      echo "$spec" > "$marker"
    else
      echo "warning: could not install $spec (see $dir/install.log); its end-to-end tests will be skipped" >&2
      failed=1
      continue
    fi
  fi
  if [ -n "$post" ] && [ ! -f "$dir/.oar-postinstalled" ]; then
    scratch=$(mktemp -d)
    if (cd "$dir" && GROK_HOME="$scratch" npm_config_user_agent="npm/" node "node_modules/$pkg/$post" >> install.log 2>&1); then
      echo "$post" > "$dir/.oar-postinstalled"
    else
      echo "warning: $spec's $post failed (see $dir/install.log); it still runs, slower to start" >&2
    fi
    rm -rf "$scratch"
  fi
  echo "$dir/node_modules/.bin"
done
exit $failed
