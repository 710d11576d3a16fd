build-dev/lib/common/outfile.o: lib/common/outfile.c lib/common/outfile.h \
 include/ktrace/error.h include/ktrace/api.h
lib/common/outfile.h:
include/ktrace/error.h:
include/ktrace/api.h:
