build-dev/lib/engine/formats.o: lib/engine/formats.c \
 include/ktrace/detect.h include/ktrace/api.h lib/common/detect.h
include/ktrace/detect.h:
include/ktrace/api.h:
lib/common/detect.h:
