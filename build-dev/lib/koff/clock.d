build-dev/lib/koff/clock.o: lib/koff/clock.c lib/koff/internal.h \
 include/ktrace/error.h include/ktrace/api.h include/ktrace/koff.h \
 include/ktrace/input.h lib/koff/layout.h lib/koff/producer.h
lib/koff/internal.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/koff.h:
include/ktrace/input.h:
lib/koff/layout.h:
lib/koff/producer.h:
