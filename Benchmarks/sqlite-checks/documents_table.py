"""The server's `documents` table with raw SQLite (Python's sqlite3 module, C speed for the inserts): 100,000
upserts in 26 transactions, WAL and synchronous=FULL as the server runs them, as a rowid table with a separate
primary-key index (what outpost-server uses) and as a WITHOUT ROWID table, for small documents (the upload
benchmark's) and 2 KB ones; then 20,000 lookups of random keys, as the server loads an upload's objects. Both
shapes run in the same process, one after the other, twice.

    python3 Benchmarks/sqlite-checks/documents_table.py
"""
import os
import random
import sqlite3
import tempfile
import time


def run(without_rowid, body_length):
    path = os.path.join(tempfile.gettempdir(), "outpost-documents-check.db")
    for suffix in ["", "-wal", "-shm"]:
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("pragma journal_mode=wal")
    c.execute("pragma synchronous=full")
    c.execute("create table documents (app text not null, collection text not null, pk_key text not null, "
              "body text not null, primary key (app, collection, pk_key))" + (" without rowid" if without_rowid else ""))
    keys = ["%024x" % (0x6b07f99e00000000000000 + i) for i in range(100000)]
    big = "x" * body_length
    start = time.time()
    for batch in range(26):
        c.execute("begin immediate")
        rows = []
        for i, key in enumerate(keys[batch * 3847:(batch + 1) * 3847]):
            body = big if body_length else '{"_id":{"$oid":"%s"},"n":%d,"name":"object %d"}' % (key, i, i)
            rows.append(("outpost-dev", "BenchItem", '{"$oid":"%s"}' % key, body))
        c.executemany("insert into documents values (?, ?, ?, ?) on conflict (app, collection, pk_key) "
                      "do update set body = excluded.body", rows)
        c.execute("commit")
    elapsed = time.time() - start
    lookup = c.cursor()
    start = time.time()
    for key in random.Random(7).sample(keys, 20000):
        lookup.execute("select body from documents where app = ? and collection = ? and pk_key = ?",
                       ("outpost-dev", "BenchItem", '{"$oid":"%s"}' % key)).fetchone()
    looked_up = time.time() - start
    c.close()
    return elapsed, looked_up


for body_length in [0, 2000]:
    for without_rowid in [False, True, False, True]:
        inserts, lookups = run(without_rowid, body_length)
        print("%-13s %-12s upserts %.3f s, 20,000 lookups %.3f s" % (
            "without rowid" if without_rowid else "rowid", "2 KB bodies" if body_length else "small bodies",
            inserts, lookups))
