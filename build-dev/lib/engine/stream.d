build-dev/lib/engine/stream.o: lib/engine/stream.c \
 include/ktrace/stream.h include/ktrace/api.h include/ktrace/detect.h \
 include/ktrace/error.h include/ktrace/event.h lib/common/grow.h \
 lib/engine/stream_int.h include/ktrace/input.h
include/ktrace/stream.h:
include/ktrace/api.h:
include/ktrace/detect.h:
include/ktrace/error.h:
include/ktrace/event.h:
lib/common/grow.h:
lib/engine/stream_int.h:
include/ktrace/input.h:
