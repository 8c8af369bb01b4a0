#!/bin/bash
# The rooms' layering is checked, not only written down: tests/check-layers.py
# reads docs/DESIGN.md's Rooms table and every `#include "room/x.h"`, and
# refuses a lower room including a higher one, another room's private header,
# an include not from the top, a room's header in angle brackets, a row
# naming a room its folder does not use, a library's header outside the rooms
# (or files) of DESIGN.md's Libraries table, a Libraries row naming a room or
# file that does not include it, and a folder the table does not name.
. "$KREG_SRC/tests/lib.sh"
plan 28

check() {  # ROOT: runs the checker, keeping stdout in $OUT, stderr in $ERR
	/usr/bin/python3 "$KREG_SRC/tests/check-layers.py" "$1" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
	RC=$?
	OUT=$(cat "$SCRATCH/.out")
	ERR=$(cat "$SCRATCH/.err")
}

check "$KREG_SRC"
is "$RC" 0 "kreg's own tree keeps DESIGN.md's room table"
[ "$RC" = 0 ] && is "$OUT" "" "and the checker says nothing about it"
[ "$RC" = 0 ] || { printf '# %s\n' "$OUT" "$ERR"; _report 1 "and the checker says nothing about it"; }

# A tiny made-up tree with its own table.
mkdir -p t/docs t/lib t/db t/web t/cmd
cat > t/docs/DESIGN.md <<'MD'
# t
## Rooms

| folder | owns | may use |
| --- | --- | --- |
| `lib/` | small pieces | libc |
| `db/` | SQL | lib |
| `web/` | pages | db and below |
| `cmd/` | commands | all |

## Next
| `ghost/` | not in the rooms table | all |
MD
printf '#include "lib/err.h"\n#include <stdio.h>\n' > t/lib/err.c
: > t/lib/err.h
printf '#include "db/db.h"\n#include "lib/err.h"\n' > t/db/db.c
: > t/db/db.h
: > t/db/db_internal.h
printf '#include "web/web.h"\n#include "db/db.h"\n#include "lib/err.h"\n' > t/web/web.c
: > t/web/web.h
printf '#include "web/web.h"\n#include "db/db.h"\n' > t/cmd/kreg.c

check t
is "$RC" 0 "a made-up tree that keeps its table passes"

printf '#include "db/db.h"\n#include "lib/err.h"\n#include "web/web.h"\n' > t/db/db.c
check t
is "$RC" 1 "a lower room including a higher one is refused"
like "$OUT" '^db/db\.c:3: #include "web/web\.h": db/ may not use web/ \(docs/DESIGN\.md line 7: db/ may use lib\)$' \
	"naming the file, the line and the rule"
is "$(printf '%s\n' "$OUT" | wc -l)" 1 "and nothing else"

printf '#include "db/db.h"\n#include "lib/err.h"\n' > t/db/db.c
printf '#include "lib/err.h"\n#include "db/db_internal.h"\n' > t/cmd/kreg.c
check t
is "$RC" 1 "another room's private header is refused even where the room may be used"
like "$OUT" '^cmd/kreg\.c:2: #include "db/db_internal\.h": a private header of db/' "naming it"

printf '#include "web/web.h"\n' > t/cmd/kreg.c
printf '#include "err.h"\n' > t/lib/err.c
check t
is "$RC" 1 "an include not from the top is refused (it could not be checked)"
like "$OUT" '^lib/err\.c:1: #include "err\.h" is not from the top' "naming it"

printf '#include "lib/err.h"\n' > t/lib/err.c
mkdir -p t/ghost && printf '#include "lib/err.h"\n' > t/ghost/g.c
check t
is "$RC" 1 "a folder of C sources missing from the table is refused"
like "$OUT" '^ghost/: a folder of C sources that docs/DESIGN\.md' "naming it"
rm -r t/ghost

printf '#include <db/db.h>\n#include <stdio.h>\n' > t/cmd/kreg.c
check t
is "$RC" 1 "a room's header in angle brackets is refused"
like "$OUT" '^cmd/kreg\.c:1: #include <db/db\.h>: a room.s header in angle brackets' "naming it"
printf '#include <web/web.h>\n#include "lib/err.h"\n' > t/db/db.c
check t
like "$OUT" '^db/db\.c:1: #include "web/web\.h": db/ may not use web/' \
	"and it is checked as the same include: a lower room cannot hide an include in angle brackets"
printf '#include "db/db.h"\n#include "lib/err.h"\n' > t/db/db.c
printf '#include "web/web.h"\n' > t/cmd/kreg.c

cat >> t/docs/DESIGN.md <<'MD'

## Libraries

| library | headers | rooms |
| --- | --- | --- |
| SQLite | `<sqlite3.h>` | db |
| libgit2 | `<git2.h>`, `<git2/` | lib/err.c |
MD
printf '#include "db/db.h"\n#include "lib/err.h"\n#include <sqlite3.h>\n' > t/db/db.c
printf '#include "lib/err.h"\n#include <git2.h>\n' > t/lib/err.c
check t
is "$RC" 0 "libraries included where their rows say pass (a room, one file of a room)"
[ "$RC" = 0 ] || printf '# %s\n' "$OUT" "$ERR"

printf '#include "lib/err.h"\n#include <git2/oid.h>\n' > t/lib/other.c
check t
is "$RC" 1 "a library's header in a file of a room its row names only other files of is refused"
like "$OUT" '^lib/other\.c:2: #include <git2/oid\.h>: lib/other\.c may not use libgit2 \(docs/DESIGN\.md line [0-9]+: libgit2 is for lib/err\.c\)' \
	"naming the file and the files the row names"
rm t/lib/other.c

printf '#include "lib/err.h"\n' > t/lib/err.c
check t
is "$RC" 1 "a Libraries row naming a file that does not include the library is refused"
like "$OUT" '^docs/DESIGN\.md line [0-9]+: libgit2 is for lib/err\.c, but lib/err\.c does not include it' \
	"naming the row and the file"
printf '#include "lib/err.h"\n#include <git2.h>\n' > t/lib/err.c

printf '#include "web/web.h"\n#include "db/db.h"\n#include "lib/err.h"\n#include <sqlite3.h>\n#include <git2/oid.h>\n' > t/web/web.c
check t
is "$RC" 1 "a library's header outside the rooms its row names is refused"
like "$OUT" '^web/web\.c:4: #include <sqlite3\.h>: web/ may not use SQLite \(docs/DESIGN\.md line [0-9]+: SQLite is for db/\)' \
	"naming the file, the line and the library's row"
like "$OUT" '^web/web\.c:5: #include <git2/oid\.h>: web/ may not use libgit2' "a header under a folder of the row too"
printf '#include "web/web.h"\n#include "db/db.h"\n#include "lib/err.h"\n' > t/web/web.c

printf '#include "db/db.h"\n#include <sqlite3.h>\n' > t/db/db.c
check t
is "$RC" 1 "a row naming a room its folder never includes is refused"
like "$OUT" '^docs/DESIGN\.md line 7: db/ may use lib/, but no file of db/ includes it' "naming the row"
is "$(printf '%s\n' "$OUT" | wc -l)" 1 "and nothing else"
printf '#include "db/db.h"\n#include "lib/err.h"\n#include <sqlite3.h>\n' > t/db/db.c

sed -i 's/| db and below |/| dbx and below |/' t/docs/DESIGN.md
check t
is "$RC" 2 "a table naming a room that does not exist is an error of the table"
like "$ERR" "docs/DESIGN\.md: line 8: 'dbx' is not a room" "naming the line"

done_testing
