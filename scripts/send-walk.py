#!/usr/bin/env python3
"""The walk of issue 34, counted by a script so that two trees are counted alike.

Usage: scripts/send-walk.py DIR [-v]   (DIR holds a `src/`; `git archive REV src | tar -x -C DIR`)

Start: `api::messages::send_message`. A stop is a function of the crate (src/, tests
left out) reached from the start through calls, that takes the request context or one
of its parts: a `RequestContext`, the `D1Database` (statement builders that take it
count), the `Env` (the bindings), or `self` of `RequestContext` or the `Authenticator`.
Functions that take none of these (rules, rendering, planning) are neither stops nor
followed: the walk follows the ctx. Modules = distinct files of the stops. Climbs = call
edges between stops where the callee's layer is above the caller's: api (src/api,
context.rs, request_body.rs, routes.rs, params.rs, response.rs) > actions > domain > db >
model; authentication and the platform modules (auth, realm_cache, remembered_reads,
rate_limits, events, settings, ...) have no layer and make no climb.

The resolution of calls is by name (a method by its receiver where it says, `self`,
`ctx`, `auth`; a path by its last segment or the caller's imports): crude, but the same for
both trees. `--all` counts every function reached, pure ones too (markdown and emoji left
out).
"""
import os, re, sys
from collections import defaultdict

root = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith('-') else '.'
src = os.path.join(root, 'src')
CARRIERS = ("RequestContext", "D1Database", "Env", "Authenticator", "Sender")
ALL = "--all" in sys.argv

fns = []  # dict(name, file, impl, start, end, sig, body)
def strip_comments(text):
    out = []
    for line in text.split('\n'):
        i = line.find('//')
        # keep '//' inside strings like "https://": crude: only strip when preceded by space/start
        if i >= 0 and (i == 0 or line[:i].strip() == '' or line[i-1] == ' ') and line.count('"', 0, i) % 2 == 0:
            line = line[:i]
        out.append(line)
    return '\n'.join(out)

def match_brace(text, i):
    depth = 0
    n = len(text)
    j = i
    in_str = False
    while j < n:
        c = text[j]
        if in_str:
            if c == '\\':
                j += 2; continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "'" and j + 2 < n and (text[j+2] == "'" or (text[j+1] == '\\' and text[j+3] == "'")):
            j += 3 if text[j+2] == "'" else 4
            continue
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return n

for dirpath, _, files in os.walk(src):
    for f in files:
        if not f.endswith('.rs') or f in ('tests.rs',) or 'tests' in f and f.endswith('_tests.rs'):
            continue
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, src)
        text = strip_comments(open(path).read())
        # test modules
        skip = []
        for m in re.finditer(r'#\[cfg\(test\)\]\s*mod\s+\w+\s*\{', text):
            skip.append((m.start(), match_brace(text, m.end() - 1)))
        impls = []
        for m in re.finditer(r'\bimpl\b(?:<[^{]*?>)?\s+([^{;]*?)\s*\{', text):
            head = m.group(1)
            ty = head.split(' for ')[-1].strip()
            ty = re.sub(r'<.*', '', ty).split('::')[-1].strip()
            impls.append((m.start(), match_brace(text, m.end() - 1), ty))
        for m in re.finditer(r'\bfn\s+([a-z_][a-z0-9_]*)\s*(<[^(]*?>)?\s*\(', text):
            if any(a <= m.start() <= b for a, b in skip):
                continue
            brace = text.find('{', m.end())
            semi = text.find(';', m.end())
            if brace < 0 or (0 <= semi < brace):
                continue
            end = match_brace(text, brace)
            impl = None
            for a, b, ty in impls:
                if a <= m.start() <= b:
                    impl = ty
            fns.append(dict(name=m.group(1), file=rel, impl=impl, sig=text[m.start():brace], body=text[brace:end], uses=None))
        for fn in fns:
            if fn['file'] == rel and fn['uses'] is None:
                fn['uses'] = text

by_name = defaultdict(list)
for i, fn in enumerate(fns):
    by_name[fn['name']].append(i)

def module_of(fn):
    return fn['file'][:-3].replace('/mod', '').replace('/', '::')

def carries(fn):
    sig = fn['sig']
    if 'self' in sig.split('(', 1)[1].split(',')[0] and fn['impl'] in ('RequestContext', 'Authenticator', 'RememberedReads', 'Sender', 'ReadsToRemember'):
        return True
    return any(re.search(r'\b' + c + r'\b', sig) for c in CARRIERS)

