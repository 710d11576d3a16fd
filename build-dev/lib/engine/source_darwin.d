build-dev/lib/engine/source_darwin.o: lib/engine/source_darwin.c \
 include/ktrace/darwin.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h include/ktrace/ktrace_file.h \
 lib/engine/stream_int.h include/ktrace/stream.h include/ktrace/detect.h \
 include/ktrace/event.h
include/ktrace/darwin.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
lib/engine/stream_int.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
