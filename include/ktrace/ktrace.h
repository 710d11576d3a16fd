/* SPDX-License-Identifier: MIT */
/* libktrace: everything in one include. */
#ifndef KTRACE_KTRACE_H
#define KTRACE_KTRACE_H

#include <ktrace/version.h>
#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/detect.h>
#include <ktrace/kbuffer.h>
#include <ktrace/ftrace_pages.h>
#include <ktrace/ktrace_file.h>
#include <ktrace/darwin.h>
#include <ktrace/tracedat.h>
#include <ktrace/tracedat_write.h>
#include <ktrace/tracefs.h>
#include <ktrace/ftrace_event.h>
#include <ktrace/koff.h>
#include <ktrace/kcdata.h>

#endif
