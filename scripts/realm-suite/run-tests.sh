#!/usr/bin/env bash
# Runs some of Realm Swift's test files against `import Outpost`, after run.sh measured them: keeps only the named
# files and the shared models, drops the test functions that did not compile, builds, and runs every remaining test
# in a process of its own (a trap ends only its test). Prints PASS / FAIL / CRASH per test and the totals.
# Runs the test class named as its file (QueryTests.swift: class QueryTests).
#   scripts/realm-suite/run-tests.sh QueryTests GeospatialTests   (after scripts/realm-suite/run.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${REALM_SUITE_DIR:-/tmp/outpost-realm-suite}
realm=${REALM_SWIFT_GIT:-/work/.mirror/realm+realm-swift/repo}
cd "$work"
[ -f errs.txt ] || { echo "run scripts/realm-suite/run.sh first" >&2; exit 2; }
shared="TestCase TestUtils ModernTestObjects CustomPersistableTestObjects TestValueFactory"
mkdir -p hold
for f in Tests/RS/*.swift; do
  name=$(basename "$f" .swift)
  keep=no
  for k in $shared "$@"; do [ "$k" = "$name" ] && keep=yes; done
  [ $keep = no ] && mv "$f" hold/
done
# Legacy models the modern files lean on, written here as @Persisted stand-ins (the originals are @objc dynamic).
cat > Tests/RS/HarnessStandIns.swift <<'SWIFT'
import Outpost

public class AddressSwift: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var country = ""
}

class SwiftStringObject: Object {
    @Persisted var stringCol = ""
}
SWIFT
sed -i -e 's/^@objc(ModernObjcRenamedObject)$//' -e 's/^@objc(ModernObjcRenamedObjectWithTotallyDifferentName)$//' \
  Tests/RS/ModernTestObjects.swift
# NSPredicate cannot parse format strings on Linux: compare the predicate text only.
python3 - "$@" <<'PY'
import re, sys
errors = {}
for line in open('errs.txt'):
    m = re.match(r'.*/Tests/RS/([^:/]+):(\d+):\d+: error', line)
    if m:
        errors.setdefault(m.group(1), set()).add(int(m.group(2)))
for name in sys.argv[1:]:
    path = 'Tests/RS/%s.swift' % name
    lines = open(path).read().split('\n')
    text = '\n'.join(lines)
    starts = [i for i, l in enumerate(lines) if re.match(r'\s*(?:@\w+\s+)*(?:override\s+)?func test\w*\(', l)]
    drop = []
    for s in starts:
        indent = len(lines[s]) - len(lines[s].lstrip())
        e = s + 1
        while e < len(lines) and not (lines[e].startswith(' ' * indent + '}') and len(lines[e]) - len(lines[e].lstrip()) == indent):
            e += 1
        if any(s + 1 <= ln <= e + 1 for ln in errors.get(name + '.swift', ())):
            drop.append((s, e))
    for s, e in reversed(drop):
        del lines[s:e + 1]
    text = '\n'.join(lines)
    text = re.sub(r'\n\s*XCTAssertEqual\(NSPredicate\(format: queryStr, argumentArray: constructedValues\),\n\s*NSPredicate\(format: predicate, argumentArray: values\)\)', '', text)
    open(path, 'w').write(text)
    print('%s: dropped %d tests that do not compile' % (name, len(drop)))
PY
swift build --build-tests > build-run.log 2>&1 || { grep -a "error:" build-run.log | sort -u | head -20; exit 1; }
pass=0; fail=0; crash=0
for name in "$@"; do
  for t in $(grep -oE "func test[A-Za-z0-9_]+\(" "Tests/RS/$name.swift" | sed 's/func //; s/(//' | sort -u); do
    out=$(timeout 300 swift test --skip-build --filter "$name.$t\$" 2>&1 || true)
    if echo "$out" | grep -q "Executed 1 test, with 0 failures"; then echo "PASS  $name.$t"; pass=$((pass + 1))
    elif echo "$out" | grep -q "Executed 0 tests"; then :
    elif echo "$out" | grep -q "unexpected signal"; then
      echo "CRASH $name.$t: $(echo "$out" | grep -m1 'Fatal error' | cut -c1-200)"; crash=$((crash + 1))
    else echo "FAIL  $name.$t: $(echo "$out" | grep -m1 'error:' | sed 's/.*error: //' | cut -c1-200)"; fail=$((fail + 1)); fi
  done
done
echo "passed $pass, failed $fail, crashed $crash"
echo "(Realm's assertThrows catches Objective-C exceptions; the shim skips its block, so those checks are not run.)"
