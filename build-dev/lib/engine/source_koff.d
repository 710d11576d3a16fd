build-dev/lib/engine/source_koff.o: lib/engine/source_koff.c \
 include/ktrace/koff.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h lib/engine/stream_int.h include/ktrace/stream.h \
 include/ktrace/detect.h include/ktrace/event.h
include/ktrace/koff.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/engine/stream_int.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
