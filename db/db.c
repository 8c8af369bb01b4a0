#include "db/db_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* The outbox's columns as migrations 11, 12 and 13 make it (11's text as it
 * always was): its head up to the kind's list of words (each migration
 * ends the list), then the rest. */
#define OUTBOX_HEAD \
	"  id INTEGER PRIMARY KEY," \
	"  regression_id INTEGER REFERENCES regressions(id)," \
	"  bisection_id INTEGER REFERENCES bisections(id)," \
	"  mail_key TEXT UNIQUE," \
	"  kind TEXT NOT NULL DEFAULT 'first' CHECK (kind IN ('first','fixed','culprit',"

/* The columns after `kind` of the work table as migrations
 * make them again (SQLite cannot change a CHECK in place: 10, 13). */
#define WORK_TAIL \
	"  key TEXT NOT NULL UNIQUE," \
	"  commit_id INTEGER REFERENCES commits(id)," \
	"  job_id INTEGER REFERENCES jobs(id)," \
	"  host_id INTEGER REFERENCES hosts(id)," \
	"  bisection_id INTEGER REFERENCES bisections(id)," \
	"  regression_id INTEGER REFERENCES regressions(id)," \
	"  config_name TEXT," \
	"  seq INTEGER NOT NULL DEFAULT 0," \
	"  after_id INTEGER," \
	"  priority INTEGER NOT NULL DEFAULT 0," \
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','done','failed'))," \
	"  lease_owner TEXT, lease_expires INTEGER," \
	"  attempts INTEGER NOT NULL DEFAULT 0," \
	"  not_before INTEGER NOT NULL DEFAULT 0," \
	"  run_id INTEGER REFERENCES runs(id)," \
	"  error TEXT," \
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL," \
	"  judge_commit_id INTEGER REFERENCES commits(id)" \
	");"

#define OUTBOX_TAIL \
	"  culprit TEXT," \
	"  message_id TEXT NOT NULL UNIQUE," \
	"  in_reply_to TEXT," \
	"  recipients TEXT NOT NULL," \
	"  subject TEXT NOT NULL," \
	"  body TEXT NOT NULL," \
	"  message TEXT NOT NULL DEFAULT ''," \
	"  eml TEXT," \
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','sent','failed','dry_run'))," \
	"  attempts INTEGER NOT NULL DEFAULT 0," \
	"  next_attempt INTEGER NOT NULL DEFAULT 0," \
	"  last_error TEXT," \
	"  created INTEGER NOT NULL, sent INTEGER," \
	"  refusals INTEGER NOT NULL DEFAULT 0" \
	");"

/* Migrations: migrations[i] takes the schema from version i to i + 1.
 * Append only; a released entry is never edited. */
