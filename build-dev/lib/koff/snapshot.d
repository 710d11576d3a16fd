build-dev/lib/koff/snapshot.o: lib/koff/snapshot.c \
 include/ktrace/ktrace_file.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h lib/common/cursor.h lib/koff/internal.h \
 include/ktrace/koff.h lib/koff/layout.h lib/common/grow.h
include/ktrace/ktrace_file.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/koff/internal.h:
include/ktrace/koff.h:
lib/koff/layout.h:
lib/common/grow.h:
