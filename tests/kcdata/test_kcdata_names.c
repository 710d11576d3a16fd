// SPDX-License-Identifier: MIT
/* Names of the kcdata begin magics (values from XNU's kern_cdata.h). */
#include <ktrace/kcdata.h>

#include "testlib.h"

static void begin_names(void)
{
	CHECK_STR(kcdata_begin_name(KCDATA_BUFFER_BEGIN_STACKSHOT), "stackshot");
	CHECK_STR(kcdata_begin_name(KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT), "delta stackshot");
	CHECK_STR(kcdata_begin_name(KCDATA_BUFFER_BEGIN_CRASHINFO), "crash info");
	CHECK_STR(kcdata_begin_name(KCDATA_BUFFER_BEGIN_COMPRESSED), "compressed");
	CHECK(kcdata_begin_name(KCDATA_TYPE_BUFFER_END) == NULL);
	CHECK(kcdata_begin_name(0x12345678u) == NULL);
}

static void root_keys(void)
{
	CHECK_STR(kcdata_root_key(KCDATA_BUFFER_BEGIN_STACKSHOT), "kcdata_stackshot");
	CHECK_STR(kcdata_root_key(KCDATA_BUFFER_BEGIN_CRASHINFO), "kcdata_crashinfo");
	CHECK(kcdata_root_key(0x12345678u) == NULL);
}

int main(void)
{
	PLAN(2);
	RUN(begin_names);
	RUN(root_keys);
	return tl_failed_cases != 0;
}
