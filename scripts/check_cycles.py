#!/usr/bin/env python3
"""Fails (exit 1) on an import cycle between the files of src/.

Every file's `use` declarations and inline paths starting with `crate::`,
`super::`, `self::` or the name of a child module are resolved to the file
that defines the module they name (the longest module prefix that is a
file: `x.rs` or `x/mod.rs`); an edge A -> B means A names something of B.
A name reached through a re-export (`pub use b::Item;` in a module file)
is resolved to where the re-export points. `mod x;` declarations are not
edges, nor are comments. Test code is left out: `#[cfg(test)] mod x { .. }`
blocks and the files of `#[cfg(test)] mod x;` (`#[path = ..]` included;
tests may use anything). A strongly connected component of two or more
files is a cycle; one cycle through it is printed. The same is done for the
layers (the top-level modules: lang, report, milp, nis, ...), where a cycle
means a lower layer names something of a higher one.

Inside an engine, the order of its layers is declared in
scripts/engine_layers.txt (see there): a file that names a file of a higher
layer of its engine is an upward arrow and fails the check.

Known cycles that belong to other work can be listed, one per line as the
files of the cycle separated by spaces, in scripts/import_cycles_allowed.txt
(layer cycles by layer names; lines starting with # are comments). They are reported but do not fail the
check; an entry that no longer matches a cycle is reported as stale.

Usage: scripts/check_cycles.py [--root DIR] [--no-allow-list]
"""

import argparse
import os
import re
import sys

USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE_RE = re.compile(r"(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)")
TEST_BLOCK_RE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
TEST_MOD_RE = re.compile(
    r"#\[cfg\(test\)\]\s*(?:#\[path\s*=\s*\"([^\"]+)\"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;"
)
COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING_RE = re.compile(r'"(?:\\.|[^"\\])*"')


def strip(text):
    """The code without comments and string literals."""
    text = COMMENT_RE.sub("", text)
    return STRING_RE.sub('""', text)


def drop_test_blocks(code):
    """The code without its `#[cfg(test)] mod x { .. }` blocks."""
    while True:
        m = TEST_BLOCK_RE.search(code)
        if not m:
            return code
        depth, i = 1, m.end()
        while depth and i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + code[i:]


