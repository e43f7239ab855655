// SPDX-License-Identifier: GPL-2.0
/*
 * A program that embeds CPython through the shared libpython3.11, as
 * pyenv's and the official images' python3 do: the interpreter is mapped
 * by the loader after exec.  Runs N time.mktime(time.localtime()) calls
 * (TZ unset: one stat of /etc/localtime each) from line 3 of its script.
 *
 *	embed N
 */
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char code[256];
	long n = argc > 1 ? atol(argv[1]) : 100;

	snprintf(code, sizeof(code), "import time\nfor _ in range(%ld):\n    time.mktime(time.localtime())\n", n);
	Py_Initialize();
	PyRun_SimpleString(code);
	Py_Finalize();
	fprintf(stderr, "WORKLOAD pid=%d localtime_calls=%ld\n", getpid(), n);
	return 0;
}
