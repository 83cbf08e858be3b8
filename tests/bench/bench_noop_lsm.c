// SPDX-License-Identifier: GPL-2.0
/*
 * bench_noop_lsm attach   load noop_lsm.bpf.c's programs, attach them and pin
 *                         their links in PIN_DIR, then exit
 * bench_noop_lsm detach   unpin them, which detaches them
 *
 * The floor of the exec benchmarks' overhead: what two BPF LSM programs that
 * do nothing cost an exec, on the hooks argguard's programs take, sleepable
 * where argguard's are (a kernel with the series' bpf_bprm_read_argv kfunc,
 * as the loader's kernel_features_probe() tells them apart). Run as root,
 * inside the guest.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "noop_lsm.skel.h"

#define PIN_DIR "/sys/fs/bpf/bench_noop_lsm"

static const char *const pins[] = { PIN_DIR "/bprm_check", PIN_DIR "/bprm_creds" };

static bool kernel_head(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, "bpf_bprm_read_argv", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return found;
}

static int detach(void)
{
	int err = 0;

	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		if (unlink(pins[i]) && errno != ENOENT) {
			fprintf(stderr, "bench_noop_lsm: %s: %s\n", pins[i], strerror(errno));
			err = 1;
		}
	}
	if (rmdir(PIN_DIR) && errno != ENOENT) {
		fprintf(stderr, "bench_noop_lsm: %s: %s\n", PIN_DIR, strerror(errno));
		err = 1;
	}
	return err;
}

static int attach(void)
{
	struct noop_lsm_bpf *skel;
	struct bpf_program *progs[2], *unused[2];
	bool sleepable = kernel_head();
	int err;

	skel = noop_lsm_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench_noop_lsm: open: %s\n", strerror(errno));
		return 1;
	}
	progs[0] = skel->progs.noop_bprm_check;
	progs[1] = skel->progs.noop_bprm_creds;
	unused[0] = skel->progs.noop_bprm_check_s;
	unused[1] = skel->progs.noop_bprm_creds_s;
	for (int i = 0; sleepable && i < 2; i++) {
		struct bpf_program *p = progs[i];

		progs[i] = unused[i];
		unused[i] = p;
	}
	for (int i = 0; i < 2; i++)
		bpf_program__set_autoload(unused[i], false);
	err = noop_lsm_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bench_noop_lsm: load: %s\n", strerror(-err));
		goto out;
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "bench_noop_lsm: %s: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		struct bpf_link *link = bpf_program__attach_lsm(progs[i]);

		err = link ? 0 : -errno;
		if (!err) {
			err = bpf_link__pin(link, pins[i]);
			bpf_link__destroy(link); /* the pin keeps it */
		}
		if (err) {
			fprintf(stderr, "bench_noop_lsm: attach %s: %s\n",
				bpf_program__name(progs[i]), strerror(-err));
			detach();
			goto out;
		}
	}
	printf("bench_noop_lsm: attached %s and %s\n", bpf_program__name(progs[0]),
	       bpf_program__name(progs[1]));
out:
	noop_lsm_bpf__destroy(skel);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "attach"))
		return attach();
	if (argc == 2 && !strcmp(argv[1], "detach"))
		return detach();
	fprintf(stderr, "usage: bench_noop_lsm attach | detach\n");
	return 2;
}