static const char *const migrations[] = {
	/* 0 -> 1: the first schema (DESIGN.md's data model). */
	"CREATE TABLE repos ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  url TEXT NOT NULL"
	");"
	"CREATE TABLE branches ("
	"  id INTEGER PRIMARY KEY,"
	"  repo_id INTEGER NOT NULL REFERENCES repos(id),"
	"  name TEXT NOT NULL,"
	"  head TEXT,"			/* last sha seen */
	"  polled_at INTEGER,"
	"  UNIQUE (repo_id, name)"
	");"
	"CREATE TABLE commits ("
	"  id INTEGER PRIMARY KEY,"
	"  repo_id INTEGER NOT NULL REFERENCES repos(id),"
	"  sha TEXT NOT NULL,"
	"  tree TEXT,"
	"  parents TEXT NOT NULL DEFAULT '',"	/* space-separated shas */
	"  author_name TEXT, author_email TEXT, author_time INTEGER,"
	"  committer_name TEXT, committer_email TEXT, committer_time INTEGER,"
	"  subject TEXT,"
	"  UNIQUE (repo_id, sha)"
	");"
	"CREATE TABLE builds ("
	"  id INTEGER PRIMARY KEY,"
	"  commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  tree TEXT NOT NULL,"			/* git tree id: the cache key, with config_hash */
	"  config_name TEXT NOT NULL,"
	"  config_hash TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('running','ok','failed')),"
	"  artifact TEXT,"			/* directory holding bzImage, .config, build.log */
	"  log_tail TEXT,"
	"  error TEXT,"
	"  seconds REAL,"
	"  started INTEGER, finished INTEGER,"
	"  UNIQUE (tree, config_hash)"
	");"
	"CREATE TABLE jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"			/* <job>-<path_params> */
	"  testcase TEXT NOT NULL,"
	"  path_params TEXT NOT NULL DEFAULT '',"
	"  yaml TEXT NOT NULL,"			/* canonical atom */
	"  hash TEXT NOT NULL UNIQUE"
	");"
	"CREATE TABLE hosts ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  backend TEXT NOT NULL,"
	"  cpus INTEGER, memory INTEGER,"
	"  state TEXT NOT NULL DEFAULT 'up' CHECK (state IN ('up','down','broken')),"
	"  updated INTEGER"
	");"
	"CREATE TABLE work ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('build','run','bisect')),"
	"  key TEXT NOT NULL UNIQUE,"		/* what makes it the same work twice */
	"  commit_id INTEGER REFERENCES commits(id),"
	"  job_id INTEGER REFERENCES jobs(id),"
	"  host_id INTEGER REFERENCES hosts(id),"
	"  bisection_id INTEGER REFERENCES bisections(id),"
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','done','failed')),"
	"  lease_owner TEXT, lease_expires INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  error TEXT,"
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL"
	");"
	"CREATE INDEX work_state ON work (state, priority DESC, id);"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  job_id INTEGER NOT NULL REFERENCES jobs(id),"
	"  commit_id INTEGER REFERENCES commits(id),"	/* NULL: the running kernel (local) */
	"  build_id INTEGER REFERENCES builds(id),"
	"  host_id INTEGER NOT NULL REFERENCES hosts(id),"
	"  kernel TEXT,"			/* uname -r or the artifact */
	"  started INTEGER NOT NULL, finished INTEGER,"
	"  status TEXT NOT NULL CHECK (status IN ('running','ok','job_failed','kernel_failed','infra_failed')),"
	"  error TEXT,"
	"  output TEXT"				/* directory of raw output */
	");"
	"CREATE INDEX runs_key ON runs (job_id, host_id, commit_id);"
	"CREATE TABLE metrics ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE"
	");"
	"CREATE TABLE samples ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (run_id, metric_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE regressions ("
	"  id INTEGER PRIMARY KEY,"
	"  repo_id INTEGER REFERENCES repos(id),"
	"  job_id INTEGER NOT NULL REFERENCES jobs(id),"
	"  host_id INTEGER NOT NULL REFERENCES hosts(id),"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  base_commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  bad_commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  culprit_commit_id INTEGER REFERENCES commits(id),"
	"  change REAL NOT NULL,"		/* relative, -0.66 = -66% */
	"  base_mean REAL, base_stddev REAL, bad_mean REAL, bad_stddev REAL,"
	"  pvalue REAL,"
	"  state TEXT NOT NULL DEFAULT 'suspected' CHECK (state IN ('suspected','confirmed',"
	"    'bisecting','bisected','reported','fixed','not_reproduced','inconclusive')),"
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL,"
	"  UNIQUE (job_id, host_id, metric_id, bad_commit_id)"
	");"
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  repo_id INTEGER NOT NULL REFERENCES repos(id),"
	"  job_id INTEGER NOT NULL REFERENCES jobs(id),"
	"  host_id INTEGER NOT NULL REFERENCES hosts(id),"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  good_commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  bad_commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  config_name TEXT,"
	"  state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running','found',"
	"    'inconclusive','not_reproduced','failed')),"
	"  culprit_commit_id INTEGER REFERENCES commits(id),"
	"  candidates TEXT,"			/* space-separated shas when inconclusive */
	"  confidence REAL,"
	"  builds INTEGER NOT NULL DEFAULT 0, runs INTEGER NOT NULL DEFAULT 0,"
	"  message TEXT,"
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL"
	");"
	"CREATE TABLE bisect_steps ("
	"  id INTEGER PRIMARY KEY,"
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  role TEXT NOT NULL CHECK (role IN ('good','bad','step','verify-culprit','verify-parent','revert')),"
	"  verdict TEXT NOT NULL DEFAULT 'pending' CHECK (verdict IN ('pending','good','bad','skip','unknown')),"
	"  runs INTEGER NOT NULL DEFAULT 0,"
	"  detail TEXT,"
	"  of_commit_id INTEGER REFERENCES commits(id),"	/* revert: the culprit it reverts */
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL,"
	"  UNIQUE (bisection_id, seq)"
	");"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  recipients TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  body TEXT NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','sent','failed','dry_run')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  created INTEGER NOT NULL, sent INTEGER,"
	"  UNIQUE (regression_id)"
	");",
	/* 1 -> 2: the outbox keeps every message of a regression (the report
	 * and its follow-ups, threaded), keyed so none is made twice; the
	 * whole message as sent, its .eml copy, when to try again. */
	"CREATE TABLE outbox2 ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  bisection_id INTEGER REFERENCES bisections(id),"
	"  mail_key TEXT UNIQUE,"		/* r12, h<hash>, r12.fixed, r12.culprit.<sha12> */
	"  kind TEXT NOT NULL DEFAULT 'report' CHECK (kind IN ('report','fixed','culprit')),"
	"  culprit TEXT,"			/* the culprit's sha it names */
	"  message_id TEXT NOT NULL UNIQUE,"
	"  in_reply_to TEXT,"
	"  recipients TEXT NOT NULL,"		/* envelope, one address a line */
	"  subject TEXT NOT NULL,"
	"  body TEXT NOT NULL,"
	"  message TEXT NOT NULL DEFAULT '',"	/* headers and body, as sent */
	"  eml TEXT,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','sent','failed','dry_run')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  created INTEGER NOT NULL, sent INTEGER"
	");"
	"INSERT INTO outbox2 (id, regression_id, mail_key, message_id, recipients, subject, body,"
	"  state, attempts, last_error, created, sent)"
	"  SELECT id, regression_id, COALESCE('r' || regression_id, 'o' || id), message_id,"
	"  recipients, subject, body, state, attempts, last_error, created, sent FROM outbox;"
	"DROP TABLE outbox;"
	"ALTER TABLE outbox2 RENAME TO outbox;"
	"CREATE INDEX outbox_regression ON outbox(regression_id);"
	"CREATE INDEX outbox_bisection ON outbox(bisection_id);",
	/* 2 -> 3: a run's owner (issue 13): the process that started it, named
	 * by boot id, pid and start time, so that only a dead owner's runs are
	 * reaped. NULL in rows from before: their owners are gone. */
	"ALTER TABLE runs ADD COLUMN owner_boot TEXT;"
	"ALTER TABLE runs ADD COLUMN owner_pid INTEGER;"
	"ALTER TABLE runs ADD COLUMN owner_start INTEGER;"
	"CREATE INDEX runs_running ON runs (status) WHERE status = 'running';",
	/* 3 -> 4: the daemon. The work queue takes detect, report and mail
	 * items, a backoff time, the item it waits for and the run it is
	 * storing; pushes record every move of a watched branch (force-pushes
	 * too); hosts count infrastructure failures in a row; regressions
	 * that share a bisection name it. */
	"CREATE TABLE work2 ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('build','run','detect','bisect','report','mail')),"
	"  key TEXT NOT NULL UNIQUE,"
	"  commit_id INTEGER REFERENCES commits(id),"
	"  job_id INTEGER REFERENCES jobs(id),"
	"  host_id INTEGER REFERENCES hosts(id),"
	"  bisection_id INTEGER REFERENCES bisections(id),"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  config_name TEXT,"
	"  seq INTEGER NOT NULL DEFAULT 0,"	/* run: the planned run's number */
	"  after_id INTEGER,"			/* runnable once this item is over */
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','done','failed')),"
	"  lease_owner TEXT, lease_expires INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  not_before INTEGER NOT NULL DEFAULT 0,"
	"  run_id INTEGER REFERENCES runs(id),"
	"  error TEXT,"
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL"
	");"
	"INSERT INTO work2 (id, kind, key, commit_id, job_id, host_id, bisection_id, priority, state,"
	"  lease_owner, lease_expires, attempts, error, created, updated)"
	"  SELECT id, kind, key, commit_id, job_id, host_id, bisection_id, priority, state,"
	"  lease_owner, lease_expires, attempts, error, created, updated FROM work;"
	"DROP TABLE work;"
	"ALTER TABLE work2 RENAME TO work;"
	"CREATE INDEX work_lane ON work (state, host_id, priority DESC, id);"
	"CREATE INDEX work_kind ON work (state, kind, priority DESC, id);"
	"CREATE INDEX work_group ON work (commit_id, job_id, host_id, kind);"
	"CREATE TABLE pushes ("
	"  id INTEGER PRIMARY KEY,"
	"  repo_id INTEGER NOT NULL REFERENCES repos(id),"
	"  branch TEXT NOT NULL,"
	"  old_sha TEXT,"			/* NULL: the first head seen (the baseline) */
	"  new_sha TEXT NOT NULL,"
	"  forced INTEGER NOT NULL DEFAULT 0,"
	"  base_sha TEXT,"			/* forced: the merge base of old and new */
	"  seen INTEGER NOT NULL"
	");"
	"ALTER TABLE repos ADD COLUMN polled_at INTEGER;"
	"ALTER TABLE repos ADD COLUMN poll_error TEXT;"
	"ALTER TABLE hosts ADD COLUMN infra_failures INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE hosts ADD COLUMN probe_at INTEGER;"
	"ALTER TABLE regressions ADD COLUMN bisection_id INTEGER REFERENCES bisections(id);",
	/* 4 -> 5: the mail of a regression confirmed but not bisected
	 * (mail.confirmed) and its follow-up naming the culprit: two more
	 * kinds of outbox rows. SQLite cannot change a CHECK in place. */
	"CREATE TABLE outbox5 ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  bisection_id INTEGER REFERENCES bisections(id),"
	"  mail_key TEXT UNIQUE,"
	"  kind TEXT NOT NULL DEFAULT 'report' CHECK (kind IN ('report','fixed','culprit',"
	"    'confirmed','bisected')),"
	"  culprit TEXT,"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  in_reply_to TEXT,"
	"  recipients TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  body TEXT NOT NULL,"
	"  message TEXT NOT NULL DEFAULT '',"
	"  eml TEXT,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','sent','failed','dry_run')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  created INTEGER NOT NULL, sent INTEGER"
	");"
	"INSERT INTO outbox5 SELECT id, regression_id, bisection_id, mail_key, kind, culprit,"
	"  message_id, in_reply_to, recipients, subject, body, message, eml, state, attempts,"
	"  next_attempt, last_error, created, sent FROM outbox;"
	"DROP TABLE outbox;"
	"ALTER TABLE outbox5 RENAME TO outbox;"
	"CREATE INDEX outbox_regression ON outbox(regression_id);"
	"CREATE INDEX outbox_bisection ON outbox(bisection_id);",
	/* 5 -> 6: a run the detection of another commit asked for names that
	 * commit (judge_commit_id): when the run's group is over, that
	 * commit is judged again, whichever group ends last (issue 26). */
	"ALTER TABLE work ADD COLUMN judge_commit_id INTEGER REFERENCES commits(id);",
	/* 6 -> 7: the outbox counts the server's refusals (5xx, a refused
	 * login) apart from its attempts: only refusals count towards
	 * mail.attempts, a server that is down only delays a message. */
	"ALTER TABLE outbox ADD COLUMN refusals INTEGER NOT NULL DEFAULT 0;",
	/* 7 -> 8: the work kind that writes the web site is 'site', no longer
	 * 'report' (which is the report/ room, the outbox's first mail, ...:
	 * issue 21); its rows, queued or over, are renamed. SQLite cannot
	 * change a CHECK in place. */
	"CREATE TABLE work8 ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('build','run','detect','bisect','site','mail')),"
	"  key TEXT NOT NULL UNIQUE,"
	"  commit_id INTEGER REFERENCES commits(id),"
	"  job_id INTEGER REFERENCES jobs(id),"
	"  host_id INTEGER REFERENCES hosts(id),"
	"  bisection_id INTEGER REFERENCES bisections(id),"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  config_name TEXT,"
	"  seq INTEGER NOT NULL DEFAULT 0,"
	"  after_id INTEGER,"
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','done','failed')),"
	"  lease_owner TEXT, lease_expires INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  not_before INTEGER NOT NULL DEFAULT 0,"
	"  run_id INTEGER REFERENCES runs(id),"
	"  error TEXT,"
	"  created INTEGER NOT NULL, updated INTEGER NOT NULL,"
	"  judge_commit_id INTEGER REFERENCES commits(id)"
	");"
	"INSERT INTO work8 (id, kind, key, commit_id, job_id, host_id, bisection_id, regression_id,"
	"  config_name, seq, after_id, priority, state, lease_owner, lease_expires, attempts,"
	"  not_before, run_id, error, created, updated, judge_commit_id)"
	"  SELECT id, CASE kind WHEN 'report' THEN 'site' ELSE kind END, key, commit_id, job_id,"
	"  host_id, bisection_id, regression_id, config_name, seq, after_id, priority, state,"
	"  lease_owner, lease_expires, attempts, not_before, run_id, error, created, updated,"
	"  judge_commit_id FROM work;"
	"DROP TABLE work;"
	"ALTER TABLE work8 RENAME TO work;"
	"CREATE INDEX work_lane ON work (state, host_id, priority DESC, id);"
	"CREATE INDEX work_kind ON work (state, kind, priority DESC, id);"
	"CREATE INDEX work_group ON work (commit_id, job_id, host_id, kind);",
	/* 8 -> 9: triage by people (kreg regression mark): a regression
	 * closed as invalid, noise or a duplicate of another keeps its state
	 * (what the robot found) beside the mark; fixed_by names the commit
	 * that fixed it; every mark is kept with what it changed, so that
	 * reopen takes the regression back and the pages can show its life. */
	"ALTER TABLE regressions ADD COLUMN triage TEXT"
	"  CHECK (triage IN ('invalid','noise','duplicate'));"
	"ALTER TABLE regressions ADD COLUMN duplicate_of INTEGER REFERENCES regressions(id);"
	"ALTER TABLE regressions ADD COLUMN fixed_by TEXT;"
	"CREATE TABLE regression_marks ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER NOT NULL REFERENCES regressions(id),"
	"  mark TEXT NOT NULL CHECK (mark IN ('invalid','noise','duplicate','fixed','reopen')),"
	"  arg TEXT,"				/* the duplicate's id, the fixing sha */
	"  note TEXT,"
	"  who TEXT,"
	"  state_before TEXT NOT NULL,"
	"  triage_before TEXT,"
	"  at INTEGER NOT NULL"
	");"
	"CREATE INDEX regression_marks_regression ON regression_marks(regression_id);",
	/* 9 -> 10: fixes tried (kreg try, and the daemon's 'try' items for
	 * a commit of a watched branch that reverts a culprit or says it
	 * fixes it): each try's fix, where it came from, its verdict and the
	 * share of the regression it recovered; the work kind 'try'. */
	"CREATE TABLE tries ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER NOT NULL REFERENCES regressions(id),"
	"  fix_commit_id INTEGER REFERENCES commits(id),"	/* NULL: a patch that did not apply */
	"  source TEXT NOT NULL CHECK (source IN ('patch','commit','branch','fixes','revert','link')),"
	"  verdict TEXT NOT NULL CHECK (verdict IN ('fixed','partly','not_fixed','no_apply',"
	"    'no_build')),"
	"  share REAL,"
	"  why TEXT,"
	"  created INTEGER NOT NULL"
	");"
	"CREATE INDEX tries_regression ON tries(regression_id);"
	"CREATE TABLE work10 ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('build','run','detect','bisect','site','mail','try')),"
	WORK_TAIL
	"INSERT INTO work10 SELECT id, kind, key, commit_id, job_id, host_id, bisection_id,"
	"  regression_id, config_name, seq, after_id, priority, state, lease_owner, lease_expires,"
	"  attempts, not_before, run_id, error, created, updated, judge_commit_id FROM work;"
	"DROP TABLE work;"
	"ALTER TABLE work10 RENAME TO work;"
	"CREATE INDEX work_lane ON work (state, host_id, priority DESC, id);"
	"CREATE INDEX work_kind ON work (state, kind, priority DESC, id);"
	"CREATE INDEX work_group ON work (commit_id, job_id, host_id, kind);",
	/* 10 -> 11: the outbox's first mail of a regression, naming its
	 * culprit, is of kind 'first', no longer 'report' (which is the
	 * report/ room, the site's old work kind, ...: issue 21); its rows,
	 * queued or sent, are renamed. SQLite cannot change a CHECK in
	 * place. */
	"CREATE TABLE outbox11 ("
	OUTBOX_HEAD
	"    'confirmed','bisected')),"
	OUTBOX_TAIL
	"INSERT INTO outbox11 (id, regression_id, bisection_id, mail_key, kind, culprit, message_id,"
	"  in_reply_to, recipients, subject, body, message, eml, state, attempts, next_attempt,"
	"  last_error, created, sent, refusals)"
	"  SELECT id, regression_id, bisection_id, mail_key,"
	"  CASE kind WHEN 'report' THEN 'first' ELSE kind END, culprit, message_id, in_reply_to,"
	"  recipients, subject, body, message, eml, state, attempts, next_attempt, last_error,"
	"  created, sent, refusals FROM outbox;"
	"DROP TABLE outbox;"
	"ALTER TABLE outbox11 RENAME TO outbox;"
	"CREATE INDEX outbox_regression ON outbox(regression_id);"
	"CREATE INDEX outbox_bisection ON outbox(bisection_id);",
	/* 11 -> 12: a try the daemon does is answered by mail in the
	 * regression's thread (issue 25): tries keep whether to answer and
	 * the table the answer carries; the outbox's answer is of kind
	 * 'try'. */
	"ALTER TABLE tries ADD COLUMN answer INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE tries ADD COLUMN report TEXT;"
	"CREATE TABLE outbox12 ("
	OUTBOX_HEAD
	"    'confirmed','bisected','try')),"
	OUTBOX_TAIL
	"INSERT INTO outbox12 SELECT id, regression_id, bisection_id, mail_key, kind, culprit,"
	"  message_id, in_reply_to, recipients, subject, body, message, eml, state, attempts,"
	"  next_attempt, last_error, created, sent, refusals FROM outbox;"
	"DROP TABLE outbox;"
	"ALTER TABLE outbox12 RENAME TO outbox;"
	"CREATE INDEX outbox_regression ON outbox(regression_id);"
	"CREATE INDEX outbox_bisection ON outbox(bisection_id);",
	/* 12 -> 13: triage by reply (mail/poll.h): every message read from
	 * the IMAP mailbox, by (mailbox, UIDVALIDITY, UID) and Message-ID, with
	 * what was done (so nothing is done twice); the outbox's kind 'reply'
	 * (kreg's answer in the thread) and the work kind 'imap' (a poll). */
	"CREATE TABLE mail_replies ("
	"  id INTEGER PRIMARY KEY,"
	"  mailbox TEXT NOT NULL,"
	"  uidvalidity INTEGER NOT NULL,"
	"  uid INTEGER NOT NULL,"
	"  message_id TEXT,"
	"  sender TEXT,"
	"  regression_id INTEGER REFERENCES regressions(id),"
	"  outcome TEXT NOT NULL CHECK (outcome IN ('done','refused','ignored','repeat')),"
	"  summary TEXT,"
	"  reply_id INTEGER REFERENCES outbox(id),"
	"  at INTEGER NOT NULL,"
	"  UNIQUE (mailbox, uidvalidity, uid)"
	");"
	"CREATE INDEX mail_replies_message_id ON mail_replies(message_id);"
	"CREATE TABLE outbox13 ("
	OUTBOX_HEAD
	"    'confirmed','bisected','try','reply')),"
	OUTBOX_TAIL
	"INSERT INTO outbox13 SELECT id, regression_id, bisection_id, mail_key, kind, culprit,"
	"  message_id, in_reply_to, recipients, subject, body, message, eml, state, attempts,"
	"  next_attempt, last_error, created, sent, refusals FROM outbox;"
	"DROP TABLE outbox;"
	"ALTER TABLE outbox13 RENAME TO outbox;"
	"CREATE INDEX outbox_regression ON outbox(regression_id);"
	"CREATE INDEX outbox_bisection ON outbox(bisection_id);"
	"CREATE TABLE work13 ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('build','run','detect','bisect','site','mail','try',"
	"    'imap')),"
	WORK_TAIL
	"INSERT INTO work13 SELECT id, kind, key, commit_id, job_id, host_id, bisection_id,"
	"  regression_id, config_name, seq, after_id, priority, state, lease_owner, lease_expires,"
	"  attempts, not_before, run_id, error, created, updated, judge_commit_id FROM work;"
	"DROP TABLE work;"
	"ALTER TABLE work13 RENAME TO work;"
	"CREATE INDEX work_lane ON work (state, host_id, priority DESC, id);"
	"CREATE INDEX work_kind ON work (state, kind, priority DESC, id);"
	"CREATE INDEX work_group ON work (commit_id, job_id, host_id, kind);",
	/* 13 -> 14: the host's load when a run started (1-minute load
	 * average per CPU of the machine it runs on; NULL: not measured) and
	 * whether it was above the host's max_load: a loaded run is kept,
	 * shown, and left out of the detector's history (docs/noise.md). */
	("ALTER TABLE runs ADD COLUMN load REAL;"
	 "ALTER TABLE runs ADD COLUMN loaded INTEGER NOT NULL DEFAULT 0;"),
	/* 14 -> 15: a recovery bisection (issue 25): the search for the first
	 * commit at which a regression's level came back, its sense reversed;
	 * recovers names the regression (its regression_id stays NULL: the
	 * regression is not what it bisects). The commit it finds is tried as
	 * the fix: a try of source 'recovery'. */
	"ALTER TABLE bisections ADD COLUMN recovers INTEGER REFERENCES regressions(id);"
	"CREATE TABLE tries15 ("
	"  id INTEGER PRIMARY KEY,"
	"  regression_id INTEGER NOT NULL REFERENCES regressions(id),"
	"  fix_commit_id INTEGER REFERENCES commits(id),"
	"  source TEXT NOT NULL CHECK (source IN ('patch','commit','branch','fixes','revert','link',"
	"    'recovery')),"
	"  verdict TEXT NOT NULL CHECK (verdict IN ('fixed','partly','not_fixed','no_apply',"
	"    'no_build')),"
	"  share REAL,"
	"  why TEXT,"
	"  created INTEGER NOT NULL,"
	"  answer INTEGER NOT NULL DEFAULT 0,"
	"  report TEXT"
	");"
	"INSERT INTO tries15 SELECT id, regression_id, fix_commit_id, source, verdict, share, why,"
	"  created, answer, report FROM tries;"
	"DROP TABLE tries;"
	"ALTER TABLE tries15 RENAME TO tries;"
	"CREATE INDEX tries_regression ON tries(regression_id);",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

_Static_assert(NMIGRATIONS == KREG_DB_VERSION, "one migration per schema version");

/* SQLite says "disk I/O error" when it cannot grow the WAL or its index on
 * a full file system: say what the operator must fix. */
static const char *full_disk_hint(const kreg_db *db)
{
	char dir[PATH_MAX];
	struct statvfs sv;
	char *slash;
	int code = sqlite3_errcode(db->h) & 0xff;

	if (code != SQLITE_FULL && code != SQLITE_IOERR && code != SQLITE_CANTOPEN)
		return "";
	snprintf(dir, sizeof(dir), "%s", db->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (statvfs(slash ? (dir[0] ? dir : "/") : ".", &sv) == 0 && sv.f_bavail == 0)
		return " (the file system holding the database is full)";
	return "";
}

int kreg_db__error(kreg_db *db, const char *what)
{
	kreg_error_set("%s: %s: %s%s", db->path, what, sqlite3_errmsg(db->h), full_disk_hint(db));
	return KREG_ERROR;
}

int kreg_db__prepare(kreg_db *db, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return kreg_db__error(db, "cannot prepare statement");
	}
	return 0;
}

int kreg_db__cached(kreg_db *db, sqlite3_stmt **st, const char *sql)
{
	int i;

	for (i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++) {
		if (db->cache[i].sql == sql) {
			*st = db->cache[i].st;
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			return 0;
		}
	}
	if (kreg_db__prepare(db, st, sql) < 0)
		return KREG_ERROR;
	if (i < KREG_DB_STMT_CACHE) {
		db->cache[i].sql = sql;
		db->cache[i].st = *st;
	}
	return 0;
}

void kreg_db__done(kreg_db *db, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (int i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++)
		if (db->cache[i].st == st) {
			sqlite3_reset(st);
			return;
		}
	sqlite3_finalize(st);
}

int kreg_db__exec(kreg_db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kreg_error_set("%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db__find_id(kreg_db *db, int64_t *id, const char *sql, const char *name,
		   const char *what)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	if (kreg_db__prepare(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no %s named '%s' in %s", what, name, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, what);
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db__step_done(kreg_db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return kreg_db__error(db, what);
	return 0;
}

int kreg_db__bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
}

char *kreg_db__column_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? kreg_strdup((const char *)s) : NULL;
}

int kreg_db_version(kreg_db *db, int *version)
{
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__prepare(db, &st, "PRAGMA user_version") < 0)
		return KREG_ERROR;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		kreg_db__error(db, "cannot read the schema version");
		sqlite3_finalize(st);
		return KREG_ERROR;
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int kreg_db_begin(kreg_db *db)
{
	if (db->depth++ > 0)
		return 0;
	db->failed = 0;
	if (kreg_db__exec(db, "BEGIN IMMEDIATE") < 0) {
		db->depth = 0;
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db_commit(kreg_db *db)
{
	if (db->depth <= 0) {
		kreg_error_set("%s: commit without a transaction", db->path);
		return KREG_ERROR;
	}
	if (--db->depth > 0)
		return 0;
	if (db->failed) {
		kreg_db__exec(db, "ROLLBACK");
		kreg_error_set("%s: transaction rolled back by an inner failure", db->path);
		return KREG_ERROR;
	}
	if (kreg_db__exec(db, "COMMIT") < 0) {
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db_savepoint(kreg_db *db)
{
	if (db->depth <= 0 || db->failed) {
		kreg_error_set("%s: a savepoint outside a transaction (or in a failed one)", db->path);
		return KREG_ERROR;
	}
	return kreg_db__exec(db, "SAVEPOINT kreg_savepoint");
}

int kreg_db_savepoint_undo(kreg_db *db)
{
	if (kreg_db__exec(db, "ROLLBACK TO kreg_savepoint") < 0 ||
	    kreg_db__exec(db, "RELEASE kreg_savepoint") < 0)
		return KREG_ERROR;
	db->failed = 0;
	return 0;
}

int kreg_db_savepoint_release(kreg_db *db)
{
	return kreg_db__exec(db, "RELEASE kreg_savepoint");
}

void kreg_db_rollback(kreg_db *db)
{
	if (db->depth <= 0)
		return;
	if (--db->depth > 0) {
		db->failed = 1;
		return;
	}
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int kreg_db_migrate(kreg_db *db, int *from, int *to)
{
	int v;

	if (kreg_db_version(db, &v) < 0)
		return KREG_ERROR;
	if (from)
		*from = v;
	if (v > KREG_DB_VERSION) {
		kreg_error_set("%s: schema version %d is newer than this kreg knows (%d); "
			       "use a newer kreg, the file was left untouched",
			       db->path, v, KREG_DB_VERSION);
		return KREG_ERROR;
	}
	/* Each step reads the version again inside its write transaction: two
	 * processes creating one database at once migrate it once, the second
	 * finding the first's work done. */
	while (v < KREG_DB_VERSION) {
		char pragma[64];

		if (kreg_db_begin(db) < 0)
			return KREG_ERROR;
		if (kreg_db_version(db, &v) < 0) {
			kreg_db_rollback(db);
			return KREG_ERROR;
		}
		if (v >= KREG_DB_VERSION) {
			kreg_db_rollback(db);
			break;
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if (kreg_db__exec(db, migrations[v]) < 0 || kreg_db__exec(db, pragma) < 0) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "%s", kreg_error_last());
			kreg_db_rollback(db);
			kreg_error_set("migration to schema version %d failed: %s", v + 1, msg);
			return KREG_ERROR;
		}
		if (kreg_db_commit(db) < 0)
			return KREG_ERROR;
		v++;
	}
	if (to)
		*to = v;
	return 0;
}

/* WAL mode, which stays with the file once set. Switching to it needs the
 * file to itself, and SQLite answers "database is locked" at once, without
 * the busy timeout, when another process holds a lock it cannot wait for
 * (two processes creating one database: 97-mirror-lock.t saw it one run in
 * a few): retried for the busy timeout's 10 s. */
static int set_wal(kreg_db *db)
{
	for (int tries = 0, asked = 0;; tries++) {
		sqlite3_stmt *st;
		int rc, wal;

		if (kreg_db__prepare(db, &st, "PRAGMA journal_mode") < 0)
			return KREG_ERROR;
		rc = sqlite3_step(st);
		wal = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
		      !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
		sqlite3_finalize(st);
		if (wal)
			return 0;
		if (asked) {
			kreg_error_set("%s: cannot switch to WAL mode (does the file system "
				       "support it?)", db->path);
			return KREG_ERROR;
		}
		if (rc == SQLITE_ROW &&
		    sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK) {
			asked = 1;	/* read it back */
			continue;
		}
		if ((sqlite3_errcode(db->h) & 0xff) != SQLITE_BUSY || tries >= 500)
			return kreg_db__error(db, "cannot switch to WAL mode");
		sqlite3_sleep(20);
	}
}

int kreg_db_open(kreg_db **out, const char *path, unsigned flags)
{
	kreg_db *db = kreg_calloc(1, sizeof(*db));
	int oflags, version, rc;
	struct stat st;

	*out = NULL;
	db->path = kreg_strdup(path);
	if (!(flags & KREG_DB_CREATE) && stat(path, &st) < 0) {
		kreg_error_errno("%s: cannot open database (run `kreg db init` to create it)", path);
		goto fail;
	}
	if (flags & KREG_DB_READONLY)
		oflags = SQLITE_OPEN_READONLY;
	else
		oflags = SQLITE_OPEN_READWRITE | ((flags & KREG_DB_CREATE) ? SQLITE_OPEN_CREATE : 0);
	rc = sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		if (db->h)
			kreg_db__error(db, "cannot open database");
		else
			kreg_error_set("%s: cannot open database: out of memory", path);
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, 10000);
	/* The first read tells a file that is not SQLite. */
	if ((flags & KREG_DB_READONLY) && kreg_db_version(db, &version) < 0 &&
	    ((sqlite3_errcode(db->h) & 0xff) == SQLITE_READONLY ||
	     (sqlite3_errcode(db->h) & 0xff) == SQLITE_CANTOPEN)) {
		/* A WAL database in a directory this user may not write, with
		 * no -shm: SQLite cannot read it as a reader that shares the
		 * WAL. Nobody can be writing it then either (a writer needs to
		 * make the -wal file there): read it as immutable. */
		kreg_buf uri = KREG_BUF_INIT;

		sqlite3_close_v2(db->h);
		db->h = NULL;
		kreg_buf_puts(&uri, "file:");
		for (const char *c = path; *c; c++)
			if (*c == '%' || *c == '?' || *c == '#')
				kreg_buf_printf(&uri, "%%%02X", (unsigned char)*c);
			else
				kreg_buf_putc(&uri, *c);
		kreg_buf_puts(&uri, "?immutable=1");
		rc = sqlite3_open_v2(kreg_buf_cstr(&uri), &db->h,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
		kreg_buf_release(&uri);
		if (rc != SQLITE_OK) {
			if (db->h)
				kreg_db__error(db, "cannot open database");
			else
				kreg_error_set("%s: cannot open database: out of memory", path);
			goto fail;
		}
		sqlite3_extended_result_codes(db->h, 1);
	}
	if (kreg_db_version(db, &version) < 0) {
		if ((sqlite3_errcode(db->h) & 0xff) == SQLITE_NOTADB)
			kreg_error_set("%s: not a kreg database (not an SQLite file)", path);
		goto fail;
	}
	if (version > KREG_DB_VERSION) {
		kreg_error_set("%s: schema version %d is newer than this kreg knows (%d); "
			       "use a newer kreg, the file was left untouched",
			       path, version, KREG_DB_VERSION);
		goto fail;
	}
	if (!(flags & KREG_DB_READONLY)) {
		if (set_wal(db) < 0)
			goto fail;
		if (kreg_db__exec(db, "PRAGMA synchronous = NORMAL") < 0)
			goto fail;
	}
	if (kreg_db__exec(db, "PRAGMA foreign_keys = ON") < 0)
		goto fail;
	if (version < KREG_DB_VERSION) {
		if (flags & KREG_DB_MIGRATE) {
			if (kreg_db_migrate(db, NULL, NULL) < 0)
				goto fail;
		} else if (version == 0) {
			kreg_error_set("%s: the database has no kreg schema (run `kreg db init`)", path);
			goto fail;
		} else {
			kreg_error_set("%s: schema version %d is older than %d (run `kreg db migrate`)",
				       path, version, KREG_DB_VERSION);
			goto fail;
		}
	}
	*out = db;
	return 0;
fail:
	kreg_db_close(db);
	return KREG_ERROR;
}

void kreg_db_close(kreg_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++)
		sqlite3_finalize(db->cache[i].st);
	if (db->h)
		sqlite3_close_v2(db->h);
	free(db->path);
	free(db);
}

const char *kreg_db_path(const kreg_db *db)
{
	return db->path;
}

int kreg_db_tables(kreg_db *db, kreg_db_table_cb cb, void *arg)
{
	sqlite3_stmt *st, *cnt;
	int error = 0, rc;

	if (kreg_db__prepare(db, &st, "SELECT name FROM sqlite_schema WHERE type = 'table' "
			     "AND name NOT LIKE 'sqlite_%' ORDER BY name") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *sql;

		/* The name comes from sqlite_schema itself; quoted all the same. */
		sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", name);
		if (kreg_db__prepare(db, &cnt, sql) < 0) {
			sqlite3_free(sql);
			error = KREG_ERROR;
			break;
		}
		sqlite3_free(sql);
		if (sqlite3_step(cnt) != SQLITE_ROW) {
			error = kreg_db__error(db, "cannot count rows");
			sqlite3_finalize(cnt);
			break;
		}
		error = cb(name, sqlite3_column_int64(cnt, 0), arg);
		sqlite3_finalize(cnt);
		if (error < 0)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !error)
		error = kreg_db__error(db, "cannot list tables");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_check(kreg_db *db)
{
	sqlite3_stmt *st;
	int error = 0;

	if (kreg_db__prepare(db, &st, "PRAGMA integrity_check") < 0)
		return KREG_ERROR;
	if (sqlite3_step(st) != SQLITE_ROW) {
		error = kreg_db__error(db, "integrity check failed to run");
	} else {
		const char *r = (const char *)sqlite3_column_text(st, 0);

		if (!r || strcmp(r, "ok")) {
			kreg_error_set("%s: integrity check: %s", db->path, r ? r : "?");
			error = KREG_ERROR;
		}
	}
	sqlite3_finalize(st);
	if (error < 0)
		return error;
	/* rows whose parent is missing (written with foreign keys off, or by
	 * hand): integrity_check does not look */
	if (kreg_db__prepare(db, &st, "PRAGMA foreign_key_check") < 0)
		return KREG_ERROR;
	{
		int rc = sqlite3_step(st), n = 0;
		char first[256] = "";

		while (rc == SQLITE_ROW) {
			if (!n++)
				snprintf(first, sizeof(first), "%s row %lld refers to a missing %s row",
					 (const char *)sqlite3_column_text(st, 0),
					 (long long)sqlite3_column_int64(st, 1),
					 (const char *)sqlite3_column_text(st, 2));
			rc = sqlite3_step(st);
		}
		if (rc != SQLITE_DONE)
			error = kreg_db__error(db, "foreign key check failed to run");
		else if (n) {
			kreg_error_set("%s: foreign key check: %s%s", db->path, first,
				       n > 1 ? " (and more)" : "");
			error = KREG_ERROR;
		}
	}
	sqlite3_finalize(st);
	return error;
}
