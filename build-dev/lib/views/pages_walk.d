build-dev/lib/views/pages_walk.o: lib/views/pages_walk.c \
 lib/views/pages_walk.h include/ktrace/error.h include/ktrace/api.h \
 include/ktrace/input.h include/ktrace/kbuffer.h include/ktrace/api.h \
 include/ktrace/ring.h include/ktrace/detect.h
lib/views/pages_walk.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/input.h:
include/ktrace/kbuffer.h:
include/ktrace/api.h:
include/ktrace/ring.h:
include/ktrace/detect.h:
