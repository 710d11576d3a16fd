build-dev/lib/common/version.o: lib/common/version.c \
 include/ktrace/version.h include/ktrace/api.h
include/ktrace/version.h:
include/ktrace/api.h:
