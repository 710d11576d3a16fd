build-dev/lib/event/event_compile.o: lib/event/event_compile.c \
 lib/event/event_internal.h include/ktrace/event.h include/ktrace/api.h \
 include/ktrace/error.h
lib/event/event_internal.h:
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
