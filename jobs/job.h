/* LKP job files: load (includes, multi-document files), split into atomic
 * jobs named as LKP names them, and read an atom's parameters.
 *
 *   kreg_job *job;
 *   kreg_atoms atoms = KREG_ATOMS_INIT;
 *   kreg_job_load(&job, "jobs/fio-basic.yaml", search, nsearch);
 *   kreg_job_split(&atoms, job);          // atoms.items[i]->name, ->yaml
 *   kreg_atoms_release(&atoms); kreg_job_free(job);
 *
 * Every error names FILE:LINE:COL. */
#ifndef KREG_JOBS_JOB_H
#define KREG_JOBS_JOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct kreg_job kreg_job;		/* a loaded job file: its documents */
typedef struct kreg_jnode kreg_jnode;		/* one YAML value (jobs/ private) */

/* One atomic job: every expandable list has been resolved to one value. */
struct kreg_atom {
	char *name;		/* <job>-<path_params>, as LKP's split-job names it */
	char *job;		/* the job file's base name without .yaml */
	char *testcase;		/* testcase: (or suite:, or the job name) */
	char *path_params;	/* option values sorted by key, joined by '-' */
	char *yaml;		/* canonical YAML: stable, what is hashed and stored */
	char *origin;		/* the job file it came from */
	kreg_jnode *root;	/* the atom's mapping */
};
typedef struct kreg_atom kreg_atom;

typedef struct {
	kreg_atom **items;
	size_t count, alloc;
} kreg_atoms;

#define KREG_ATOMS_INIT { NULL, 0, 0 }

/* Load a job file. Includes (`<<: FILE`, `<<: {file: FILE, key: value}`)
 * are looked up relative to the job's folder, then in each folder of
 * search (the configuration's job_path), then below those folders. */
int kreg_job_load(kreg_job **out, const char *path, char *const *search, size_t nsearch);
/* The same from memory; name stands for the file in messages and names,
 * dir is where relative includes are looked up (NULL: the current one). */
int kreg_job_load_string(kreg_job **out, const char *name, const char *dir,
			 const char *yaml, size_t len, char *const *search, size_t nsearch);
void kreg_job_free(kreg_job *job);
/* Number of YAML documents in the file (after includes). */
size_t kreg_job_documents(const kreg_job *job);

/* Split into atoms exactly as LKP does: document 0 alone, then document 0
 * updated by each further document; in each, every list under an
 * expandable key (a program, a program's option, kconfig, commit, rootfs,
 * *_commit) is expanded. Appends to *out. */
int kreg_job_split(kreg_atoms *out, const kreg_job *job);
void kreg_atoms_release(kreg_atoms *atoms);

/* Load a file that must hold exactly one atom (what `kreg job split`
 * writes, or any job file without lists to expand). */
int kreg_atom_load(kreg_atom **out, const char *path, char *const *search, size_t nsearch);
int kreg_atom_load_string(kreg_atom **out, const char *name, const char *yaml, size_t len);
void kreg_atom_free(kreg_atom *atom);

/* The options that name the atom (its path_params, before they are made
 * path-safe), sorted by key: n pairs of keys[i] and values[i] as text, for
 * 0-day's `parameters:` lines. Free with kreg_atom_params_release. */
size_t kreg_atom_params(const kreg_atom *atom, char ***keys, char ***values);
void kreg_atom_params_release(char **keys, char **values, size_t n);

/* The file `kreg job split` writes for an atom: its canonical YAML with
 * job_origin (and testbox when host is not NULL). Caller frees. */
char *kreg_atom_file_yaml(const kreg_atom *atom, const char *host);

/* A parameter as LKP hands it to a program: the option under the program's
 * own mapping (`fio-setup-basic: {rw: read}`), else at the top level
 * (`runtime: 300s`). program may be NULL (top level only). NULL when unset
 * or null. */
const char *kreg_atom_param(const kreg_atom *atom, const char *program, const char *key);
/* 1 when the atom names program as a key at any level (`fio:`). */
int kreg_atom_has_program(const kreg_atom *atom, const char *program);

/* Typed parameters; each returns 0 with *out = dflt when unset, <0 with an
 * error naming the atom, key and value when set but malformed. */
/* "4", "8t" (8), "50%" (of cpus, at least 1): nr_task, nr_threads. */
int kreg_atom_param_count(long long *out, const kreg_atom *atom, const char *program,
			  const char *key, long long dflt, int cpus);
/* "300s", "5m", "300": seconds. */
int kreg_atom_param_seconds(double *out, const kreg_atom *atom, const char *program,
			    const char *key, double dflt);
/* "1g", "176G", "4k": bytes. */
int kreg_atom_param_size(uint64_t *out, const kreg_atom *atom, const char *program,
			 const char *key, uint64_t dflt);
/* "1", "y", "yes", "true", "on" -> 1; "0", "n", "no", "false", "off" -> 0. */
int kreg_atom_param_bool(int *out, const kreg_atom *atom, const char *program,
			 const char *key, int dflt);

/* The parameter forms on their own (also for tests). */
int kreg_job_parse_count(long long *out, const char *s, int cpus, const char *what);
int kreg_job_parse_bool(int *out, const char *s, const char *what);

#endif
