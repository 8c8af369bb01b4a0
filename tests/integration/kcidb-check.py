#!/usr/bin/python3
# Checks of a `kreg export kcidb` document (tests/integration/72-kcidb-export.t).
#
#   kcidb-check.py valid DOC SCHEMA   strict UTF-8 and JSON, valid against
#                                     the schema, ids unique, times RFC 3339;
#                                     prints the count of each list
#   kcidb-check.py linked DOC         every reference names an object of DOC
#   kcidb-check.py numbers DOC DB     each test's number is its stored sample,
#                                     and every sample of a finished run at a
#                                     commit is one test; prints the count
#   kcidb-check.py get DOC EXPR       prints EXPR (Python, d: the document)
import datetime
import json
import sqlite3
import sys


def load(path):
    raw = open(path, 'rb').read()
    text = raw.decode('utf-8')          # strict: raises on bytes that are not UTF-8
    return json.loads(text)


LISTS = ('checkouts', 'builds', 'tests', 'issues', 'incidents')


def valid(doc_path, schema_path):
    import jsonschema
    d = load(doc_path)
    jsonschema.validate(d, json.load(open(schema_path)))
    for name in LISTS:
        ids = [o['id'] for o in d.get(name, [])]
        if len(ids) != len(set(ids)):
            sys.exit('%s: ids are not unique' % name)
        for o in d.get(name, []):
            for key in ('start_time',):
                if key in o:
                    datetime.datetime.fromisoformat(o[key])
    print(' '.join('%s=%d' % (n, len(d.get(n, []))) for n in LISTS))


def linked(doc_path):
    d = load(doc_path)
    ids = {n: {o['id'] for o in d[n]} for n in LISTS}
    refs = [('builds', 'checkout_id', 'checkouts'), ('tests', 'build_id', 'builds'),
            ('incidents', 'issue_id', 'issues'), ('incidents', 'test_id', 'tests')]
    n = 0
    for lst, key, target in refs:
        for o in d[lst]:
            if key in o:
                if o[key] not in ids[target]:
                    sys.exit('%s %s: %s %s is not in %s' % (lst, o['id'], key, o[key], target))
                n += 1
    print('%d references' % n)


# kreg's monitors (stats/stats.c kreg_stats_metric_is_monitor): not exported
MONITORS = ('proc-vmstat.', 'vmstat.', 'mpstat.', 'iostat.', 'interrupts.', 'softirqs.',
            'meminfo.', 'schedstat.', 'perf-stat.', 'perf-profile.')


def numbers(doc_path, db_path):
    d = load(doc_path)
    db = sqlite3.connect(db_path)
    stored = {}
    for run, metric, value in db.execute(
            "SELECT s.run_id, m.name, s.value FROM samples s JOIN metrics m ON m.id = s.metric_id "
            "JOIN runs u ON u.id = s.run_id WHERE u.status != 'running' "
            "AND u.commit_id IS NOT NULL"):
        if not metric.startswith(MONITORS):
            stored[(run, metric)] = value
    seen = 0
    for t in d['tests']:
        if 'number' not in t:
            continue
        key = (t['misc']['kreg_run'], t['misc']['metric'])
        if key not in stored:
            sys.exit('test %s: no such sample in the database' % t['id'])
        if t['number']['value'] != stored[key]:
            sys.exit('test %s: %r, stored %r' % (t['id'], t['number']['value'], stored[key]))
        seen += 1
    if seen != len(stored):
        sys.exit('%d numbers in the document, %d samples stored' % (seen, len(stored)))
    print('%d numbers are the stored samples' % seen)


def get(doc_path, expr):
    d = load(doc_path)
    print(eval(expr, {'d': d}))


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    {'valid': valid, 'linked': linked, 'numbers': numbers, 'get': get}[cmd](*args)