def expand(tree):
    """`a::{b, c::{d, e}}` as the paths a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"\bas\w+$", "", tree)]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    out = []
    for p in parts:
        if p:
            out.extend(expand(prefix + p))
    return out


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = []
        for d, _, names in os.walk(src):
            for n in sorted(names):
                if n.endswith(".rs"):
                    self.files.append(os.path.relpath(os.path.join(d, n), src))
        self.files.sort()
        self.module_file = {}
        for f in self.files:
            self.module_file[self.module_of(f)] = f
        self.code, self.raw = {}, {}
        for f in self.files:
            with open(os.path.join(src, f), encoding="utf-8") as fh:
                self.raw[f] = COMMENT_RE.sub("", fh.read())
                self.code[f] = STRING_RE.sub('""', self.raw[f])
        # Per file, the names it re-exports and the paths they come from.
        self.reexports = {f: {} for f in self.files}
        for f in self.files:
            for m in USE_RE.finditer(self.code[f]):
                if not m.group(1):
                    continue
                for path in expand(m.group(2)):
                    alias = re.search(r"\bas(\w+)$", path)
                    name = alias.group(1) if alias else path.split("::")[-1]
                    path = re.sub(r"\bas\w+$", "", path)
                    if name not in ("*", "self"):
                        self.reexports[f][name] = path

    @staticmethod
    def module_of(f):
        """The module path of a file: src/a/b.rs and src/a/b/mod.rs are ("a", "b")."""
        parts = f[:-3].split(os.sep)
        if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
            parts = parts[:-1]
        return tuple(parts)

    def resolve(self, current, path, depth=0):
        """The file defining what `path` names, seen from module `current`
        (through re-exports)."""
        segs = path.split("::")
        if current + (segs[0],) in self.module_file and segs[0] not in ("crate", "self", "super"):
            segs = ["self"] + segs
        if segs[0] == "crate":
            base, rest = (), segs[1:]
        elif segs[0] in ("self", "super"):
            base = current
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            rest = segs
        else:
            return None
        best, used = base, 0
        for i in range(1, len(rest) + 1):
            if base + tuple(rest[:i]) in self.module_file:
                best, used = base + tuple(rest[:i]), i
            else:
                break
        target = self.module_file.get(best, self.module_file.get((), None))
        if target and used < len(rest) and depth < 16:
            via = self.reexports.get(target, {}).get(rest[used])
            if via:
                further = via.split("::") + rest[used + 1 :]
                again = self.resolve(self.module_of(target), "::".join(further), depth + 1)
                if again:
                    return again
        return target

    def test_files(self):
        """Files of modules declared `#[cfg(test)] mod x;`."""
        out = set()
        for f in self.files:
            for m in TEST_MOD_RE.finditer(self.raw[f]):
                if m.group(1):
                    # `#[path = "x.rs"]`: relative to the declaring file's folder.
                    path = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
                    if path in self.code:
                        out.add(path)
                    continue
                child = self.module_of(f) + (m.group(2),)
                if child in self.module_file:
                    out.add(self.module_file[child])
        return out

    def edges(self):
        tests = self.test_files()
        graph = {f: set() for f in self.files if f not in tests}
        for f in graph:
            if f == "main.rs":
                continue
            code = drop_test_blocks(self.code[f])
            current = self.module_of(f)
            paths = []
            for m in USE_RE.finditer(code):
                paths.extend(expand(m.group(2)))
            paths.extend(m.group(1) for m in INLINE_RE.finditer(code))
            for p in paths:
                target = self.resolve(current, p)
                if target and target != f and target in graph:
                    graph[f].add(target)
        return graph


def components(graph):
    """Strongly connected components (Tarjan), each as a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def a_cycle(graph, comp):
    """One cycle through the first file of a component."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def layer_of(f):
    """The top-level module of a file (None for the crate roots)."""
    parts = f[:-3].split(os.sep)
    if len(parts) == 1 and parts[0] in ("lib", "main"):
        return None
    return parts[0]


def read_layers(path):
    """The declared layers per engine: {engine: [(layer, [paths])]}, lowest first."""
    engines, current = {}, None
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                current = engines.setdefault(line[1:-1].strip(), [])
            elif current is None:
                raise SystemExit(f"{path}:{n}: a layer before any [engine]")
            else:
                name, *paths = line.split()
                if not paths:
                    raise SystemExit(f"{path}:{n}: layer `{name}` holds no path")
                current.append((name, paths))
    return engines


def layer_in(engine, layers, f):
    """The index of the layer of `f` (a file under src/ENGINE/) in `layers`,
    or None when no line names it; a longer path wins over a shorter one."""
    rel = f[len(engine) + 1 :]
    best, best_len, star = None, -1, None
    for i, (_, paths) in enumerate(layers):
        for p in paths:
            if p == "*":
                star = i
            elif (p.endswith("/") and rel.startswith(p)) or rel == p:
                if len(p) > best_len:
                    best, best_len = i, len(p)
    return best if best is not None else star


def upward_arrows(graph, engines):
    """Imports from a lower layer to a higher one of the same engine, as
    (engine, file, its layer, target, its layer); and the files no layer names."""
    arrows, unplaced = [], []
    for engine, layers in sorted(engines.items()):
        mine = [f for f in graph if f.startswith(engine + os.sep)]
        for f in sorted(mine):
            a = layer_in(engine, layers, f)
            if a is None:
                unplaced.append((engine, f))
                continue
            for t in sorted(graph[f]):
                b = layer_in(engine, layers, t) if t.startswith(engine + os.sep) else None
                if b is not None and b > a:
                    arrows.append((engine, f, layers[a][0], t, layers[b][0]))
    return arrows, unplaced


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="the repository")
    ap.add_argument("--no-allow-list", action="store_true", help="every cycle fails")
    args = ap.parse_args()
    crate = Crate(os.path.join(args.root, "src"))
    graph = crate.edges()
    allowed = []
    allow_file = os.path.join(args.root, "scripts", "import_cycles_allowed.txt")
    if not args.no_allow_list and os.path.exists(allow_file):
        with open(allow_file, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    allowed.append(set(line.split()))
    used = [False] * len(allowed)
    failed = False
    layers = {}
    for f, targets in graph.items():
        a = layer_of(f)
        if a:
            layers.setdefault(a, set()).update(
                b for b in map(layer_of, targets) if b and b != a
            )
    for b in {b for t in layers.values() for b in t}:
        layers.setdefault(b, set())
    comps = components(graph)
    found = [(c, "src/", "import cycle", ".rs files") for c in comps]
    found += [(c, "", "layer cycle", "layers") for c in components(layers)]
    for comp, prefix, what, members in found:
        g = graph if prefix else layers
        cycle = " -> ".join(prefix + f for f in a_cycle(g, comp))
        hit = [i for i, a in enumerate(allowed) if a == set(comp)]
        if hit:
            used[hit[0]] = True
            print(f"known {what} (allowed): {cycle}")
        else:
            failed = True
            print(f"{what}: {cycle}")
        if len(comp) > 2:
            print(f"  {members} in it: " + ", ".join(prefix + f for f in comp))
        if not prefix:
            for a in comp:
                for b in sorted(layers[a] & set(comp)):
                    why = sorted(f for f in graph if layer_of(f) == a
                                 and any(layer_of(t) == b for t in graph[f]))
                    print(f"  {a} -> {b}: " + ", ".join("src/" + f for f in why))
    layer_file = os.path.join(args.root, "scripts", "engine_layers.txt")
    engines = read_layers(layer_file) if os.path.exists(layer_file) else {}
    arrows, unplaced = upward_arrows(graph, engines)
    for engine, f, a, t, b in arrows:
        failed = True
        print(f"upward import in {engine}: src/{f} ({a}) names src/{t} ({b})")
    for engine, f in unplaced:
        failed = True
        print(f"no layer of {engine} holds src/{f} (scripts/engine_layers.txt)")
    for a, u in zip(allowed, used):
        if not u:
            print("stale allow-list entry (no such cycle now): " + " ".join(sorted(a)))
    print(f"{len(graph)} files, {sum(len(e) for e in graph.values())} imports, "
          f"{len(found)} cycles, {len(arrows)} upward imports in "
          f"{len(engines)} layered engine(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
