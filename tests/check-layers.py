#!/usr/bin/python3
"""The rooms' layering, checked against docs/DESIGN.md's room table.

DESIGN.md's "Rooms" table is the data: each row names a folder and, in its
last column, the rooms it may use: a list ("stats, db, jobs, lib"), "X and
below" (X and everything X may use, transitively), "everything but X",
"all" or "libc" (no room). This script reads that table and every
`#include "room/file.h"` of the C sources, and names each include that breaks
it:

  - a room including a header of a room it may not use;
  - a room including another room's private header (`*_internal.h`,
    `*_backend.h`);
  - an include that is not from the top (`#include "err.h"`), since only
    those can be checked;
  - a folder of C sources that the table does not name;
  - a room's header in angle brackets (`#include <db/db.h>`), checked as
    the same include and refused for its form;
  - a row that names a room its folder never includes (a row says only
    what is used; rows written as "X and below", "everything but X" or
    "all" are exempt);
  - a library's header (DESIGN.md's "Libraries" table: `<git2.h>`,
    `<sqlite3.h>`, ...) included in a room its row does not name (a row
    names rooms, `kernel`, or single files of a room, `lib/git.c`: then
    the room's other files may not include it);
  - a Libraries row naming a room or a file that never includes the
    library (a row says only what is used).

Usage: check-layers.py [ROOT]   (ROOT: the source tree, default: cwd)
Exit status 0 when the tree keeps the table, 1 with one line per break,
2 when the table cannot be read.
"""

import os
import re
import sys

SKIP_DIRS = {"tests", "build", "docs", "config/kernel"}


def fail_table(msg):
    sys.stderr.write("check-layers: docs/DESIGN.md: %s\n" % msg)
    sys.exit(2)


def read_table(path):
    """Return {room: raw 'may use' text} from the Rooms table."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail_table("cannot read: %s" % e)
    rows = {}
    in_rooms = False
    for n, line in enumerate(lines, 1):
        if line.startswith("## "):
            in_rooms = line.strip() == "## Rooms"
            continue
        if not in_rooms or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("folder", "") or set(cells[0]) <= set("-: "):
            continue
        m = re.fullmatch(r"`([a-z_]+)/`", cells[0])
        if not m:
            fail_table("line %d: folder cell %r is not `name/`" % (n, cells[0]))
        rows[m.group(1)] = (n, cells[-1])
    if not rows:
        fail_table("no Rooms table found")
    return rows


def read_libraries(path):
    """Return {header: (line, library, set of rooms)} from the Libraries
    table: | library | headers | rooms |, headers and rooms comma lists,
    a header ending in / covering every header under it; a "room" with a
    / inside it (`lib/git.c`) is one file of a room."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    libs = {}
    in_libs = False
    for n, line in enumerate(lines, 1):
        if line.startswith("## "):
            in_libs = line.strip() == "## Libraries"
            continue
        if not in_libs or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("library", "") or set(cells[0]) <= set("-: "):
            continue
        rooms = {r.strip().strip("`").strip("/") for r in cells[2].split(",") if r.strip()}
        for h in cells[1].split(","):
            h = h.strip().strip("`").strip("<>")
            if h:
                libs[h] = (n, cells[0], rooms)
    return libs


def shown(entries):
    """A row's rooms and files as the messages name them: `kernel/`, `lib/git.c`."""
    return ", ".join(sorted(e if "/" in e else e + "/" for e in entries))


def library_of(libs, header):
    if header in libs:
        return libs[header]
    for h, v in libs.items():
        if h.endswith("/") and header.startswith(h):
            return v
    return None


def resolve(rows):
    """Turn each row's 'may use' text into the set of rooms it may include."""
    rooms = set(rows)
    done = {}

    def uses(room, stack=()):
        if room in done:
            return done[room]
        if room in stack:
            fail_table("'%s' is defined through itself" % room)
        n, text = rows[room]
        text = text.strip().rstrip(".")
        allowed = set()
        m_below = re.fullmatch(r"([a-z_]+) and below", text)
        m_but = re.fullmatch(r"everything but ([a-z_, ]+)", text)
        if text == "all":
            allowed = set(rooms)
        elif text == "libc":
            allowed = set()
        elif m_below:
            base = m_below.group(1)
            if base not in rooms:
                fail_table("line %d: '%s' is not a room" % (n, base))
            allowed = {base} | uses(base, stack + (room,))
        elif m_but:
            out = {r.strip() for r in m_but.group(1).split(",")}
            for r in out:
                if r not in rooms:
                    fail_table("line %d: '%s' is not a room" % (n, r))
            allowed = rooms - out
        else:
            for r in text.split(","):
                r = r.strip()
                if r not in rooms and re.fullmatch(r"lib[a-z0-9]+", r):
                    continue  # a library outside kreg (libc, libyaml)
                if r not in rooms:
                    fail_table("line %d: '%s' in \"%s\" is not a room" % (n, r, text))
                allowed.add(r)
        allowed.discard(room)
        done[room] = allowed
        return allowed

    return {room: uses(room) for room in rooms}, rows


INCLUDE = re.compile(r'^\s*#\s*include\s+(["<])([^">]+)[">]')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    design = os.path.join(root, "docs", "DESIGN.md")
    allowed, rows = resolve(read_table(design))
    libs = read_libraries(design)
    used = {}
    lib_used = {}	# library -> the entries of its row some file used
    breaks = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and os.path.normpath(os.path.join(rel_dir, d)) not in SKIP_DIRS)
        sources = sorted(f for f in filenames if f.endswith((".c", ".h")))
        if rel_dir == "." or not sources:
            continue
        room = rel_dir.split(os.sep)[0]
        if room not in allowed:
            breaks.append("%s/: a folder of C sources that docs/DESIGN.md's Rooms table does not name"
                          % rel_dir)
            continue
        may = ", ".join(sorted(allowed[room])) or "no other room"
        for name in sources:
            path = os.path.join(rel_dir, name)
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    angle, inc = m.group(1) == "<", m.group(2)
                    lib = library_of(libs, inc) if angle else None
                    fpath = path.replace(os.sep, "/")
                    if lib and (room in lib[2] or fpath in lib[2]):
                        lib_used.setdefault(lib[1], set()).add(room if room in lib[2] else fpath)
                    elif lib:
                        # the file when its row names other files of the room, else the room
                        who = fpath if any(r.startswith(room + "/") for r in lib[2]) else room + "/"
                        breaks.append("%s:%d: #include <%s>: %s may not use %s (docs/DESIGN.md "
                                      "line %d: %s is for %s)"
                                      % (path, n, inc, who, lib[1], lib[0], lib[1], shown(lib[2])))
                    if angle and inc.split("/")[0] not in allowed:
                        continue  # a system or library header
                    if angle:
                        breaks.append('%s:%d: #include <%s>: a room\'s header in angle brackets '
                                      '(HACKING.md: #include "%s")' % (path, n, inc, inc))
                    if "/" not in inc:
                        breaks.append('%s:%d: #include "%s" is not from the top (HACKING.md: '
                                      '#include "%s/%s")' % (path, n, inc, room, inc))
                        continue
                    target = inc.split("/")[0]
                    if target not in allowed:
                        continue  # not a room (a system or generated header)
                    if target == room:
                        continue
                    used.setdefault(room, set()).add(target)
                    if target not in allowed[room]:
                        breaks.append('%s:%d: #include "%s": %s/ may not use %s/ '
                                      "(docs/DESIGN.md line %d: %s/ may use %s)"
                                      % (path, n, inc, room, target, rows[room][0], room, may))
                    elif re.search(r"_(internal|backend)\.h$", inc):
                        breaks.append('%s:%d: #include "%s": a private header of %s/ '
                                      "(HACKING.md: not included from other rooms)"
                                      % (path, n, inc, target))
    for room, (n, text) in sorted(rows.items()):
        text = text.strip().rstrip(".")
        if text in ("all", "libc") or " and below" in text or text.startswith("everything but"):
            continue
        for r in sorted(allowed[room] - used.get(room, set())):
            breaks.append("docs/DESIGN.md line %d: %s/ may use %s/, but no file of %s/ includes "
                          "it (a row says only what is used)" % (n, room, r, room))
    seen = set()
    for h, (n, name, entries) in sorted(libs.items(), key=lambda kv: kv[1][0]):
        if name in seen:
            continue
        seen.add(name)
        for e in sorted(entries - lib_used.get(name, set())):
            what = ("no file of %s/ includes it" % e) if "/" not in e else ("%s does not include it" % e)
            breaks.append("docs/DESIGN.md line %d: %s is for %s, but %s (a row says only what "
                          "is used)" % (n, name, e + "/" if "/" not in e else e, what))
    for b in breaks:
        print(b)
    if breaks:
        sys.stderr.write("check-layers: %d include(s) break the rooms' layering\n" % len(breaks))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
