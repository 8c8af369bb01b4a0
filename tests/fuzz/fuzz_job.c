/* libFuzzer: the job-file reader and the splitter on arbitrary text. */
#include "jobs/job.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_job *job = NULL;
	kreg_atoms atoms = KREG_ATOMS_INIT;

	if (size > 1 << 16)
		return 0;
	/* includes resolve against a folder that does not exist */
	if (kreg_job_load_string(&job, "fuzz.yaml", "/nonexistent-kreg-fuzz", (const char *)data,
				 size, NULL, 0) == 0) {
		if (kreg_job_split(&atoms, job) == 0) {
			for (size_t i = 0; i < atoms.count && i < 4; i++) {
				kreg_atom *a = NULL;
				char *y = kreg_atom_file_yaml(atoms.items[i], "box");

				/* what split writes must load back as one atom of the same name */
				if (kreg_atom_load_string(&a, "again.yaml", y, __builtin_strlen(y)) != 0 ||
				    __builtin_strcmp(a->yaml, atoms.items[i]->yaml))
					__builtin_trap();
				kreg_atom_free(a);
				__builtin_free(y);
			}
		}
		kreg_atoms_release(&atoms);
		kreg_job_free(job);
	}
	return 0;
}
