build-dev/lib/koff/buffer.o: lib/koff/buffer.c lib/common/outfile.h \
 include/ktrace/error.h include/ktrace/api.h lib/koff/fmt.h \
 lib/koff/producer.h lib/koff/internal.h include/ktrace/koff.h \
 include/ktrace/input.h lib/koff/layout.h
lib/common/outfile.h:
include/ktrace/error.h:
include/ktrace/api.h:
lib/koff/fmt.h:
lib/koff/producer.h:
lib/koff/internal.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
