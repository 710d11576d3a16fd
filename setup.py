"""The C extension of pyproject.toml (setuptools declares extensions here): python/*.c
linked with libktrace.a, from this tree's build/ when `make` made it, else from the
libktrace pkg-config finds (`make install`)."""
import glob
import os
import shlex
import subprocess

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ['zstd', 'z', 'deflate', 'lz4', 'elf', 'plist-2.0', 'sqlite3', 'audit', 'm']


def libktrace():
    """(include dirs, the static library)."""
    tree = os.path.join(HERE, 'build', 'libktrace.a')
    if os.path.exists(tree):
        return [os.path.join(HERE, 'include')], tree
    cflags = subprocess.run(['pkg-config', '--cflags', 'ktrace'], check=True, text=True,
                            stdout=subprocess.PIPE).stdout
    libdir = subprocess.run(['pkg-config', '--variable=libdir', 'ktrace'], check=True, text=True,
                            stdout=subprocess.PIPE).stdout.strip()
    return [f[2:] for f in shlex.split(cflags) if f.startswith('-I')], os.path.join(libdir, 'libktrace.a')


inc, lib = libktrace()
# setuptools' own build files go under build/setuptools, beside make's
BASE = os.path.join('build', 'setuptools')
os.makedirs(BASE, exist_ok=True)
setup(
    options={'build': {'build_base': BASE}, 'egg_info': {'egg_base': BASE}},
    ext_modules=[Extension(
        'ktrace',
        sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, 'python', '*.c'))),
        include_dirs=inc + [numpy.get_include()],
        define_macros=[('_GNU_SOURCE', None)],
        extra_compile_args=['-std=c11', '-fvisibility=hidden'],
        extra_objects=[lib],
        extra_link_args=['-Wl,--exclude-libs,ALL', '-pthread'],
        libraries=LIBS,
    )])
