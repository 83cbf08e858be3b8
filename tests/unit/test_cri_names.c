// SPDX-License-Identifier: GPL-2.0
/*
 * cri_names: a bundle's annotations parsed, and a bundle read only as root's
 * containerd keeps it, from fixtures: a good one, one too big, one without
 * annotations, and ones that are a symlink, a FIFO or writable by others.
 * A bundle of another owner takes root to make: the guest tries that
 * (tests/guest/cases/containerd.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cri_names.h"

#define ID "4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a"

static const char good[] =
	"{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"/pause\"]},\n"
	" \"annotations\": {\"io.kubernetes.cri.container-type\": \"container\",\n"
	"  \"io.kubernetes.cri.sandbox-name\": \"web-7d4f9\",\n"
	"  \"io.kubernetes.cri.sandbox-namespace\": \"shop\",\n"
	"  \"io.kubernetes.cri.container-name\": \"app\",\n"
	"  \"io.kubernetes.cri.image-name\": \"registry.example/app:1.2\"}}";

static bool same(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

static void check_names(const char *what, int err, const struct cri_names *n, const char *pod,
			const char *ns, const char *name, const char *image)
{
	CHECK(!err && same(n->pod, pod) && same(n->namespace, ns) && same(n->name, name) &&
		      same(n->image, image),
	      "%s: %s/%s %s %s (got %d: %s/%s %s %s)", what, ns ? ns : "-", pod ? pod : "-",
	      name ? name : "-", image ? image : "-", err, n->namespace ? n->namespace : "-",
	      n->pod ? n->pod : "-", n->name ? n->name : "-", n->image ? n->image : "-");
}

static int parse(const char *text, struct cri_names *n)
{
	return cri_names_parse(text, strlen(text), n);
}

static void parse_cases(void)
{
	struct cri_names n;
	int err;

	err = cri_names_parse(good, strlen(good), &n);
	check_names("a kubelet's container", err, &n, "web-7d4f9", "shop", "app",
		    "registry.example/app:1.2");
	cri_names_free(&n);
	err = parse("{\"annotations\": {\"io.kubernetes.cri.sandbox-name\": \"p\", "
		    "\"io.kubernetes.cri.sandbox-namespace\": \"default\"}}",
		    &n);
	check_names("a pod's sandbox: no container name or image", err, &n, "p", "default", NULL,
		    NULL);
	cri_names_free(&n);
	err = parse("{\"ociVersion\": \"1.0.2\"}", &n);
	check_names("no annotations: no names", err, &n, NULL, NULL, NULL, NULL);
	err = parse("{\"annotations\": [\"io.kubernetes.cri.sandbox-name\"]}", &n);
	check_names("annotations not an object: no names", err, &n, NULL, NULL, NULL, NULL);
	err = parse("{\"annotations\": {\"io.kubernetes.cri.sandbox-name\": 7, "
		    "\"io.kubernetes.cri.container-name\": \"a\\u0000b\", "
		    "\"io.kubernetes.cri.image-name\": \"caf\\u00e9\"}}",
		    &n);
	check_names("a number or a NUL is no name; \\u escapes are decoded", err, &n, NULL, NULL,
		    NULL, "caf\xc3\xa9");
	cri_names_free(&n);
	CHECK(parse("{\"annotations\": {}", &n) == -EINVAL && !n.pod, "not JSON: -EINVAL");
	CHECK(parse("[]", &n) == -EINVAL, "not an object: -EINVAL");
}

static char dir[] = "/tmp/test_cri_names.XXXXXX";

static void write_file(const char *path, const char *text, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fchmod(fd, mode) || close(fd)) {
		perror(path);
		exit(2);
	}
}

static void make_dir(const char *path, mode_t mode)
{
	if (mkdir(path, 0700) || chmod(path, mode)) {
		perror(path);
		exit(2);
	}
}

/* The tasks directory: k8s.io/ID/config.json (good), and others to try. */
static int read_case(const char *bundle_dir, const char *id, struct cri_names *n)
{
	char path[512];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, bundle_dir);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	err = cri_names_read(fd, id, getuid(), n);
	close(fd);
	return err;
}

static void read_cases(void)
{
	char path[512], target[512], *big;
	struct cri_names n;
	int err;

	if (!mkdtemp(dir)) {
		perror(dir);
		exit(2);
	}
	umask(022);
#define AT(...) (snprintf(path, sizeof(path), __VA_ARGS__), path)
	make_dir(AT("%s/tasks", dir), 0711);
	make_dir(AT("%s/tasks/default", dir), 0711);
	make_dir(AT("%s/tasks/k8s.io", dir), 0711);
	make_dir(AT("%s/tasks/k8s.io/%s", dir, ID), 0700);
	write_file(AT("%s/tasks/k8s.io/%s/config.json", dir, ID), good, strlen(good), 0644);
	err = read_case("tasks", ID, &n);
	check_names("a bundle in its namespace's directory", err, &n, "web-7d4f9", "shop", "app",
		    "registry.example/app:1.2");
	cri_names_free(&n);
	CHECK(read_case("tasks", "0123", &n) == -ENOENT, "no such bundle: -ENOENT");
	CHECK(read_case("tasks", "..", &n) == -EINVAL, "an id that is no name: -EINVAL");

	/* Too big: one byte past the bound, white space after the object. */
	make_dir(AT("%s/big", dir), 0755);
	make_dir(AT("%s/big/k8s.io", dir), 0755);
	make_dir(AT("%s/big/k8s.io/%s", dir, ID), 0700);
	big = malloc(CRI_BUNDLE_MAX + 1);
	if (!big)
		exit(2);
	memset(big, ' ', CRI_BUNDLE_MAX + 1);
	memcpy(big, good, strlen(good));
	write_file(AT("%s/big/k8s.io/%s/config.json", dir, ID), big, CRI_BUNDLE_MAX + 1, 0644);
	CHECK(read_case("big", ID, &n) == -EFBIG && !n.pod, "a bundle past %u bytes: -EFBIG",
	      CRI_BUNDLE_MAX);
	write_file(AT("%s/big/k8s.io/%s/config.json", dir, ID), big, CRI_BUNDLE_MAX, 0644);
	err = read_case("big", ID, &n);
	check_names("a bundle of just the bound", err, &n, "web-7d4f9", "shop", "app",
		    "registry.example/app:1.2");
	cri_names_free(&n);
	free(big);

	/* Others may write it, or it is not a file of its own: not trusted. */
	make_dir(AT("%s/odd", dir), 0755);
	make_dir(AT("%s/odd/k8s.io", dir), 0755);
	make_dir(AT("%s/odd/k8s.io/%s", dir, ID), 0700);
	write_file(AT("%s/odd/k8s.io/%s/config.json", dir, ID), good, strlen(good), 0664);
	CHECK(read_case("odd", ID, &n) == -EPERM && !n.pod, "a group-writable bundle: -EPERM");
	unlink(AT("%s/odd/k8s.io/%s/config.json", dir, ID));
	snprintf(target, sizeof(target), "%s/tasks/k8s.io/%s/config.json", dir, ID);
	if (symlink(target, AT("%s/odd/k8s.io/%s/config.json", dir, ID)))
		exit(2);
	CHECK(read_case("odd", ID, &n) == -EPERM && !n.pod, "a symlink to a good bundle: -EPERM");
	unlink(AT("%s/odd/k8s.io/%s/config.json", dir, ID));
	if (mkfifo(AT("%s/odd/k8s.io/%s/config.json", dir, ID), 0644))
		exit(2);
	CHECK(read_case("odd", ID, &n) == -EPERM && !n.pod,
	      "a FIFO: -EPERM, and its open blocks nobody");
	unlink(AT("%s/odd/k8s.io/%s/config.json", dir, ID));
	write_file(AT("%s/odd/k8s.io/%s/config.json", dir, ID), good, strlen(good), 0644);
	chmod(AT("%s/odd/k8s.io/%s", dir, ID), 0777);
	CHECK(read_case("odd", ID, &n) == -EPERM, "a world-writable bundle directory: -EPERM");
	chmod(AT("%s/odd/k8s.io/%s", dir, ID), 0700);
	chmod(AT("%s/odd/k8s.io", dir), 0775);
	CHECK(read_case("odd", ID, &n) == -ENOENT,
	      "a group-writable namespace directory is not looked in");
	chmod(AT("%s/odd/k8s.io", dir), 0755);
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	if (rename(AT("%s/odd/k8s.io", dir), target) || symlink("../elsewhere", path))
		exit(2);
	err = read_case("odd", ID, &n);
	CHECK(err == -ENOENT, "a symlinked namespace is not looked in (%d)", err);
	cri_names_free(&n);

	/* The way down from /: each directory checked, none a symlink. */
	err = cri_open_trusted_dir("/", getuid());
	CHECK(err >= 0, "/ is trusted (%d)", err);
	if (err >= 0)
		close(err);
	CHECK(cri_open_trusted_dir("/tmp", getuid()) == -EPERM,
	      "/tmp, which all may write: -EPERM");
	CHECK(cri_open_trusted_dir(AT("%s/tasks", dir), getuid()) == -EPERM,
	      "a directory below /tmp: -EPERM");
	CHECK(cri_open_trusted_dir("/proc/self", getuid()) == -EPERM, "a symlink: -EPERM");
	CHECK(cri_open_trusted_dir("tasks", getuid()) == -EINVAL, "a relative path: -EINVAL");
#undef AT
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void clean(void)
{
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	parse_cases();
	read_cases();
	clean();
	return check_done();
}
