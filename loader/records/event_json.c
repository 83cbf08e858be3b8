// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON log's writer, and journald's, of a record's fields
 * (record_fields.h): one JSON object, or with the writer's fields set, one
 * ARGGUARD_<KEY>=<value> a member.
 */
#include "event_json.h"
#include "json_writer.h"
#include "record_fields.h"
#include "record_spell.h"

#include <stdio.h>
#include <string.h>

/*
 * Bytes a caller chose. Bytes that are not UTF-8 cannot go into JSON as
 * they are: they are then written as hex, and "<key>_encoding" says so.
 */
static void add_bytes(struct json_writer *w, const char *key, const char *s, size_t len)
{
	char enc_key[64];

	if (record_is_utf8(s, len)) {
		json_string(w, key, s, len);
		return;
	}
	json_hex(w, key, s, len);
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	json_string(w, enc_key, "hex", 3);
}

/* The head of the command line as an array; all in hex if any of it is not UTF-8. */
static void add_args(struct json_writer *w, const char *key, const struct field_value *v)
{
	bool hex = !record_is_utf8(v->s, v->len);
	const char *p = v->s, *end = v->s + v->len;

	json_begin_array(w, key);
	while (p < end) {
		size_t n = strnlen(p, end - p);

		if (hex)
			json_hex(w, NULL, p, n);
		else
			json_string(w, NULL, p, n);
		p += n + 1;
	}
	json_end_array(w);
}

/* [{"uid": U, "suppressed": N}, ...], most first. */
static void add_top_uids(struct json_writer *w, const char *key, const struct field_value *v)
{
	const struct record_losses *n = v->losses;

	json_begin_array(w, key);
	for (int i = 0; i < RECORD_TOP_UIDS && n->top_uids[i].n; i++) {
		json_begin_object(w, NULL);
		json_s64(w, "uid", n->top_uids[i].uid);
		json_u64(w, "suppressed", n->top_uids[i].n);
		json_end_object(w);
	}
	json_end_array(w);
}

/* {"journald": N, "audit": N}: what the other sinks lost (the log has those records). */
static void add_other_sinks(struct json_writer *w, const char *key, const struct field_value *v)
{
	const struct record_losses *n = v->losses;

	json_begin_object(w, key);
	for (int i = 0; i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name)
			json_u64(w, n->other_sinks[i].name, n->other_sinks[i].n);
	json_end_object(w);
}

/* One of the CRI's names: bytes the pod's maker chose, or null. */
static void add_name(struct json_writer *w, const char *key, const char *name)
{
	if (name)
		add_bytes(w, key, name, strlen(name));
	else
		json_null(w, key);
}

/* An object; journald and audit get its members flat (record_fields.c), to match on. */
static void add_container(struct json_writer *w, const char *key, const struct field_value *v)
{
	const struct container *c = &v->container;
	size_t pod_len = strlen(c->pod_uid);

	json_begin_object(w, key);
	json_string(w, "runtime", c->runtime, strlen(c->runtime));
	json_string(w, "id", c->id, strlen(c->id));
	if (pod_len)
		json_string(w, "pod_uid", c->pod_uid, pod_len);
	else
		json_null(w, "pod_uid");
	json_boolean(w, "rootless", c->rootless);
	if (c->nested_runtime) {
		json_begin_object(w, "nested");
		json_string(w, "runtime", c->nested_runtime, strlen(c->nested_runtime));
		json_string(w, "id", c->nested_id, strlen(c->nested_id));
		json_end_object(w);
	} else {
		json_null(w, "nested");
	}
	add_name(w, "pod", v->names ? v->names->pod : NULL);
	add_name(w, "namespace", v->names ? v->names->namespace : NULL);
	add_name(w, "name", v->names ? v->names->name : NULL);
	add_name(w, "image", v->names ? v->names->image : NULL);
	json_end_object(w);
}

/* The kinds of value written as more than one JSON value. */
static void (*const add_compound[])(struct json_writer *w, const char *key,
				    const struct field_value *v) = {
	[FIELD_ARGS] = add_args,
	[FIELD_UIDS] = add_top_uids,
	[FIELD_SINKS] = add_other_sinks,
	[FIELD_CONTAINER] = add_container,
};

static void write_field(void *ctx, const struct record_field *f, const struct field_value *v)
{
	struct json_writer *w = ctx;

	if (v->state == FIELD_NULL)
		json_null(w, f->name);
	else if (f->kind == FIELD_TEXT)
		json_string(w, f->name, v->s, v->len);
	else if (f->kind == FIELD_BYTES)
		add_bytes(w, f->name, v->s, v->len);
	else if (f->kind == FIELD_LITERAL)
		json_literal(w, f->name, v->s, v->len);
	else
		add_compound[f->kind](w, f->name, v);
}

static void add_record(struct json_writer *w, const struct record *r, unsigned int skip)
{
	json_begin_object(w, NULL);
	record_walk(r, skip, write_field, w);
	json_end_object(w);
}

char *record_to_json(const struct record *r, size_t *len)
{
	struct json_writer w;

	json_writer_init(&w, false);
	add_record(&w, r, FIELD_NO_LOG);
	return json_writer_finish(&w, len);
}

void record_to_fields(const struct record *r, struct json_writer *w)
{
	json_writer_init(w, true);
	add_record(w, r, FIELD_NO_JOURNAL);
}

char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns)
{
	struct record r = { .kind = RECORD_EXEC,
			    .realtime_offset_ns = realtime_offset_ns,
			    .event = e };
	struct json_writer w;

	json_writer_init(&w, false);
	add_record(&w, &r, FIELD_NO_LOG | FIELD_NOT_EVENT);
	return json_writer_finish(&w, NULL);
}
