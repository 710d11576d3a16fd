// SPDX-License-Identifier: MIT
#include <ktrace/version.h>

const char *ktrace_version(void)
{
	return KTRACE_VERSION;
}
