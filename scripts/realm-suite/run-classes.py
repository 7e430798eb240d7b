#!/usr/bin/env python3
"""Runs the built Realm tests of the named files (after run-tests.sh prepared and built them) and writes a verdict
per test to results.txt: the test binary runs every test not yet decided, in order; a test that traps (or hangs
past the time limit) ends that process, is recorded as crashed with the trap's message, and the rest go on in a
new process. Usage: run-classes.py File...   (in the scratch package, REALM_SUITE_DIR)"""
import os, re, subprocess, sys

work = os.environ.get('REALM_SUITE_DIR', '/tmp/outpost-realm-suite')
os.chdir(work)
binary = next(os.path.join(d, f) for d, _, fs in os.walk('.build') for f in fs + [os.path.basename(d)]
              if f == 'RSPackageTests.xctest' and os.path.isfile(os.path.join(d, f)))
listed = subprocess.run([binary, '--list-tests'], capture_output=True, text=True).stdout.split('\n')
declared = set()
for name in sys.argv[1:]:
    for line in open('Tests/RS/%s.swift' % name):
        m = re.match(r'(?:final\s+)?class\s+(\w+)', line)
        if m: declared.add(m.group(1))
tests = []
for line in listed:
    m = re.match(r'\s*RS\.(\w+)/(\w+)', line) or re.match(r'\s*RS\.(\w+)\.(\w+)', line)
    if m and m.group(1) in declared: tests.append('%s.%s' % (m.group(1), m.group(2)))
log = open('runs.log', 'w')
verdicts = {}
remaining = list(tests)
while remaining:
    batch = remaining[:400]
    spec = ','.join('RS.%s/%s' % tuple(t.split('.')) for t in batch)
    try:
        out = subprocess.run([binary, spec], capture_output=True, text=True, errors='replace', timeout=600)
        text = out.stdout + out.stderr
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b'').decode(errors='replace') + (e.stderr or b'').decode(errors='replace') + '\nharness: timed out'
    log.write(text)
    started = None
    for line in text.split('\n'):
        m = re.search(r"Test Case '([\w.]+)' (started|passed|failed)", line)
        if not m: continue
        if m.group(2) == 'started': started = m.group(1)
        else: verdicts[m.group(1)] = m.group(2); started = None
    if started and started not in verdicts:
        fatal = re.search(r'Fatal error: (.*)', text)
        reason = fatal.group(1)[:160] if fatal else ('timed out' if 'harness: timed out' in text else 'no verdict')
        verdicts[started] = 'crashed ' + reason
    elif not any(t in verdicts for t in batch):
        for t in batch: verdicts[t] = 'crashed the batch ended without a verdict'
    remaining = [t for t in remaining if t not in verdicts]
with open('results.txt', 'w') as f:
    for t in tests:
        v = verdicts[t]
        f.write('%s %s%s\n' % (v.split(' ')[0], t, v[len(v.split(' ')[0]):]))
failures = sorted({re.sub(r'.*: error: ', '', l)[:220] for l in open('runs.log', errors='replace') if ': error: ' in l})
open('failures.txt', 'w').write('\n'.join(failures) + '\n')
counts = {k: sum(1 for v in verdicts.values() if v.startswith(k)) for k in ('passed', 'failed', 'crashed')}
print('passed %(passed)d, failed %(failed)d, crashed %(crashed)d' % counts)
