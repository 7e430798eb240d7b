"""Summarises errs.txt (the compiler's errors on Realm's tests) per test function: which tests compile, which only
fail for legacy `@objc dynamic` models or Objective-C, and the most common reasons the others do not compile."""
import collections, os, re, sys

errors = collections.defaultdict(list)
for line in open('errs.txt'):
    m = re.match(r'.*/Tests/RS/([^:/]+):(\d+):\d+: error: (.*)', line)
    if m:
        errors[m.group(1)].append((int(m.group(2)), m.group(3).strip()))
legacy = re.compile(r"'(Swift[A-Za-z0-9]*Object[A-Za-z0-9]*|RealmOptional|RealmProperty|RLM\w+|ObjectiveCSupport|"
                    r"IntEnum|Embedded(Parent|Tree)\w*|SwiftCustomInitializerObject)'|Objective-C|NSObject")
total = compiled = legacy_only = 0
reasons = collections.Counter()
failing = {}
for name in sorted(os.listdir('Tests/RS')):
    lines = open('Tests/RS/' + name).read().split('\n')
    tests = [(i + 1, m.group(1)) for i, l in enumerate(lines)
             if (m := re.match(r'\s*(?:@\w+\s+)*(?:override\s+)?func (test\w*)\(', l))]
    for k, (start, test) in enumerate(tests):
        end = tests[k + 1][0] if k + 1 < len(tests) else 10**9
        messages = [msg for (ln, msg) in errors.get(name, []) if start <= ln < end]
        total += 1
        if not messages:
            compiled += 1
        elif any(legacy.search(m) for m in messages):
            legacy_only += 1
        else:
            failing[(name, test)] = messages
            for m in set(messages):
                reasons[m] += 1
print(f'tests {total}  compile {compiled}  legacy/Objective-C {legacy_only}  modern, not compiling {len(failing)}')
for m, c in reasons.most_common(int(sys.argv[1]) if len(sys.argv) > 1 else 60):
    print(f'{c:4} {m}')
print('-- not compiling, per file')
for f, c in collections.Counter(f for f, _ in failing).most_common():
    print(f'{c:4} {f}')
print('-- errors outside test functions (helpers, models; these stop the whole file)')
outside = collections.Counter()
for name, errs in errors.items():
    lines = open('Tests/RS/' + name).read().split('\n')
    starts = [i + 1 for i, l in enumerate(lines) if re.match(r'\s*(?:@\w+\s+)*(?:override\s+)?func test\w*\(', l)]
    ranges = []
    for s in starts:
        e = s
        while e < len(lines) and not re.match(r'    \}\s*$', lines[e - 1]):
            e += 1
        ranges.append((s, e))
    for ln, msg in errs:
        if not any(s <= ln <= e for s, e in ranges) and not legacy.search(msg) and 'defaultTestSuite' not in msg:
            outside[(name, msg)] += 1
for (f, m), c in sorted(outside.items()):
    print(f'{c:4} {f}: {m}')
