build-dev/lib/event/event_meta.o: lib/event/event_meta.c \
 lib/event/event_internal.h include/ktrace/event.h include/ktrace/api.h \
 include/ktrace/error.h lib/common/grow.h
lib/event/event_internal.h:
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
lib/common/grow.h:
