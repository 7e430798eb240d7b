#!/usr/bin/env bash
# Runs some of Realm Swift's test files against `import Outpost`, after run.sh measured them: keeps only the named
# files and the shared models, drops what does not compile (drop.py, repeated until the tests build), then runs
# every test class the files declare (run-classes.sh) and prints the tests that did not pass and the totals.
#   scripts/realm-suite/run-tests.sh QueryTests GeospatialTests   (after scripts/realm-suite/run.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${REALM_SUITE_DIR:-/tmp/outpost-realm-suite}
cd "$work"
[ -f errs.txt ] || { echo "run scripts/realm-suite/run.sh first" >&2; exit 2; }
shared="TestCase TestUtils ModernTestObjects CustomPersistableTestObjects TestValueFactory HarnessStandIns"
mkdir -p hold
for f in Tests/RS/*.swift; do
  name=$(basename "$f" .swift)
  keep=no
  for k in $shared "$@"; do [ "$k" = "$name" ] && keep=yes; done
  [ $keep = no ] && mv "$f" hold/
done
python3 "$here/instantiate.py" plan "$@"
python3 "$here/drop.py" errs.txt "$@"
python3 "$here/instantiate.py" apply "$@"
# Linux's XCTest cannot list a @MainActor test method (the runner traps casting it): each becomes a helper that a
# plain test method of the same name calls on the main actor, where Linux's XCTest runs its tests.
python3 - "$@" <<'PY'
import re, sys
for name in sys.argv[1:]:
    path = 'Tests/RS/%s.swift' % name
    lines = open(path).read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        if lines[i] == '    @MainActor':
            j = i + 1
            while j < len(lines) and lines[j].startswith('    @'): j += 1
            m = re.match(r'    func (test\w*)\(\)\s*(async)?\s*(throws)?\s*\{', lines[j]) if j < len(lines) else None
            if m:
                test, is_async, throws = m.group(1), m.group(2), m.group(3)
                call = ('try ' if throws else '') + ('await ' if is_async else '') + 'mainActor_' + test + '()'
                effects = ' '.join(x for x in (is_async, throws) if x)
                if is_async:
                    out.append('    func %s() %s{ nonisolated(unsafe) let this = self; %s }' % (
                        test, effects + ' ' if effects else '', call.replace('mainActor_', 'this.mainActor_')))
                else:
                    out.append('    func %s() %s{ %sMainActor.assumeIsolated { %s } }' % (
                        test, 'throws ' if throws else '', 'try ' if throws else '', call))
                out.extend(lines[i:j])
                out.append(lines[j].replace('func ' + test, 'func mainActor_' + test, 1))
                i = j + 1
                continue
        out.append(lines[i]); i += 1
    open(path, 'w').write('\n'.join(out))
PY
: > failures.txt
# Dropping a helper can leave its callers unbuildable: build, drop what the compiler refused, again.
for pass in 1 2 3 4 5 6; do
  swift build --build-tests > build-run.log 2>&1 && break
  [ $pass = 6 ] && { grep -a "error:" build-run.log | sort -u | head -20; exit 1; }
  grep -a "^/.*error:" build-run.log | sort -u > errs-run.txt
  python3 "$here/drop.py" errs-run.txt "$@"
done
python3 "$here/run-classes.py" "$@"
