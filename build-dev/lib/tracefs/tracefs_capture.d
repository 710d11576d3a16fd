build-dev/lib/tracefs/tracefs_capture.o: lib/tracefs/tracefs_capture.c \
 include/ktrace/kbuffer.h include/ktrace/api.h lib/common/cursor.h \
 include/ktrace/error.h include/ktrace/api.h lib/common/outfile.h \
 lib/tracefs/tracefs_int.h include/ktrace/tracefs.h \
 include/ktrace/tracedat.h include/ktrace/input.h
include/ktrace/kbuffer.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
include/ktrace/api.h:
lib/common/outfile.h:
lib/tracefs/tracefs_int.h:
include/ktrace/tracefs.h:
include/ktrace/tracedat.h:
include/ktrace/input.h:
