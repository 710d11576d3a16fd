build-dev/lib/event/event_listing.o: lib/event/event_listing.c \
 include/ktrace/event.h include/ktrace/api.h include/ktrace/error.h \
 lib/event/event_internal.h
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
lib/event/event_internal.h:
