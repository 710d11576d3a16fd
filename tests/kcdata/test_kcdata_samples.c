// SPDX-License-Identifier: MIT
/*
 * Every conformance sample of ../shared/data/kcdata (xnu's libkdd test data):
 * opened (gzip / base64 / raw) and decoded with the library, then compared node by
 * node with libkdd's expected property list as parsed by libplist.
 * The directory comes from $KTRACE_KCDATA_SAMPLES, else ../shared/data/kcdata.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <plist/plist.h>

#include <ktrace/kcdata.h>


static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* gunzips data when it is gzip'd (expected plists are .plist.gz). */
static uint8_t *maybe_gunzip(uint8_t *data, size_t *len)
{
	z_stream zs;
	uint8_t *out = NULL;
	size_t cap = 0;
	int zr = Z_OK;

	if (*len < 2 || data[0] != 0x1f || data[1] != 0x8b)
		return data;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		abort();
	zs.next_in = data;
	zs.avail_in = (uInt)*len;
	while (zr != Z_STREAM_END) {
		cap = cap ? cap * 2 : 1 << 20;
		out = realloc(out, cap);
		if (!out)
			abort();
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			abort();
	}
	*len = zs.total_out;
	inflateEnd(&zs);
	free(data);
	return out;
}

/* Compares our node with libplist's; prints the first difference. */
static bool same(const struct kcdata_node *n, plist_t p, const char *path)
{
	char sub[1024];

	switch (plist_get_node_type(p)) {
	case PLIST_DICT: {
		plist_dict_iter it = NULL;
		char *key = NULL;
		plist_t val = NULL;
		bool ok = true;

		if (kcdata_node_kind(n) != KCDATA_NODE_DICT ||
		    kcdata_node_count(n) != plist_dict_get_size(p)) {
			printf("#   %s: expected a dictionary of %u entries, got kind %d with %zu\n", path,
			       plist_dict_get_size(p), kcdata_node_kind(n), kcdata_node_count(n));
			return false;
		}
		plist_dict_new_iter(p, &it);
		for (;;) {
			plist_dict_next_item(p, it, &key, &val);
			if (!key)
				break;
			snprintf(sub, sizeof(sub), "%s/%s", path, key);
			ok = kcdata_node_get(n, key) ? same(kcdata_node_get(n, key), val, sub) : false;
			if (!kcdata_node_get(n, key))
				printf("#   %s: missing\n", sub);
			free(key);
			key = NULL;
			if (!ok)
				break;
		}
		free(it);
		return ok;
	}
	case PLIST_ARRAY:
		if (kcdata_node_kind(n) != KCDATA_NODE_ARRAY ||
		    kcdata_node_count(n) != plist_array_get_size(p)) {
			printf("#   %s: expected an array of %u, got kind %d with %zu\n", path,
			       plist_array_get_size(p), kcdata_node_kind(n), kcdata_node_count(n));
			return false;
		}
		for (uint32_t i = 0; i < plist_array_get_size(p); i++) {
			snprintf(sub, sizeof(sub), "%s[%u]", path, i);
			if (!same(kcdata_node_at(n, i), plist_array_get_item(p, i), sub))
				return false;
		}
		return true;
	case PLIST_UINT: {
		uint64_t v = 0;

		plist_get_uint_val(p, &v);
		if (kcdata_node_kind(n) != KCDATA_NODE_INT || kcdata_node_uint(n) != v) {
			printf("#   %s: expected %" PRIu64 " (as bits), got %" PRIu64 "\n", path, v,
			       kcdata_node_uint(n));
			return false;
		}
		return true;
	}
	case PLIST_STRING: {
		char *s = NULL;
		bool ok;

		plist_get_string_val(p, &s);
		ok = kcdata_node_kind(n) == KCDATA_NODE_STRING && s &&
		     !strcmp(kcdata_node_string(n, NULL), s);
		if (!ok)
			printf("#   %s: expected \"%s\"\n", path, s ? s : "");
		free(s);
		return ok;
	}
	default:
		printf("#   %s: unexpected plist node type %d\n", path, plist_get_node_type(p));
		return false;
	}
}

static int check_sample(const char *dir, const char *name)
{
	char path[4096];
	uint8_t *data, *exp;
	size_t len, elen;
	struct ktrace_error err = { 0 };
	struct kcdata_buffer *buf = NULL;
	struct kcdata_node *root = NULL;
	plist_t expected = NULL;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	data = read_file(path, &len);
	snprintf(path, sizeof(path), "%s/%s.plist.gz", dir, name);
	exp = read_file(path, &elen);
	if (!exp) {
		snprintf(path, sizeof(path), "%s/%s.plist", dir, name);
		exp = read_file(path, &elen);
	}
	if (!data || !exp) {
		printf("#   %s: cannot read the sample or its expected plist\n", name);
		goto out;
	}
	exp = maybe_gunzip(exp, &elen);
	plist_from_memory((const char *)exp, (uint32_t)elen, &expected);
	if (!expected) {
		printf("#   %s: libplist cannot parse the expected plist\n", name);
		goto out;
	}
	if (kcdata_buffer_open(data, len, &buf, &err) ||
	    kcdata_decode(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &root, &err)) {
		char msg[400];

		printf("#   %s: %s\n", name, ktrace_error_format(&err, msg, sizeof(msg)));
		goto out;
	}
	ok = same(root, expected, name);
out:
	printf("%s - sample %s\n", ok ? "ok" : "not ok", name);
	if (expected)
		plist_free(expected);
	kcdata_node_free(root);
	kcdata_buffer_free(buf);
	free(data);
	free(exp);
	return ok ? 0 : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const char *dir = getenv("KTRACE_KCDATA_SAMPLES");
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int failed = 0;

	if (!dir)
		dir = "../shared/data/kcdata";
	d = opendir(dir);
	if (!d) {
		printf("not ok - cannot open %s\n", dir);
		return 1;
	}
	while ((de = readdir(d)) && n < 256) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".plist") || strstr(de->d_name, ".md"))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	printf("1..%zu\n", n + 1);
	if (n < 10) {
		printf("not ok - only %zu samples in %s\n", n, dir);
		failed++;
	} else {
		printf("ok - %zu samples in %s\n", n, dir);
	}
	for (size_t i = 0; i < n; i++) {
		failed += check_sample(dir, names[i]);
		free(names[i]);
	}
	return failed ? 1 : 0;
}
