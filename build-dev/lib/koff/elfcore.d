build-dev/lib/koff/elfcore.o: lib/koff/elfcore.c include/ktrace/detect.h \
 include/ktrace/api.h lib/common/cursor.h include/ktrace/error.h \
 lib/common/detect.h lib/koff/internal.h include/ktrace/koff.h \
 include/ktrace/input.h lib/koff/layout.h
include/ktrace/detect.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
lib/common/detect.h:
lib/koff/internal.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
