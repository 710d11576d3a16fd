build-dev/lib/ring/pages.o: lib/ring/pages.c include/ktrace/detect.h \
 include/ktrace/api.h include/ktrace/ring.h include/ktrace/kbuffer.h \
 include/ktrace/api.h lib/common/cursor.h include/ktrace/error.h \
 lib/common/detect.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/ring.h:
include/ktrace/kbuffer.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
lib/common/detect.h:
