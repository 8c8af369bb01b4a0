/* A qemu host's guests pinned to CPUs of their own (`pin:`, docs/hosts.md):
 * which CPUs each guest slot gets, for the run (hosts/host_qemu.c), the
 * configuration's check and `kreg config show`. */
#include "config/config.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

enum { PIN_AUTO, PIN_OFF, PIN_ON, PIN_LIST };

static int is_word(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

/* "0-3,6": appended to pool (a CPU list as in taskset -c and
 * /proc/PID/status's Cpus_allowed_list). */
static int parse_list(int **pool, size_t *n, size_t *alloc, const char *s, const char *host)
{
	const char *p = s;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				goto bad;
		}
		for (long c = a; c <= b; c++) {
			KREG_ARRAY_GROW(*pool, *n + 1, *alloc);
			(*pool)[(*n)++] = (int)c;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	kreg_error_set("host '%s': pin: '%s' is not auto, off, on or a list of CPUs (\"0-1\", [2, 3])",
		       host, s);
	return KREG_EINVAL;
}

/* The host's mode, and for PIN_LIST its CPUs. */
static int pin_mode(int **pool, size_t *n, const kreg_host_cfg *hc)
{
	static const char *const off[] = { "off", "false", "no", NULL };
	static const char *const on[] = { "on", "true", "yes", NULL };
	size_t alloc = 0;

	*pool = NULL;
	*n = 0;
	if (!hc->npin || (hc->npin == 1 && !strcmp(hc->pin[0], "auto")))
		return PIN_AUTO;
	if (hc->npin == 1 && is_word(hc->pin[0], off))
		return PIN_OFF;
	if (hc->npin == 1 && is_word(hc->pin[0], on))
		return PIN_ON;
	for (size_t i = 0; i < hc->npin; i++)
		if (parse_list(pool, n, &alloc, hc->pin[i], hc->name) < 0) {
			free(*pool);
			*pool = NULL;
			return KREG_EINVAL;
		}
	return PIN_LIST;
}

char *kreg_config_cpu_list(const int *cpus, size_t n)
{
	kreg_buf b = KREG_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		kreg_buf_printf(&b, "%s%d", b.len ? "," : "", cpus[i]);
		if (j > i)
			kreg_buf_printf(&b, "-%d", cpus[j]);
		i = j;
	}
	if (!n)
		kreg_buf_puts(&b, "-");
	return kreg_buf_detach(&b);
}

int kreg_config_host_pin(int *cpus, size_t max, const kreg_host_cfg *hc, int slot)
{
	int per = hc->cpus > 0 ? hc->cpus : 1, mode, *pool = NULL, allowed[CPU_SETSIZE];
	size_t npool = 0, nallowed = 0, got = 0;
	cpu_set_t set;
	char *have;

	if (hc->backend != KREG_BACKEND_QEMU)
		return 0;
	if ((mode = pin_mode(&pool, &npool, hc)) < 0)
		return mode;
	if (mode == PIN_OFF || (mode == PIN_AUTO && hc->capacity <= 1))
		return 0;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		free(pool);
		kreg_error_errno("host '%s': pin: cannot read the CPUs kreg may run on", hc->name);
		return KREG_ERROR;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			allowed[nallowed++] = c;
	if (mode != PIN_LIST) {
		pool = kreg_malloc(nallowed * sizeof(*pool));
		memcpy(pool, allowed, nallowed * sizeof(*pool));
		npool = nallowed;
	}
	for (size_t i = 0; i < npool; i++)
		if (!CPU_ISSET(pool[i], &set)) {
			have = kreg_config_cpu_list(allowed, nallowed);
			kreg_error_set("host '%s': pin: CPU %d is not one kreg may run on here (%s)",
				       hc->name, pool[i], have);
			goto fail;
		}
	if (npool < (size_t)(slot + 1) * (size_t)per) {
		have = kreg_config_cpu_list(pool, npool);
		kreg_error_set("host '%s': capacity %d with cpus %d pins %d CPUs, and %s %zu (%s): "
			       "lower its capacity or cpus, %s, or set pin: off", hc->name, slot + 1, per,
			       (slot + 1) * per, mode == PIN_LIST ? "its pin list has" : "kreg may run on",
			       npool, have, mode == PIN_LIST ? "list more CPUs" : "give kreg more CPUs");
		goto fail;
	}
	for (int i = 0; i < per && got < max; i++)
		cpus[got++] = pool[slot * per + i];
	free(pool);
	return (int)got;
fail:
	free(have);
	free(pool);
	return KREG_EINVAL;
}
