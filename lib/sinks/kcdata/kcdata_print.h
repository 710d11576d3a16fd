/* SPDX-License-Identifier: MIT */
/* The kcdata tree as JSON inside a larger document (kcdata_tree.c). Internal. */
#ifndef KTRACE_VIEWS_KCDATA_JSON_H
#define KTRACE_VIEWS_KCDATA_JSON_H

#include <ktrace/kcdata.h>

#include "common/json.h"

/* Writes root as the next value of j, as `ktrace report --format json` does (keys
 * sorted). 0 or -ENOMEM. */
int kt_kcdata_json_tree(struct kt_json *j, const struct kcdata_node *root);

#endif
