// SPDX-License-Identifier: GPL-2.0
/*
 * The full load (program_load.h): the BPF object loaded in a process of
 * its own with every map at its pin, then each link adopted or attached
 * and pinned. The one file that opens the BPF skeleton.
 */
#include "program_load.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "argguard.build_id.h"
#include "argguard.skel.h"
#include "kernel_features.h"
#include "log.h"
#include "names.h"
#include "pin_dir.h"
#include "start_plan.h"

/* The skeleton's map for a map pin, its program and link for a link pin. */
static struct bpf_map *map_of(const struct argguard_bpf *skel, enum pin pin)
{
#define ARGGUARD_SKEL_MAP(pin, file, map) \
	case pin:                         \
		return skel->maps.map;
	switch (pin) {
		ARGGUARD_MAP_PINS(ARGGUARD_SKEL_MAP)
	default:
		return NULL;
	}
}

static struct bpf_program *either(bool second, struct bpf_program *a, struct bpf_program *b)
{
	return second ? b : a;
}

static struct bpf_link **either_link(bool second, struct bpf_link **a, struct bpf_link **b)
{
	return second ? b : a;
}

/* The program a link pin runs: its kernel-head one where the kernel has bpf_bprm_read_argv(). */
static struct bpf_program *program_of(const struct argguard_bpf *skel, enum pin pin,
				      bool kernel_head)
{
#define ARGGUARD_SKEL_PROGRAM(pin, file, prog, kernel_head_prog) \
	case pin:                                                \
		return either(kernel_head, skel->progs.prog, skel->progs.kernel_head_prog);
	switch (pin) {
		ARGGUARD_LINK_PINS(ARGGUARD_SKEL_PROGRAM)
	default:
		return NULL;
	}
}

/* The other one, which is not loaded. NULL where both are the same. */
static struct bpf_program *unused_program_of(const struct argguard_bpf *skel, enum pin pin,
					     bool kernel_head)
{
	struct bpf_program *other = program_of(skel, pin, !kernel_head);

	return other == program_of(skel, pin, kernel_head) ? NULL : other;
}

static struct bpf_link **link_of(struct argguard_bpf *skel, enum pin pin, bool kernel_head)
{
#define ARGGUARD_SKEL_LINK(pin, file, prog, kernel_head_prog) \
	case pin:                                             \
		return either_link(kernel_head, &skel->links.prog, &skel->links.kernel_head_prog);
	switch (pin) {
		ARGGUARD_LINK_PINS(ARGGUARD_SKEL_LINK)
	default:
		return NULL;
	}
}

static int leave_out(struct bpf_program *prog)
{
	int err = bpf_program__set_autoload(prog, false);

	if (err)
		log_error("failed to leave out %s: %s", bpf_program__name(prog), strerror(-err));
	return err;
}
/*
 * Load only the programs this kernel runs: the kernel-head ones where it
 * has the kfunc, and the links link_wanted() picks.
 */
static int choose_programs(struct argguard_bpf *skel, const struct kernel_features *kernel)
{
	struct bpf_program *unused;
	int err = 0;

	for (int pin = NR_MAP_PINS; pin < NR_PINS && !err; pin++) {
		unused = unused_program_of(skel, pin, kernel->kernel_head);
		if (unused)
			err = leave_out(unused);
		if (!err && !start_wants_link(pin, kernel))
			err = leave_out(program_of(skel, pin, kernel->kernel_head));
	}
	return err;
}

/*
 * The link pinned at pin, if it runs the very program prog (same tag) of
 * the load whose BTF object is btf_id: a restart after a crash or a stop
 * keeps enforcing through it. NULL if there is none, or it runs another
 * program or another load's, which the journal then names.
 */
