build-dev/lib/common/input.o: lib/common/input.c include/ktrace/input.h \
 include/ktrace/api.h include/ktrace/error.h lib/common/grow.h \
 lib/common/outfile.h
include/ktrace/input.h:
include/ktrace/api.h:
include/ktrace/error.h:
lib/common/grow.h:
lib/common/outfile.h:
