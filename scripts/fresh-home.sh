#!/usr/bin/env bash
# Runs a command the way a fresh machine (or a fresh CI runner) would: HOME is a new, empty
# folder (removed afterwards) and git has no identity, so whatever the product or a test takes
# from the machine's home — a git identity, a CLI's login or settings, a cache — is missing
# here too and fails here first. Only two caches are shared with this machine, both named by
# environment variables that default to this user's own, so a second run fetches nothing:
#   OAR_AGENTS_CACHE   the pinned agent CLIs (scripts/install-agents.sh; default ~/.cache/oar-agents;
#                      Grok's binary is unpacked there, not into ~/.grok, and the tests point
#                      Copilot's XDG cache into it)
#   npm_config_cache   npm's cache (default: what `npm config get cache` says, ~/.npm)
# git: no global or system configuration, none in the environment, and `user.useConfigOnly`
# so that no identity is guessed from the host name either (a CI runner's may have a domain).
# Usage: bash scripts/fresh-home.sh COMMAND [ARG…]
set -euo pipefail
export OAR_AGENTS_CACHE="${OAR_AGENTS_CACHE:-$HOME/.cache/oar-agents}"
export npm_config_cache="${npm_config_cache:-$(npm config get cache 2>/dev/null || echo "$HOME/.npm")}"
fresh=$(mktemp -d "${TMPDIR:-/tmp}/oar-fresh-home-XXXXXX")
trap 'rm -rf "$fresh"' EXIT
printf '[user]\n\tuseConfigOnly = true\n' > "$fresh/.gitconfig"
export HOME="$fresh" GIT_CONFIG_GLOBAL="$fresh/.gitconfig" GIT_CONFIG_NOSYSTEM=1
unset XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME \
  GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
"$@"
