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
	"       kreg image show [--host NAME]\n"
	"       kreg image init\n"
	"\n"
	"build  writes the guest initramfs (busybox, fio, dbench, mke2fs, their shared\n"
	"       libraries and the /init that runs a job) to FILE, or to the image of\n"
	"       host NAME, or to <data_dir>/images/kreg-initrd.cpio; prints its path.\n"
	"       Beside it, what qemu hosts boot: its large files on a read-only disk\n"
	"       of their own (<image>.progs, ext2) and the image without them\n"
	"       (<image>-lean.cpio).\n"
	"       --perf: also the image a job with the perf-stat monitor boots, the\n"
	"       base followed by this machine's perf and its libraries\n"
	"       (<image>-perf.cpio); prints its path too.\n"
	"show   prints the image's files (of host NAME), their sizes and who boots them.\n"
	"init   prints the guest's /init script.\n";

static void show_part(const char *what, const kreg_image_part *p, const char *who)
{
	if (p->bytes < 0)
		printf("%-6s %s: not built\n", what, p->path);
	else
		printf("%-6s %s: %.1f MB, %s\n", what, p->path, (double)p->bytes / 1e6, who);
}

/* kreg image show: the files of the image as they are; builds nothing. */
static int image_show(const kreg_config *cfg, const kreg_host_cfg *hc)
{
	char *base = kreg_image_path(cfg, hc);
	kreg_image_files f;

	kreg_image_files_get(&f, base);
	show_part("full", &f.full, "LAVA's and the ssh lab box's; qemu's for a job with perf or a "
		  "kernel that cannot mount the programs' disk");
	show_part("lean", &f.lean, "qemu's initramfs with the programs' disk");
	show_part("progs", &f.progs, "the large files' disk: ext2, attached read-only (serial "
		  KREG_IMAGE_PROGS_SERIAL "), mounted on " KREG_IMAGE_PROGS_MNT " in the guest");
	show_part("perf", &f.perf, "the full image and perf, for a job with perf-stat or "
		  "perf-profile (built for the first)");
	if (f.full.bytes >= 0 && !f.stamped)
		printf("%s is not kreg's (no .stamp): used as it is, booted whole\n", base);
	kreg_image_files_release(&f);
	free(base);
	return KREG_EXIT_OK;
}

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
	const kreg_host_cfg *hc = NULL;
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
	if (strcmp(argv[1], "build") && strcmp(argv[1], "show"))
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
		return kreg_cmd_usage(usage, "image %s: unexpected argument '%s'", argv[1],
				      argv[optind]);
	if (!strcmp(argv[1], "show") && (output || perf))
		return kreg_cmd_usage(usage, "image show: only --host");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (host && !(hc = kreg_config_host(cfg, host))) {
		kreg_cmd_error("no host named '%s' in %s", host, cfg->path);
		goto done;
	}
	if (!strcmp(argv[1], "show")) {
		ret = image_show(cfg, hc);
		goto done;
	}
	path = output ? strdup(output) : kreg_image_path(cfg, hc);
	if (kreg_image_build(cfg, path, &info) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	fprintf(stderr, "kreg: %zu files (%zu shared libraries), %.1f MB; for qemu hosts the "
		"programs' disk, %.1f MB, and the lean initramfs, %.1f MB (kreg image show)\n",
		info.files, info.libraries, (double)info.bytes / 1e6,
		(double)info.progs_bytes / 1e6, (double)info.lean_bytes / 1e6);
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