static struct bpf_link *adopt_pinned(struct bpf_program *prog, enum pin pin, __u32 btf_id)
{
	__u8 ours[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct pinned_prog pinned;
	struct bpf_link *link;
	const char *why;
	char path[128];
	int prog_fd;

	pin_path(pin, path, sizeof(path));
	if (pinned_prog_read(pin, &pinned)) {
		why = "no link pinned there, or none that runs a program";
		goto no;
	}
	if (pinned.btf_id != btf_id) {
		why = "its program is of another load than the bprm_check link's";
		goto no;
	}
	link = bpf_link__open(path);
	if (!link) {
		why = strerror(errno);
		goto no;
	}
	prog_fd = bpf_prog_get_fd_by_id(pinned.prog_id);
	if (prog_fd >= 0 && !prog_tag(prog_fd, theirs) && !prog_tag(bpf_program__fd(prog), ours) &&
	    !memcmp(ours, theirs, BPF_TAG_SIZE)) {
		close(prog_fd);
		return link;
	}
	if (prog_fd >= 0)
		close(prog_fd);
	bpf_link__destroy(link);
	why = "it runs another program than this load's";
no:
	log_info("not adopting %s (%s): attaching every link anew", path, why);
	return NULL;
}

/*
 * Attach, pin the link at its swap path, then rename it over the old pin:
 * the previous link, if any, detaches only when its pin goes, by which time
 * this one is enforcing, and a start killed at any point leaves one of the
 * two pinned. No exec slips by.
 */
static int attach_and_pin(struct bpf_program *prog, struct bpf_link **out, enum pin name)
{
	struct bpf_link *link;
	char pin[128], next[136];
	int err;

	pin_path(name, pin, sizeof(pin));
	pin_swap_path(name, next, sizeof(next));
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		log_error("failed to attach %s: %s", bpf_program__name(prog), strerror(-err));
		return err;
	}
	*out = link;
	if (unlink(next) && errno != ENOENT) { /* left by a start that was killed */
		err = -errno;
		log_error("failed to remove %s: %s", next, strerror(-err));
		return err;
	}
	err = bpf_link__pin(link, next);
	if (err) {
		log_error("failed to pin %s: %s", next, strerror(-err));
		return err;
	}
	if (rename(next, pin)) {
		err = -errno;
		log_error("failed to replace %s: %s", pin, strerror(-err));
	}
	return err;
}

/*
 * Adopt the pinned links if this very build pinned them and every one runs
 * the very program this load would attach (same tag), or none: the pins
 * then stay one load, which the next start can resume. Another build's
 * programs may have the same tags (a change that left the instructions
 * alone), but their .rodata names that build, and resume() would refuse
 * the mix.
 */
static bool adopt_all(struct argguard_bpf *skel, bool kernel_head)
{
	struct pinned_prog pinned;
	struct bpf_link **link;
	__u32 features;
	int pin;

	if (!pinned_by_this_build(&pinned, &features))
		return false; /* none pinned, or another build's */
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		struct bpf_program *prog = program_of(skel, pin, kernel_head);

		if (!bpf_program__autoload(prog))
			continue; /* not for this kernel */
		*link_of(skel, pin, kernel_head) = adopt_pinned(prog, pin, pinned.btf_id);
		if (!*link_of(skel, pin, kernel_head))
			goto undo;
	}
	log_info("adopted the pinned links: each runs the very program this build loaded");
	return true;
undo:
	while (pin-- > NR_MAP_PINS) {
		link = link_of(skel, pin, kernel_head);
		bpf_link__destroy(*link); /* closes our fd; the pin keeps the link */
		*link = NULL;
	}
	return false;
}

/*
 * A link this build does not pin on this kernel, which an older build,
 * upgraded within the same boot, may have left: an exit program on a kernel
 * whose tracepoint now reports the same refusals. Unpinned, it is detached.
 */
static int unpin_unwanted(enum pin pin)
{
	char path[128];
	int err;

	pin_path(pin, path, sizeof(path));
	if (!unlink(path) || errno == ENOENT)
		return 0;
	err = -errno;
	log_error("failed to remove %s, which this kernel does not use: %s", path, strerror(-err));
	return err;
}

/*
 * Each program of the pin table enforcing through a pinned link: the
 * pinned ones adopted if they may be (not over maps made afresh, which an
 * adopted program would not use), else all attached anew.
 */
static int attach_all(struct argguard_bpf *skel, bool kernel_head, bool may_adopt)
{
	int pin, err;

	if (!may_adopt || !adopt_all(skel, kernel_head))
		for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
			struct bpf_program *prog = program_of(skel, pin, kernel_head);

			if (!bpf_program__autoload(prog))
				continue; /* not for this kernel */
			err = attach_and_pin(prog, link_of(skel, pin, kernel_head), pin);
			if (err)
				return err;
		}
	/* Only once what replaces them enforces. */
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		if (bpf_program__autoload(program_of(skel, pin, kernel_head)))
			continue;
		err = unpin_unwanted(pin);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Each map of the pin table at its pin: the load reuses a map pinned there,
 * policy and counters included, and pins the ones it creates.
 */
static int set_pin_paths(struct argguard_bpf *skel)
{
	struct bpf_map *map;
	char path[128];
	int err;

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		map = map_of(skel, pin);
		pin_path(pin, path, sizeof(path));
		err = bpf_map__set_pin_path(map, path);
		if (err) {
			log_error("failed to set the pin of %s: %s", bpf_map__name(map),
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Whether the map pinned at path is one this object's map could reuse. */
static bool pin_fits(const struct bpf_map *map, const char *path)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path);
	bool fits;

	if (fd < 0)
		return errno == ENOENT; /* nothing there: nothing in the way */
	fits = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == bpf_map__type(map) &&
	       info.key_size == bpf_map__key_size(map) &&
	       info.value_size == bpf_map__value_size(map) &&
	       info.max_entries == bpf_map__max_entries(map) &&
	       info.map_flags == bpf_map__map_flags(map);
	close(fd);
	return fits;
}

/* What each map pin holds, against the maps of this object. */
static void find_map_pins(const struct argguard_bpf *skel, struct map_pins_found *found)
{
	char path[128];

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		found->fits[pin] = pin_fits(map_of(skel, pin), path);
		found->pinned[pin] = !access(path, F_OK);
	}
}

