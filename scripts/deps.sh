#!/bin/sh
# Checks the build (or test) dependencies of ktrace and installs the missing ones
# with apt-get on Debian. Usage: scripts/deps.sh build|test|bench|fuzz
# Optional test dependencies (ClickHouse: not in every Debian release) are installed
# when apt has them; the tests that need them say so and count as skipped otherwise.
set -u
what=${1:-build}

# header-or-command : Debian package
build_deps="zlib.h:zlib1g-dev libdeflate.h:libdeflate-dev lz4.h:liblz4-dev zstd.h:libzstd-dev libelf.h:libelf-dev plist/plist.h:libplist-dev sqlite3.h:libsqlite3-dev libaudit.h:libaudit-dev cmd:pkg-config:pkg-config cmd:python3:python3"
test_deps="traceevent/kbuffer.h:libtraceevent-dev cmd:trace-cmd:trace-cmd cmd:zstd:zstd cmd:man:man-db cmd:groff:groff-base cmd:python3:python3 cmd:chromium:chromium cmd:protoc:protobuf-compiler cmd:sqlite3:sqlite3 python3-dev python3-numpy python3-pandas"
optional_test_deps="cmd:clickhouse-server:clickhouse-server cmd:clickhouse-client:clickhouse-client"
fuzz_deps="cmd:clang:clang libclang-rt-14-dev"
bench_deps="$test_deps cmd:/usr/bin/time:time cmd:hyperfine:hyperfine trace-cmd/trace-cmd.h:libtracecmd-dev tracefs/tracefs.h:libtracefs-dev"

optional=""
case "$what" in
build) list=$build_deps ;;
test)  list="$build_deps $test_deps"; optional=$optional_test_deps ;;
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

missing_of() {   # list: the Debian packages of the items that are missing
	m=""
	for item in $1; do
		case "$item" in
		cmd:*)
			c=${item#cmd:}; cmd=${c%%:*}; pkg=${c#*:}
			command -v "$cmd" >/dev/null 2>&1 || m="$m $pkg" ;;
		*:*)
			h=${item%%:*}; pkg=${item#*:}
			have_header "$h" || m="$m $pkg" ;;
		*)
			dpkg -s "$item" >/dev/null 2>&1 || m="$m $item" ;;
		esac
	done
	echo "$m"
}

missing=$(missing_of "$list")
optional_missing=$(missing_of "$optional")

# optional ones: installed when apt has them, else noted (their tests are skipped)
if [ -n "$optional_missing" ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	for pkg in $optional_missing; do
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >/dev/null 2>&1 ||
				echo "ktrace: could not install $pkg (its tests will be skipped)" >&2
		else
			echo "ktrace: $pkg is not in this system's apt sources (its tests will be skipped)" >&2
		fi
	done
fi

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
