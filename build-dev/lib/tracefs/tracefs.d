build-dev/lib/tracefs/tracefs.o: lib/tracefs/tracefs.c \
 lib/tracefs/tracefs_int.h include/ktrace/error.h include/ktrace/api.h \
 include/ktrace/tracefs.h include/ktrace/tracedat.h \
 include/ktrace/input.h
lib/tracefs/tracefs_int.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/tracefs.h:
include/ktrace/tracedat.h:
include/ktrace/input.h:
