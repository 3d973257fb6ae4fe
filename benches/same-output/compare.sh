#!/usr/bin/env bash
# compare.sh OLD_BINARY NEW_BINARY [OUT_DIR]: runs commands.txt with both
# binaries of research_companion, each in a scratch project of its own, and
# says which commands' output differs (README.md beside this file).
set -euo pipefail
exec python3 "$(dirname "$0")/compare.py" "$@"
