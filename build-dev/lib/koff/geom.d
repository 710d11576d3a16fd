build-dev/lib/koff/geom.o: lib/koff/geom.c lib/common/cursor.h \
 include/ktrace/error.h include/ktrace/api.h lib/koff/internal.h \
 include/ktrace/koff.h include/ktrace/input.h lib/koff/layout.h
lib/common/cursor.h:
include/ktrace/error.h:
include/ktrace/api.h:
lib/koff/internal.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
