/* SPDX-License-Identifier: MIT */
/*
 * libktrace: everything in one include (C11, and C++ for everything but the KOFF_TRACE
 * macros). One header per component, each with its own prefix:
 *
 *   common    error.h (ktrace_error_), input.h (ktrace_input_), detect.h (ktrace_detect_),
 *             out.h (ktrace_out_), version.h
 *   ring      kbuffer.h (kbuffer_, libtraceevent's API), ring.h (ktrace_ring_)
 *   event     event.h (ktrace_event_)
 *   tracedat  tracedat.h (tracedat_)
 *   tracefs   tracefs.h (ktrace_tracefs_)
 *   darwin    ktrace_file.h (ktrace_file_, libktrace's API), darwin.h (ktrace_darwin_)
 *   kcdata    kcdata.h (kcdata_)
 *   koff      koff.h (koff_)
 *   engine    stream.h (ktrace_stream_)
 *   views     view.h (ktrace_view_)
 */
#ifndef KTRACE_KTRACE_H
#define KTRACE_KTRACE_H

#include <ktrace/version.h>
#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/detect.h>
#include <ktrace/out.h>
#include <ktrace/kbuffer.h>
#include <ktrace/ring.h>
#include <ktrace/event.h>
#include <ktrace/tracedat.h>
#include <ktrace/tracefs.h>
#include <ktrace/ktrace_file.h>
#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>
#include <ktrace/koff.h>
#include <ktrace/view.h>
#include <ktrace/sql.h>

#endif
