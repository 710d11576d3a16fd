build-dev/lib/koff/reader.o: lib/koff/reader.c include/ktrace/detect.h \
 include/ktrace/api.h lib/common/cursor.h include/ktrace/error.h \
 lib/common/detect.h lib/koff/fmt.h lib/koff/internal.h \
 include/ktrace/koff.h include/ktrace/input.h lib/koff/layout.h
include/ktrace/detect.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
lib/common/detect.h:
lib/koff/fmt.h:
lib/koff/internal.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
