build-dev/lib/event/event_print.o: lib/event/event_print.c \
 lib/event/event_internal.h include/ktrace/event.h include/ktrace/api.h \
 include/ktrace/error.h
lib/event/event_internal.h:
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
