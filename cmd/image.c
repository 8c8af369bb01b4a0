/* kreg image: filled in by a later change; until then a clear error. */
#include "cmd.h"

static const char usage[] = "usage: kreg image ...\n";

int cmd_image(int argc, char **argv)
{
	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	return kreg_cmd_not_implemented("image");
}
