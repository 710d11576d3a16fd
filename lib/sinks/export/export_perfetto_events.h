/* SPDX-License-Identifier: MIT */
/*
 * One record of the event stream as a Perfetto FtraceEvent (sinks/export/export_perfetto_events.c):
 * a typed message where Perfetto has one that holds every field of the record, else a
 * generic event with every field, described once by a proto descriptor (Perfetto v50+)
 * or, in the legacy form, with each field's name spelt out in every event.
 */
#ifndef KTRACE_VIEWS_PERFETTO_EVENTS_H
#define KTRACE_VIEWS_PERFETTO_EVENTS_H

#include <stdbool.h>

#include <ktrace/stream.h>

#include "sinks/export/export_protobuf.h"

/* FtraceEventBundle fields */
enum {
	PF_BUNDLE_CPU = 1,
	PF_BUNDLE_EVENT = 2,
	PF_BUNDLE_LOST_EVENTS = 3,
	PF_BUNDLE_GENERIC_DESCRIPTORS = 11,
};

struct pf_events;

/* The event types met so far. legacy: every generic event as GenericFtraceEvent. NULL
 * when out of memory. */
struct pf_events *pf_events_new(bool legacy);
void pf_events_free(struct pf_events *e);

/*
 * Appends the stream's current record r as one FtraceEvent (FtraceEventBundle.event)
 * to bundle. When r is the first record of a generic event type, the type's
 * description (one FtraceEventBundle.generic_event_descriptors field) is appended to
 * desc, which the caller writes out before any bundle holding the event. 0 or -ENOMEM.
 */
/* The record's type, made (and described into desc, for a generic one) when new,
 * without encoding the record: 0 or a negative code. */
int pf_event_type(struct pf_events *e, struct ktrace_stream *s,
		  const struct ktrace_stream_record *r, struct kt_pb_buf *desc);
/* Whether the records of event id of input source have their type here already. */
bool pf_event_known(const struct pf_events *e, uint32_t source, uint32_t id);
int pf_event_encode(struct pf_events *e, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, struct kt_pb_buf *bundle,
		    struct kt_pb_buf *desc);

#endif