def imported_module(fn, name):
    """The module a `use` of the caller's file imports `name` from, if any."""
    text = fn['uses']
    for m in re.finditer(r'use\s+crate::([\w:]+)::\{([^}]*)\}|use\s+crate::([\w:]+)::(\w+)\s*;', text):
        if m.group(1):
            names = [x.strip().split(' as ')[0] for x in m.group(2).replace('\n', ' ').split(',')]
            if name in names:
                return m.group(1)
        elif m.group(4) == name:
            return m.group(3)
    return None

def candidates(caller, qual, name, method, receiver):
    cands = by_name.get(name, [])
    if not cands:
        return []
    if method:
        if receiver == 'self' and caller['impl']:
            c = [i for i in cands if fns[i]['impl'] == caller['impl']]
            if c: return c
        if receiver == 'auth':
            c = [i for i in cands if fns[i]['impl'] == 'Authenticator']
            if c: return c
        if receiver == 'ctx':
            c = [i for i in cands if fns[i]['impl'] in ('RequestContext',)]
            if c: return c
        c = [i for i in cands if fns[i]['impl']]
        return c if len(c) == 1 else [i for i in c if carries(fns[i])][:1] if len(c) > 1 and len([i for i in c if carries(fns[i])]) == 1 else []
    if qual:
        q = qual.split('::')[-1]
        if q == 'Self':
            q = caller['impl']
        c = [i for i in cands if fns[i]['impl'] == q]
        if c: return c
        c = [i for i in cands if module_of(fns[i]).split('::')[-1] == q and not fns[i]['impl']]
        if c: return c
        mod = imported_module(caller, q)
        if mod:
            full = mod + '::' + q
            c = [i for i in cands if module_of(fns[i]) == full and not fns[i]['impl']]
            if c: return c
        return []
    c = [i for i in cands if fns[i]['file'] == caller['file'] and not fns[i]['impl']]
    if c: return c
    mod = imported_module(caller, name)
    if mod:
        c = [i for i in cands if module_of(fns[i]) == mod and not fns[i]['impl']]
        if c: return c
    c = [i for i in cands if not fns[i]['impl']]
    return c if len(c) == 1 else []

CALL = re.compile(r'(\.\s*)?((?:[A-Za-z_][A-Za-z0-9_]*::)*)([a-z_][a-z0-9_]*)\s*(?:::<[^()]*>)?\s*\(')
def calls(i):
    fn = fns[i]
    body = fn['body']
    out = set()
    # `let read = |...| ...; read(x)` calls the closure, not a function named `read`.
    closures = set(re.findall(r'\blet\s+(?:mut\s+)?([a-z_][a-z0-9_]*)\s*=\s*(?:move\s*)?\|', body))
    for m in CALL.finditer(body):
        method = bool(m.group(1))
        qual = m.group(2).rstrip(':')
        name = m.group(3)
        if not method and not qual and name in closures:
            continue
        receiver = None
        if method:
            k = m.start() - 1
            while k >= 0 and (body[k].isalnum() or body[k] == '_'):
                k -= 1
            receiver = body[k+1:m.start()]
            if receiver == '' and body[m.start()-1:m.start()] == ')':
                receiver = None
        for j in candidates(fn, qual, name, method, receiver):
            if j != i:
                out.add(j)
    # passing a function by name (`.map(foo)`)
    return out

def layer(fn):
    f = fn['file']
    if f.startswith('api/') or f in ('context.rs', 'routes.rs', 'params.rs', 'response.rs', 'request_body.rs'):
        return 4
    if f.startswith('model/'):
        return 0
    for p, l in (('actions/', 3), ('domain/', 2), ('db/', 1)):
        if f.startswith(p):
            return l
    return None

start = [i for i in by_name['send_message'] if fns[i]['file'] == 'api/messages.rs'][0]
seen = {start}
order = [start]
edges = []
stack = [start]
while stack:
    i = stack.pop()
    for j in sorted(calls(i)):
        if not ALL and not carries(fns[j]):
            continue
        if ALL and (fns[j]['file'].startswith(('markdown/', 'emoji/'))):
            continue
        edges.append((i, j))
        if j not in seen:
            seen.add(j); order.append(j); stack.append(j)

def label(i):
    fn = fns[i]
    return f"{module_of(fn)}::{fn['impl'] + '::' if fn['impl'] else ''}{fn['name']}"

climbs = [(a, b) for a, b in set(edges) if layer(fns[a]) is not None and layer(fns[b]) is not None and layer(fns[b]) > layer(fns[a])]
modules = sorted({fns[i]['file'] for i in seen})
if '-v' in sys.argv:
    for i in sorted(seen, key=label):
        print('  stop', label(i))
    for a, b in sorted(climbs, key=lambda e: (label(e[0]), label(e[1]))):
        print('  climb', label(a), '->', label(b))
    for m in modules:
        print('  module', m)
print(f"stops {len(seen)}  modules {len(modules)}  climbs {len(climbs)}")
