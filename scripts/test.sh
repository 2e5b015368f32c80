#!/usr/bin/env bash
# Runs every test file under test/ with node's built-in runner (node 20 has no glob in --test).
# Extra arguments are passed to node, e.g. `npm test -- --test-name-pattern=orders`.
# Which databases the run covers is said before and after it (test-databases.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files found under test/" >&2; exit 1; fi
coverage="$(bash scripts/test-databases.sh)"
printf '%s\n\n' "$coverage"
status=0
failures="$(mktemp)"
trap 'rm -f "$failures"' EXIT
node --import tsx --test --test-concurrency=2 --test-timeout=120000 \
  --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=./scripts/failures-reporter.mjs --test-reporter-destination="$failures" \
  "$@" "${files[@]}" || status=$?
cat "$failures"
printf '\n%s\n' "$coverage"
exit "$status"
