build-dev/lib/common/detect.o: lib/common/detect.c lib/common/detect.h
lib/common/detect.h:
