// SPDX-License-Identifier: GPL-2.0
/*
 * bench_noop: the program the exec benchmarks run. Linked statically, so an
 * exec of it costs the kernel's work and no dynamic loader.
 */
int main(void)
{
	return 0;
}
