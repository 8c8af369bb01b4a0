#!/bin/bash
# The rooms' layering is checked, not only written down: tests/check-layers.py
# reads docs/DESIGN.md's Rooms table and every `#include "room/x.h"`, and
# refuses a lower room including a higher one, another room's private header,
# an include not from the top and a folder the table does not name.
. "$KREG_SRC/tests/lib.sh"
plan 14

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

sed -i 's/| db and below |/| dbx and below |/' t/docs/DESIGN.md
check t
is "$RC" 2 "a table naming a room that does not exist is an error of the table"
like "$ERR" "docs/DESIGN\.md: line 8: 'dbx' is not a room" "naming the line"

done_testing
