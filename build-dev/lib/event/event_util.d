build-dev/lib/event/event_util.o: lib/event/event_util.c \
 lib/event/event_internal.h include/ktrace/event.h include/ktrace/api.h \
 include/ktrace/error.h lib/common/grow.h lib/common/outbuf.h
lib/event/event_internal.h:
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
lib/common/grow.h:
lib/common/outbuf.h:
