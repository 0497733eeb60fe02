// SPDX-License-Identifier: LGPL-2.1-or-later
/* Attaching to user space: uprobes (one or uprobe.multi batches), USDT, smbd's SMB2 requests. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/profile.h"
#include "probes/probes-int.h"
#include "base/clock.h"

/* Entry and exit programs on one place of binary, a cookie naming f; exit first. */
static int attach_pair(struct probes *p, struct func *f, enum backend be,
		       struct bpf_link *(*attach)(struct probes *p, struct func *f, bool exit,
						  const void *where),
		       const void *where)
{
	struct attachment *a = attachment_new(p, f->id);
	const char *what = backend_name(be);
	int r;

	if (!a)
		return -ENOMEM;
	a->link[1] = attach(p, f, true, where);
	if (!a->link[1])
		goto fail;
	a->link[0] = attach(p, f, false, where);
	if (!a->link[0])
		goto fail;
	func_set_attached(f, be);
	return 0;
fail:
	r = -errno;
	attachment_release(a);
	p->n_att--;
	set_failed(f, what, r);
	return r;
}

/* A function of binary, by symbol or by file offset. */
struct uprobe_place {
	const char *binary;
	const char *symbol; /* NULL: offset */
	uint64_t offset;
	int pid;
};

/*
 * Without cookies, the uprobe tells its function by the inode number of
 * its file and the offset (a symbol alone has no place known here).
 */
static int uprobe_place(struct probes *p, const struct func *f, const char *binary, const char *symbol,
			uint64_t offset)
{
	struct stat st;

	if (!p->place_ids)
		return 0;
	if (symbol)
		return -EOPNOTSUPP;
	if (stat(binary, &st) < 0)
		return -errno;
	return place_set(p, st.st_ino, offset, f->id);
}

static struct bpf_link *uprobe_at(struct probes *p, struct func *f, bool exit, const void *where)
{
	const struct uprobe_place *w = where;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = p->place_ids ? 0 : f->id, .retprobe = exit,
		    .func_name = w->symbol);
	uint64_t t0 = now_ns();
	struct bpf_link *l;
	int r = uprobe_place(p, f, w->binary, w->symbol, w->offset);

	if (r < 0) {
		errno = -r;
		return NULL;
	}

	l = bpf_program__attach_uprobe_opts(exit ? p->skel->progs.call_uretprobe : p->skel->progs.call_uprobe,
					    w->pid, w->binary, w->offset, &o);
	prof_add(PROF_LINK, t0);
	return l;
}

static int usession_link(struct probes *p, const char *binary, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t n, int pid);

int probes_attach_uprobe_at(struct probes *p, struct func *f, const char *binary, uint64_t offset, int pid)
{
	struct uprobe_place w = { binary, NULL, offset, pid };
	uint64_t cookie = f->id;
	struct attachment *a;
	int fd;

	ufiles_target(p, binary);
	if (p->usession) {
		fd = usession_link(p, binary, &offset, &cookie, 1, pid);
		a = fd >= 0 ? attachment_new(p, f->id) : NULL;
		if (a) {
			a->link_fd[0] = fd;
			func_set_attached(f, BACKEND_UPROBE_SESSION);
			return 0;
		}
		if (fd >= 0)
			close(fd);
	}
	return attach_pair(p, f, BACKEND_UPROBE, uprobe_at, &w);
}

int probes_attach_uprobe(struct probes *p, struct func *f, const char *binary, const char *symbol, int pid)
{
	struct uprobe_place w = { binary, symbol, 0, pid };

	ufiles_target(p, binary);
	return attach_pair(p, f, BACKEND_UPROBE, uprobe_at, &w);
}

struct usdt_place {
	const char *binary, *provider, *start, *end;
	int pid;
};

static struct bpf_link *usdt_at(struct probes *p, struct func *f, bool exit, const void *where)
{
	const struct usdt_place *w = where;
	LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = f->id);

	return bpf_program__attach_usdt(exit ? p->skel->progs.usdt_exit : p->skel->progs.usdt_entry, w->pid,
					w->binary, w->provider, exit ? w->end : w->start, &o);
}