/*
 * Pins left by a build whose maps differ (an upgrade that changed a map's
 * layout, within one boot), or a policy map whose pin is gone while the
 * others stay: the load could not reuse the first, and would make the
 * second afresh, all zero, under the rest of the policy. Unpin every map
 * then, so that the load makes them all afresh: they get the interim
 * policy, and the daemon applies the policy file. The old build's links
 * keep enforcing, with its maps, until this build's links replace them.
 */
static void drop_map_pins(enum map_plan plan, enum pin why_pin)
{
	char path[128];

	pin_path(why_pin, path, sizeof(path));
	log_notice("%s %s: making all maps afresh, and applying the policy file", path,
		   plan == MAPS_AFRESH_DIFFER
			   ? "was pinned by a build whose maps differ from this one's (an upgrade?)"
			   : "is gone, and it holds part of the policy");
	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			log_error("failed to remove %s: %s", path, strerror(errno));
	}
}

/*
 * The full start: load the object with every map at its pin, then adopt
 * or attach each link, and pin it. Fills *kernel. The skeleton stays open
 * until the process exits: load_in_child() runs this in a process of its own.
 */
static int load(bool *earlier_pins, struct kernel_features *kernel, int (*before_attach)(void))
{
	struct map_pins_found found;
	struct argguard_bpf *skel;
	enum map_plan plan;
	enum pin why_pin;
	bool may_adopt;
	int err;

	err = kernel_features_probe(kernel);
	if (err)
		return err;
	skel = argguard_bpf__open();
	if (!skel) {
		log_error("failed to open the BPF object: %s", strerror(errno));
		return errno ? -errno : -EINVAL;
	}
	find_map_pins(skel, &found);
	plan = *earlier_pins ? start_map_plan(&found, &why_pin) : MAPS_REUSE;
	if (plan != MAPS_REUSE) {
		drop_map_pins(plan, why_pin);
		*earlier_pins = false;
	}
	may_adopt = start_may_adopt(&found, plan);
	skel->rodata->argguard_build_id = ARGGUARD_BUILD_ID;
	skel->rodata->argguard_build_features = kernel_feature_bits(kernel);
	err = set_pin_paths(skel);
	if (!err)
		err = choose_programs(skel, kernel);
	if (err)
		goto out_destroy;
	err = argguard_bpf__load(skel);
	if (err) {
		log_error("failed to load the BPF programs: %s", strerror(-err));
		goto out_destroy;
	}
	/* The maps are pinned now; no program runs over them until they hold a policy. */
	err = before_attach();
	if (err)
		goto out_destroy;
	err = attach_all(skel, kernel->kernel_head, may_adopt);
	if (err)
		goto out_destroy;
	return 0;
out_destroy:
	argguard_bpf__destroy(skel);
	return err;
}

/* How the loader process ends. */
enum { LOADED_OVER_PINS, LOADED_AFRESH, LOAD_FAILED };

int programs_load_in_child(bool *earlier_pins, int (*before_attach)(void))
{
	struct kernel_features kernel;
	struct rusage usage;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		log_error("failed to start the loader process: %s", strerror(errno));
		return -errno;
	}
	if (!pid) {
		/*
		 * A stop now would leave some pins replaced and some not: finish
		 * first. systemd's SIGKILL, after TimeoutStopSec, still ends it.
		 */
		sigset_t stop;

		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_BLOCK, &stop, NULL);
		if (load(earlier_pins, &kernel, before_attach))
			_exit(LOAD_FAILED);
		_exit(*earlier_pins ? LOADED_OVER_PINS : LOADED_AFRESH);
	}
	while (wait4(pid, &status, 0, &usage) < 0)
		if (errno != EINTR) {
			log_error("failed to wait for the loader process: %s", strerror(errno));
			return -errno;
		}
	if (WIFSIGNALED(status))
		log_error("the loader process died of %s", strsignal(WTERMSIG(status)));
	if (!WIFEXITED(status) || WEXITSTATUS(status) == LOAD_FAILED)
		return -EIO; /* its errno stayed in the child, which logged it */
	*earlier_pins = WEXITSTATUS(status) == LOADED_OVER_PINS;
	log_info("loaded in a process of its own, whose peak RSS was %ld KiB", usage.ru_maxrss);
	return 0;
}
