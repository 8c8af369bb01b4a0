/* The schema's history: every migration from version 0 to KREG_DB_VERSION,
 * and the loop that takes a database file through them (kreg_db_migrate,
 * db.h). */
#include "db/db_internal.h"

#include "lib/err.h"

#include <stdio.h>

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
