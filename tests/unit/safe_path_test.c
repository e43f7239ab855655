// SPDX-License-Identifier: GPL-2.0
/*
 * open_dir_safely() resolves as the kernel does (relative and absolute
 * links, "..", loops, a file on the way), one component at a time.  The
 * refusal of another user's link in a sticky directory needs a second
 * user: tests/output.bats proves it as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "unit_test.h"
#include "safe_path.h"

static char root[64];

static void path(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", root, rel);
}

static int make_tree(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/ct-safe-path-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	path(p, "real");
	mkdir(p, 0755);
	path(p, "real/sub");
	mkdir(p, 0755);
	path(p, "file");
	close(open(p, O_CREAT | O_WRONLY, 0644));
	path(p, "rel");
	if (symlink("real", p))
		return -1;
	path(p, "abs");
	path(q, "real/sub");
	if (symlink(q, p))
		return -1;
	path(p, "loop");
	if (symlink("loop", p))
		return -1;
	path(p, "empty");
	return symlink("/nonexistent-ct-target", p);
}

static int remove_tree(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* The directory REL resolves to, as a device:inode pair against EXPECT. */
static void assert_same_dir(const char *rel, const char *expect)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct stat a, b;
	uid_t uid = 12345;
	int fd;

	path(p, rel);
	path(q, expect);
	fd = open_dir_safely(p, &uid);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(q, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	assert_int_equal(uid, 12345);
	close(fd);
}

static void assert_refused(const char *rel, int err)
{
	char p[PATH_MAX];
	uid_t uid;

	path(p, rel);
	assert_int_equal(open_dir_safely(p, &uid), -err);
}

static void test_follows_like_the_kernel(void **state)
{
	(void)state;
	assert_same_dir("real", "real");
	assert_same_dir("rel", "real");
	assert_same_dir("rel/sub", "real/sub");
	assert_same_dir("abs", "real/sub");
	/* ".." of a link's target, not of the link's name. */
	assert_same_dir("abs/..", "real");
	assert_same_dir("rel/./sub//", "real/sub");
	assert_same_dir("real/sub/../..", ".");
}

static void test_refuses_what_the_kernel_refuses(void **state)
{
	(void)state;
	assert_refused("loop", ELOOP);
	assert_refused("file", ENOTDIR);
	assert_refused("missing", ENOENT);
	assert_refused("empty", ENOENT);
	assert_refused("rel/file", ENOENT);
}

static void test_relative_to_cwd(void **state)
{
	char cwd[PATH_MAX];
	uid_t uid;
	int fd;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(root), 0);
	fd = open_dir_safely("rel/sub", &uid);
	assert_true(fd >= 0);
	close(fd);
	fd = open_dir_safely(".", &uid);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follows_like_the_kernel),
		cmocka_unit_test(test_refuses_what_the_kernel_refuses),
		cmocka_unit_test(test_relative_to_cwd),
	};

	return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
