build-dev/lib/tracefs/tracefs_session.o: lib/tracefs/tracefs_session.c \
 include/ktrace/tracefs.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/tracedat.h include/ktrace/input.h \
 include/ktrace/version.h lib/tracefs/tracefs_int.h
include/ktrace/tracefs.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/tracedat.h:
include/ktrace/input.h:
include/ktrace/version.h:
lib/tracefs/tracefs_int.h:
