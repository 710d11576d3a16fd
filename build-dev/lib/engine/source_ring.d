build-dev/lib/engine/source_ring.o: lib/engine/source_ring.c \
 include/ktrace/kbuffer.h include/ktrace/api.h include/ktrace/ring.h \
 include/ktrace/api.h lib/common/cursor.h include/ktrace/error.h \
 lib/common/grow.h lib/engine/stream_int.h include/ktrace/input.h \
 include/ktrace/stream.h include/ktrace/detect.h include/ktrace/event.h
include/ktrace/kbuffer.h:
include/ktrace/api.h:
include/ktrace/ring.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
lib/common/grow.h:
lib/engine/stream_int.h:
include/ktrace/input.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
