/* kreg image: the guest initramfs of the qemu hosts. */
#include "cmd/cmd.h"

#include "kernel/image.h"
#include "lib/err.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg image build [--host NAME] [--output FILE] [--perf]\n"
	"       kreg image init\n"
	"\n"
	"build  writes the guest initramfs (busybox, fio, dbench, mke2fs, their shared\n"
	"       libraries and the /init that runs a job) to FILE, or to the image of\n"
	"       host NAME, or to <data_dir>/images/kreg-initrd.cpio; prints its path.\n"
	"       --perf: also the image a job with the perf-stat monitor boots, the\n"
	"       base followed by this machine's perf and its libraries\n"
	"       (<image>-perf.cpio); prints its path too.\n"
	"init   prints the guest's /init script.\n";

int cmd_image(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "perf", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *output = NULL;
	kreg_config *cfg = NULL;
	kreg_image_info info;
	char *path = NULL, *perf_path = NULL;
	int c, perf = 0, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "image: which subcommand?");
	if (!strcmp(argv[1], "init")) {
		if (argc != 2)
			return kreg_cmd_usage(usage, "image init: unexpected argument '%s'", argv[2]);
		fputs(kreg_image_init_script(), stdout);
		return KREG_EXIT_OK;
	}
	if (strcmp(argv[1], "build"))
		return kreg_cmd_usage(usage, "image: unknown subcommand '%s'", argv[1]);
	optind = 2;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': host = optarg; break;
		case 'o': output = optarg; break;
		case 'p': perf = 1; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "image build: unexpected argument '%s'", argv[optind]);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (output) {
		path = strdup(output);
	} else {
		const kreg_host_cfg *hc = NULL;

		if (host && !(hc = kreg_config_host(cfg, host))) {
			kreg_cmd_error("no host named '%s' in %s", host, cfg->path);
			goto done;
		}
		path = kreg_image_path(cfg, hc);
	}
	if (kreg_image_build(cfg, path, &info) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	fprintf(stderr, "kreg: %zu files (%zu shared libraries), %.1f MB\n", info.files,
		info.libraries, (double)info.bytes / 1e6);
	printf("%s\n", path);
	if (perf) {
		if (kreg_image_ensure_perf(cfg, path, &perf_path) < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		printf("%s\n", perf_path);
	}
	ret = KREG_EXIT_OK;
done:
	free(perf_path);
	free(path);
	kreg_config_free(cfg);
	return ret;
}