int probes_attach_usdt(struct probes *p, struct func *f, const char *binary, const char *provider,
		       const char *start, const char *end, int pid)
{
	struct usdt_place w = { binary, provider, start, end, pid };

	ufiles_target(p, binary);
	return attach_pair(p, f, BACKEND_USDT, usdt_at, &w);
}

/* A request's begin: program prog at offset of binary for f (its id the cookie). */
static int begin_attach(struct probes *p, struct func *f, struct bpf_program *prog, const char *binary,
			uint64_t offset)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = p->place_ids ? 0 : f->id);
	struct attachment *a;
	int r = uprobe_place(p, f, binary, NULL, offset);

	ufiles_target(p, binary);
	if (r < 0) {
		set_failed(f, "uprobe", r);
		return r;
	}
	a = attachment_new(p, f->id);
	if (!a)
		return -ENOMEM;
	a->link[0] = bpf_program__attach_uprobe_opts(prog, -1, binary, offset, &o);
	if (!a->link[0]) {
		r = -errno;
		p->n_att--;
		set_failed(f, "uprobe", r);
		return r;
	}
	func_set_attached(f, BACKEND_UPROBE);
	return 0;
}

/* A request's shared end: program prog at offset of binary, for every function (no cookie). */
static int end_attach(struct probes *p, struct bpf_program *prog, const char *binary, uint64_t offset)
{
	struct attachment *a = attachment_new(p, UINT32_MAX);

	if (!a)
		return -ENOMEM;
	a->link[0] = bpf_program__attach_uprobe_opts(prog, -1, binary, offset, NULL);
	if (!a->link[0]) {
		p->n_att--;
		return -errno;
	}
	return 0;
}

static int umulti_attach(struct attachment *a, int slot, const struct bpf_program *prog, const char *binary,
			 const uint64_t *offsets, const uint64_t *cookies, uint32_t n, bool ret)
{
#if LIBBPF_MAJOR_VERSION > 1 || LIBBPF_MINOR_VERSION >= 3
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = (const unsigned long *)offsets,
		    .cookies = (const __u64 *)cookies, .cnt = n, .retprobe = ret);

	a->link[slot] = bpf_program__attach_uprobe_multi(prog, -1, binary, NULL, &o);
	return a->link[slot] ? 0 : -errno;
#else
	int fd = umulti_link_create(bpf_program__fd(prog), binary, offsets, cookies, n, ret);

	if (fd < 0)
		return fd;
	a->link_fd[slot] = fd;
	return 0;
#endif
}

/*
 * uprobe.session: the one program on n offsets of binary, a link fd or
 * -errno; a refusal means the kernel has none after all, and usession is
 * not tried again.
 */
static int usession_link(struct probes *p, const char *binary, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t n, int pid)
{
	uint64_t t0 = now_ns();
	int fd = umulti_link(bpf_program__fd(p->skel->progs.usession), USESSION_ATTACH_TYPE, binary, offsets,
			     cookies, n, 0, pid),
	    r = fd;

	prof_add(PROF_LINK, t0);
	if (fd >= 0)
		return fd;
	if (r == -EINVAL || r == -EOPNOTSUPP || r == -524 /* ENOTSUPP */)
		p->usession = false;
	return r;
}

/*
 * Both programs (or only prog[0] with prog[1] NULL) on n offsets; exit
 * first. With cookies the batch serves those ids (detached one by one,
 * revived in place); without, it is shared by every id.
 */
static int umulti_pair(struct probes *p, struct bpf_program *const prog[2], const char *binary,
		       const uint64_t *offsets, const uint64_t *cookies, uint32_t n)
{
	struct attachment a = { .id = UINT32_MAX, .prog_fd = { -1, -1 }, .link_fd = { -1, -1 } };
	struct attachment *kept;
	uint64_t t0;
	int r = 0;

	if (!p->umulti)
		return -EOPNOTSUPP;
	t0 = now_ns();
	if (prog[1])
		r = umulti_attach(&a, 1, prog[1], binary, offsets, cookies, n, true);
	if (r == 0)
		r = umulti_attach(&a, 0, prog[0], binary, offsets, cookies, n, false);
	prof_add(PROF_LINK, t0);
	if (r == 0 && cookies)
		r = multi_keep(p, &a, cookies, n, BACKEND_UPROBE_MULTI);
	if (r == 0 && !cookies) {
		kept = attachment_new(p, UINT32_MAX);
		if (kept)
			*kept = a;
		r = kept ? 0 : -ENOMEM;
	}
	if (r < 0) {
		attachment_release(&a);
		if (r == -EINVAL || r == -EOPNOTSUPP || r == -524 /* ENOTSUPP */)
			p->umulti = false; /* the kernel has no uprobe.multi */
	}
	return r;
}

static uint64_t *cookies_of(struct func **fv, uint32_t n)
{
	uint64_t *c = calloc(n ? n : 1, sizeof(*c));

	for (uint32_t i = 0; c && i < n; i++)
		c[i] = fv[i]->id;
	return c;
}

static void batch_done(struct func **fv, uint32_t n, enum backend be)
{
	for (uint32_t i = 0; i < n; i++)
		func_set_attached(fv[i], be);
}

/* A session link for a batch of ids, kept like a uprobe.multi batch (multi_keep()). */
static int usession_batch(struct probes *p, const char *binary, const uint64_t *offsets,
			  const uint64_t *cookies, uint32_t n)
{
	struct attachment a = { .id = UINT32_MAX, .prog_fd = { -1, -1 }, .link_fd = { -1, -1 } };
	int r;

	a.link_fd[0] = usession_link(p, binary, offsets, cookies, n, -1);
	if (a.link_fd[0] < 0)
		return a.link_fd[0];
	r = multi_keep(p, &a, cookies, n, BACKEND_UPROBE_SESSION);
	if (r < 0)
		attachment_release(&a);
	return r;
}

/* Moves the ids a live batch still holds to the front, revived; returns how many. */
static uint32_t revive_front(struct probes *p, struct func **fv, uint64_t *offsets, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct func *f = fv[i];
		uint64_t o = offsets[i];
		enum backend be = multi_revive(p, f->id);

		if (be == BACKEND_NONE)
			continue;
		func_set_attached(f, be);
		fv[i] = fv[k];
		offsets[i] = offsets[k];
		fv[k] = f;
		offsets[k++] = o;
	}
	return k;
}

int probes_attach_uprobes(struct probes *p, struct func **fv, uint64_t *offsets, uint32_t n,
			  const char *binary)
{
	struct bpf_program *prog[2] = { p->skel->progs.umulti_entry, p->skel->progs.umulti_exit };
	uint32_t k = revive_front(p, fv, offsets, n);
	uint64_t *cookies = cookies_of(fv + k, n - k);
	int attached = k;

	if (!cookies)
		return -ENOMEM;
	ufiles_target(p, binary);
	if (n > k && p->usession && usession_batch(p, binary, offsets + k, cookies, n - k) == 0) {
		batch_done(fv + k, n - k, BACKEND_UPROBE_SESSION);
		attached = n;
	} else if (n > k && umulti_pair(p, prog, binary, offsets + k, cookies, n - k) == 0) {
		batch_done(fv + k, n - k, BACKEND_UPROBE_MULTI);
		attached = n;
	} else {
		for (uint32_t i = k; i < n; i++)
			attached += probes_attach_uprobe_at(p, fv[i], binary, offsets[i], -1) == 0;
	}
	free(cookies);
	return attached;
}

/* The batch's begins and ends with uprobe.multi links: 0, -EOPNOTSUPP without them, or negative errno. */
static int requests_multi(struct probes *p, const struct uprog_pair *begin, const struct uprog_pair *end,
			  const uint64_t *begins, const uint64_t *cookies, uint32_t n, const uint64_t *ends,
			  uint32_t n_ends, bool *ends_on, const char *binary)
{
	struct bpf_program *bprog[2] = { prog_at(p->skel, begin->multi), NULL };
	struct bpf_program *eprog[2] = { prog_at(p->skel, end->multi), NULL };
	int r = 0;

	if (!p->umulti || !bprog[0] || !eprog[0])
		return -EOPNOTSUPP;
	/* Ends first, once: a begin without its end would leave requests in the map. */
	if (!*ends_on)
		r = umulti_pair(p, eprog, binary, ends, NULL, n_ends);
	if (r == 0 && p->umulti) {
		*ends_on = true;
		r = umulti_pair(p, bprog, binary, begins, cookies, n);
	}
	return r == 0 && !p->umulti ? -EOPNOTSUPP : r;
}

int probes_attach_uprobe_requests(struct probes *p, struct func **fv, uint64_t *begins, uint32_t n,
				  const struct uprog_pair *begin, const struct uprog_pair *end,
				  const uint64_t *ends, uint32_t n_ends, bool *ends_on, const char *binary)
{
	uint32_t k = revive_front(p, fv, begins, n);
	uint64_t *cookies = cookies_of(fv + k, n - k);
	int r, attached = k;

	ufiles_target(p, binary);
	if (!cookies)
		return -ENOMEM;
	if (n == k)
		goto out;
	r = requests_multi(p, begin, end, begins + k, cookies, n - k, ends, n_ends, ends_on, binary);
	if (r != -EOPNOTSUPP) {
		if (r == 0)
			batch_done(fv + k, n - k, BACKEND_UPROBE_MULTI);
		attached = r == 0 ? (int)n : r;
		goto out;
	}
	for (uint32_t i = 0; !*ends_on && i < n_ends; i++) {
		r = end_attach(p, prog_at(p->skel, end->single), binary, ends[i]);
		if (r < 0) {
			attached = r;
			goto out;
		}
	}
	*ends_on = true;
	for (uint32_t i = k; i < n; i++)
		attached += begin_attach(p, fv[i], prog_at(p->skel, begin->single), binary, begins[i]) == 0;
out:
	free(cookies);
	return attached;
}

int probes_attach_uprobe_set(struct probes *p, struct func *f, const struct uprog_pair *prog,
			     const char *binary, const uint64_t *offsets, const uint64_t *cookies, uint32_t n,
			     bool ret)
{
	struct bpf_program *single = prog_at(p->skel, prog->single), *multi = prog_at(p->skel, prog->multi);
	struct attachment *a;
	uint32_t first = p->n_att;
	int r = 0;

	ufiles_target(p, binary);
	if (!single || !bpf_program__autoload(single))
		return -ENOENT;
	/* without cookies the programs do without what they told (COMPAT_PLACE_IDS) */
	if (p->place_ids)
		cookies = NULL;
	if (p->umulti && multi && bpf_program__autoload(multi)) {
		a = attachment_new(p, f->id);
		if (!a)
			return -ENOMEM;
		r = umulti_attach(a, ret, multi, binary, offsets, cookies, n, ret);
		if (r == 0) {
			func_set_attached(f, BACKEND_UPROBE_MULTI);
			return 0;
		}
		attachment_release(a);
		p->n_att--;
		if (r != -EINVAL && r != -EOPNOTSUPP && r != -524 /* ENOTSUPP */) {
			set_failed(f, "uprobe.multi", r);
			return r;
		}
		p->umulti = false; /* the kernel has no uprobe.multi */
	}
	for (uint32_t i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookies ? cookies[i] : 0, .retprobe = ret);

		a = attachment_new(p, f->id);
		if (!a) {
			r = -ENOMEM;
			break;
		}
		a->link[ret] = bpf_program__attach_uprobe_opts(single, -1, binary, offsets[i], &o);
		if (!a->link[ret]) {
			r = -errno;
			p->n_att--;
			break;
		}
	}
	if (r < 0) {
		/* nothing of a set half attached stays */
		for (uint32_t i = p->n_att; i > first; i--)
			attachment_release(&p->att[i - 1]);
		p->n_att = first;
		set_failed(f, "uprobe", r);
		return r;
	}
	func_set_attached(f, BACKEND_UPROBE);
	return 0;
}
