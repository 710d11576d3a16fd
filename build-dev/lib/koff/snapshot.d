build-dev/lib/koff/snapshot.o: lib/koff/snapshot.c lib/common/cursor.h \
 include/ktrace/error.h include/ktrace/api.h lib/koff/internal.h \
 include/ktrace/koff.h include/ktrace/input.h lib/koff/layout.h \
 lib/common/grow.h lib/common/outfile.h
lib/common/cursor.h:
include/ktrace/error.h:
include/ktrace/api.h:
lib/koff/internal.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
lib/common/grow.h:
lib/common/outfile.h:
