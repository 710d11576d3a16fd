#!/bin/sh
# Checks the build (or test) dependencies of ktrace and installs the missing ones
# with apt-get on Debian. Usage: scripts/deps.sh build|test|bench|fuzz
set -u
what=${1:-build}

# header-or-command : Debian package
build_deps="zlib.h:zlib1g-dev zstd.h:libzstd-dev libelf.h:libelf-dev plist/plist.h:libplist-dev cmd:pkg-config:pkg-config cmd:python3:python3"
test_deps="traceevent/kbuffer.h:libtraceevent-dev cmd:trace-cmd:trace-cmd cmd:zstd:zstd cmd:man:man-db cmd:groff:groff-base cmd:python3:python3 cmd:chromium:chromium cmd:protoc:protobuf-compiler"
fuzz_deps="cmd:clang:clang libclang-rt-14-dev"
bench_deps="$test_deps cmd:/usr/bin/time:time cmd:hyperfine:hyperfine trace-cmd/trace-cmd.h:libtracecmd-dev tracefs/tracefs.h:libtracefs-dev"

case "$what" in
build) list=$build_deps ;;
test)  list="$build_deps $test_deps" ;;
bench) list="$build_deps $bench_deps" ;;
fuzz)  list="$build_deps $fuzz_deps" ;;
*) echo "usage: $0 build|test|bench|fuzz" >&2; exit 2 ;;
esac

have_header() {
	for d in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
		[ -e "$d/$1" ] && return 0
	done
	return 1
}

missing=""
for item in $list; do
	case "$item" in
	cmd:*)
		c=${item#cmd:}; cmd=${c%%:*}; pkg=${c#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg" ;;
	*:*)
		h=${item%%:*}; pkg=${item#*:}
		have_header "$h" || missing="$missing $pkg" ;;
	*)
		dpkg -s "$item" >/dev/null 2>&1 || missing="$missing $item" ;;
	esac
done

[ -z "$missing" ] && exit 0

echo "ktrace: installing missing $what dependencies:$missing" >&2
if ! command -v apt-get >/dev/null 2>&1; then
	echo "ktrace: apt-get not found; please install:$missing" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
		echo "ktrace: not root and no sudo; please install as root:$missing" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q $missing >/dev/null 2>&1; then
	$sudo apt-get update -q >/dev/null 2>&1
	if ! $sudo apt-get install -y -q $missing; then
		echo "ktrace: could not install:$missing (install them by hand and retry)" >&2
		exit 1
	fi
fi
exit 0
