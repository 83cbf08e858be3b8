// SPDX-License-Identifier: GPL-2.0
/*
 * A start of argguard's BPF programs (programs.h): take the pins as they
 * are where they hold one whole load of this build, else have them loaded
 * (program_load.c) and take what that pinned; then hold the maps for the
 * daemon.
 */
#include "programs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "argguard.build_id.h"
#include "argguard.skel.h"
#include "kernel_features.h"
#include "log.h"
#include "names.h"
#include "pin_dir.h"
#include "program_load.h"
#include "start_plan.h"

/* What the daemon holds of a load: its maps, opened from the pins. */
struct programs {
	int map_fds[NR_MAP_PINS];
	bool exact_sizes;
};

/*
 * Resuming: a start that finds this very build's programs attached and
 * pinned, over the pinned maps, takes them as they are. A load would have
 * the verifier check every program again, only for the load to adopt the
 * same links by their tags.
 *
 * Take the pins as they are if start_can_resume() says they hold one whole
 * load of this build. Fills p->map_fds and *kernel (as the load saw it)
 * and returns true; or returns false, having kept nothing open, for a full
 * load to sort things out.
 */
static bool resume(struct programs *p, struct kernel_features *kernel)
{
	struct pinned_prog progs[NR_LINK_PINS];
	struct pins_found found = { 0 };
	struct bpf_map_info info;
	unsigned int n = 0;
	__u32 features, len;
	char path[128];
	int pin, fd;

	found.by_this_build = pinned_by_this_build(&progs[0], &features);
	if (!found.by_this_build)
		return false;
	found.kernel = kernel_features_of(features);
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		int link = pin - NR_MAP_PINS;

		found.link_pinned[link] = !pinned_prog_read(pin, &progs[n]);
		found.link_of_that_load[link] =
			found.link_pinned[link] && progs[n].btf_id == progs[0].btf_id;
		n += found.link_pinned[link];
	}
	for (pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		fd = bpf_obj_get(path);
		p->map_fds[pin] = fd;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		found.map_used[pin] = fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
				      pinned_progs_use_map(progs, n, info.id);
	}
	if (!start_can_resume(&found)) {
		for (pin = 0; pin < NR_MAP_PINS; pin++)
			if (p->map_fds[pin] >= 0)
				close(p->map_fds[pin]);
		return false;
	}
	*kernel = found.kernel;
	return true;
}

struct programs *programs_start(bool *earlier_pins, int (*before_attach)(void))
{
	struct kernel_features kernel;
	struct programs *p;
	char config_pin[128];

	if (pin_dir_make())
		return NULL;
	pin_dir_finish_swaps();
	kernel_warn_if_unprivileged_bpf();
	pin_path(PIN_CONFIG, config_pin, sizeof(config_pin));
	*earlier_pins = access(config_pin, F_OK) == 0;
	p = calloc(1, sizeof(*p));
	if (!p) {
		log_error("failed to start the BPF programs: %s", strerror(ENOMEM));
		return NULL;
	}
	if (*earlier_pins && resume(p, &kernel)) {
		log_info("adopted the pinned links and maps as they are: this build loaded "
			 "them, nothing to load again");
	} else if (programs_load_in_child(earlier_pins, before_attach)) {
		free(p);
		return NULL;
	} else if (!resume(p, &kernel)) {
		log_error("the programs the loader process pinned are not the whole load it "
			  "made: did another process change %s meanwhile?",
			  ARGGUARD_PIN_DIR);
		free(p);
		return NULL;
	}
	kernel_tell_what_it_lacks(&kernel);
	p->exact_sizes = kernel.exact_sizes;
	return p;
}

int programs_map_fd(const struct programs *p, enum pin pin)
{
	return p->map_fds[pin];
}

bool programs_exact_sizes(const struct programs *p)
{
	return p->exact_sizes;
}

void programs_close(struct programs *p)
{
	if (!p)
		return;
	/* The links stay pinned, and enforcement in place. */
	for (int pin = 0; pin < NR_MAP_PINS; pin++)
		close(p->map_fds[pin]);
	free(p);
}

uint64_t programs_build_id(void)
{
	return ARGGUARD_BUILD_ID;
}
