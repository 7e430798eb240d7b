#!/usr/bin/env bash
# Runs the built Realm test classes that the named files declare (after run-tests.sh prepared and built them):
# one process per class; the tests a trap left without a verdict then run one per process.
set -uo pipefail
work=${REALM_SUITE_DIR:-/tmp/outpost-realm-suite}
cd "$work"
# One process per test class; the tests a trap left without a verdict then run one per process.
swift test --skip-build --list-tests 2>/dev/null | grep -E '^RS\.' > tests.txt || true
declared=$(for name in "$@"; do grep -oE "^(final )?class [A-Za-z0-9_]+" "Tests/RS/$name.swift" | awk '{print $NF}'; done | sort -u)
: > results.txt
: > failures.txt
for cls in $declared; do
  grep -q "^RS\.$cls/" tests.txt || continue
  timeout 1200 swift test --skip-build --filter "RS\.$cls/" > "class-$cls.log" 2>&1 || true
  grep -aoE "Test Case '$cls\.[A-Za-z0-9_]+' (passed|failed)" "class-$cls.log" | sed -E "s/Test Case '([^']+)' (.*)/\2 \1/" >> results.txt || true
  for t in $(grep "^RS\.$cls/" tests.txt | sed 's/.*\///'); do
    grep -q " $cls\.$t\$" results.txt && continue
    out=$(timeout 300 swift test --skip-build --filter "RS\.$cls/$t\$" 2>&1 || true)
    if echo "$out" | grep -q "Executed 1 test, with 0 failures"; then echo "passed $cls.$t" >> results.txt
    elif echo "$out" | grep -q "Executed 1 test"; then echo "failed $cls.$t" >> results.txt
    else echo "crashed $cls.$t $(echo "$out" | grep -a -m1 'Fatal error' | sed 's/.*Fatal error: //' | cut -c1-160)" >> results.txt; fi
  done
done
for cls in $declared; do
  [ -f "class-$cls.log" ] || continue
  grep -aE "error: .*$cls\.test" "class-$cls.log" | sed -E "s/.*: error: ([A-Za-z0-9_]+)\.([A-Za-z0-9_]+) : /\1.\2: /" | cut -c1-220 | sort -u >> failures.txt || true
done
sort -u -o failures.txt failures.txt 2>/dev/null || true
grep -v '^passed' results.txt | sort
echo "passed $(grep -c '^passed' results.txt), failed $(grep -c '^failed' results.txt), crashed $(grep -c '^crashed' results.txt)"
echo "(failure messages: $work/failures.txt; Realm's assertThrows catches Objective-C exceptions; the shim skips its block, so those checks are not run.)"
