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
# Static checks first: the type checker (it also compares the Kysely interfaces with the
# migrated tables: test/architecture/table-columns.types.ts), the linter and the formatter's check
# (biome.jsonc; `npm run format` rewrites what it flags).
# A failure fails the run, after the tests.
static_status=0
printf 'static checks: npm run typecheck, npm run lint\n'
npx tsc --noEmit || static_status=$?
npx biome lint --error-on-warnings . || static_status=$?
npx biome format . || static_status=$?
failures="$(mktemp)"
trap 'rm -f "$failures"' EXIT
node --import tsx --test --test-concurrency=2 --test-timeout=120000 \
  --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=./scripts/failures-reporter.mjs --test-reporter-destination="$failures" \
  "$@" "${files[@]}" || status=$?
cat "$failures"
if [ "$static_status" -ne 0 ]; then printf '\nstatic checks failed (see the start of the run): npm run typecheck, npm run lint\n'; [ "$status" -ne 0 ] || status=$static_status; fi
printf '\n%s\n' "$coverage"
exit "$status"
