build-dev/lib/engine/pipeline.o: lib/engine/pipeline.c \
 lib/engine/pipeline.h
lib/engine/pipeline.h:
