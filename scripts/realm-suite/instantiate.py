#!/usr/bin/env python3
"""Makes Realm's generic and template test classes run under Linux's XCTest, which finds tests by indexing the
methods a class declares itself: it cannot list a generic class, lists no inherited test, and has no
defaultTestSuite (Realm's way to instantiate generic classes and to leave template classes out).

- A generic class, or a class whose defaultTestSuite returns an empty suite for itself, is abstract: its tests are
  renamed `genericTest…` so nothing lists them.
- A concrete class below abstract ones gets a forwarding `testX()` for every abstract test it inherits (its own
  overrides are renamed to match, so they still win).
- Every `Generic<Args>.defaultTestSuite` line becomes a final class `Generic_Args: Generic<Args>` with forwarders,
  placed in the file that named it; inside a generic helper (`func addTests<OF: …>`) the helper's callers supply OF.
Prints how many test methods the abstract classes declare and how many instantiated tests it made."""
import json, re, sys

def balanced(s, i):
    """The index after the `<…>` that starts at s[i]."""
    depth = 0
    for k in range(i, len(s)):
        depth += {'<': 1, '>': -1}.get(s[k], 0)
        if depth == 0: return k + 1
    return len(s)

def parse_class(line):
    m = re.match(r'(?:final\s+)?class\s+(\w+)', line)
    if not m: return None
    i = m.end(); generic = i < len(line) and line[i] == '<'
    if generic: i = balanced(line, i)
    rest = line[i:].lstrip()
    sup, args = None, None
    if rest.startswith(':'):
        n = re.match(r':\s*(\w+)', rest)
        sup = n.group(1); j = n.end()
        if j < len(rest) and rest[j] == '<':
            args = rest[j + 1:balanced(rest, j) - 1]
    return m.group(1), generic, sup, args

test_re = re.compile(r'    (override\s+)?func (?:genericT|t)(est\w*)\(\s*\)\s*(async)?\s*(throws)?')
phase = sys.argv[1]  # plan: rename only (line numbers stay, drop.py reads the compiler's); apply: add the classes
files = {name: open('Tests/RS/%s.swift' % name).read().split('\n') for name in sys.argv[2:]}
classes = {}  # name -> dict(file, start, end, generic, sup, args, tests: [(name, effects, mainactor)], empty)
for name, lines in files.items():
    i = 0
    while i < len(lines):
        c = parse_class(lines[i]) if not lines[i].startswith(' ') else None
        if c:
            end = i + 1
            while end < len(lines) and lines[end] != '}': end += 1
            body = lines[i:end + 1]
            tests = []
            for k, l in enumerate(body):
                m = test_re.match(l)
                if m:
                    effects = ' '.join(x for x in (m.group(3), m.group(4)) if x)
                    tests.append(('t' + m.group(2), effects, k > 0 and body[k - 1].strip() == '@MainActor'))
            classes[c[0]] = dict(file=name, start=i, end=end, generic=c[1], sup=c[2], args=c[3], tests=tests,
                                 empty=any('isEqual(%s.self)' % c[0] in l for l in body))
            i = end
        i += 1
if phase == 'plan':
    abstract = {n for n, c in classes.items() if c['generic'] or c['empty']}
    json.dump(sorted(abstract), open('abstract-classes.json', 'w'))
else:
    abstract = set(json.load(open('abstract-classes.json'))) & set(classes)

def inherited(sup):
    """The abstract tests a class whose superclass is `sup` inherits, nearest first."""
    seen, out = set(), []
    while sup in abstract:
        for t in classes[sup]['tests']:
            if t[0] not in seen: seen.add(t[0]); out.append(t)
        sup = classes[sup]['sup']
    return out

def forwarders(tests, own=()):
    out = []
    for test, effects, main in tests:
        if test in own: continue
        call = ('try ' if 'throws' in effects else '') + ('await ' if 'async' in effects else '') + 'genericT' + test[1:] + '()'
        if main: out.append('    @MainActor')
        out.append('    func %s() %s{ %s }' % (test, effects + ' ' if effects else '', call))
    return out

declared = sum(len(classes[n]['tests']) for n in abstract)
made = 0
edits = {name: [] for name in files}  # (line index, lines to insert after it)
renames = {name: set() for name in files}  # line indexes of tests to rename
for n, c in classes.items():
    inh = inherited(c['sup'])
    names = {t[0] for t in inh}
    lines = files[c['file']]
    for k in range(c['start'], c['end']):
        m = test_re.match(lines[k])
        if m and (n in abstract or (m.group(1) and 't' + m.group(2) in names)): renames[c['file']].add(k)
    if n not in abstract and inh:
        own_plain = {t[0] for t in c['tests']} - names
        fw = forwarders(inh, own_plain)
        edits[c['file']].append((c['end'] - 1, fw)); made += len(fw)

# Generic helpers: func addTests<OF: ObjectFactory>(…) and who calls them with which type.
helpers = {}
for name, lines in files.items():
    for k, l in enumerate(lines):
        m = re.match(r'(?:private\s+|fileprivate\s+)?func (\w+)<(\w+)\s*:\s*\w+>\(', l)
        if m: helpers[m.group(1)] = m.group(2)
calls = {h: set() for h in helpers}
for lines in files.values():
    for l in lines:
        for h in helpers:
            for m in re.finditer(r'\b%s\(\s*\w+\s*,\s*(\w+)\.self\)' % h, l): calls[h].add(m.group(1))
generated = set()
if phase == 'plan':
    json.dump({name: [l for l in lines if re.match(r'\s*(?:(?:private\s+|fileprivate\s+)?func \w+<|\w+<.+>\.defaultTestSuite\.tests\.forEach)', l) or l == '}']
               for name, lines in files.items()}, open('instantiations.json', 'w'))
    calls = {h: sorted(v) for h, v in calls.items()}
    json.dump([helpers, calls], open('helpers.json', 'w'))
else:
    helpers, calls = json.load(open('helpers.json'))
plan = json.load(open('instantiations.json'))
for name, lines in files.items():
    helper = None
    extra = []
    for l in plan[name]:
        m = re.match(r'(?:private\s+|fileprivate\s+)?func (\w+)<', l)
        if m and m.group(1) in helpers: helper = m.group(1)
        elif l == '}': helper = None
        m = re.match(r'\s*(\w+)<(.+)>\.defaultTestSuite\.tests\.forEach', l)
        if not m or m.group(1) not in classes: continue
        generic, args = m.group(1), m.group(2)
        variants = [args]
        if helper:
            param = helpers[helper]
            variants = [re.sub(r'\b%s\b' % param, t, args) for t in sorted(calls[helper])]
        for a in variants:
            cls = generic + '_' + re.sub(r'_+', '_', re.sub(r'\W', '_', a.replace('?', 'Opt'))).strip('_')
            if cls in generated: continue
            generated.add(cls)
            tests = [t for t in inherited(generic)]
            fw = forwarders(tests)
            extra += ['', 'final class %s: %s<%s> {' % (cls, generic, a)] + fw + ['}']
            made += len(fw)
    if extra: edits[name].append((len(lines) - 1, extra))

for name, lines in files.items():
    for k in renames[name]:
        lines[k] = lines[k].replace('func test', 'func genericTest', 1)
    for k, add in sorted(edits[name] if phase == 'apply' else [], key=lambda e: -e[0]):
        lines[k + 1:k + 1] = add
    open('Tests/RS/%s.swift' % name, 'w').write('\n'.join(lines))
if phase == 'plan': sys.exit(0)
open('generic-tests.txt', 'w').write('%d %d\n' % (declared, made))
print('tests declared in generic or template classes: %d; instantiated as %d tests of concrete classes' % (declared, made))
