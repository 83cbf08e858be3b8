// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON log's writer, and journald's, of a record's fields
 * (record_fields.h): one JSON object, or with the writer's fields set, one
 * ARGGUARD_<KEY>=<value> a member.
 */
#include "event_json.h"
#include "json_writer.h"
#include "record_fields.h"

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
static void add_args(struct json_writer *w, const char *key, const char *s, size_t len)
{
	bool hex = !record_is_utf8(s, len);
	const char *p = s, *end = s + len;

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
static void add_top_uids(struct json_writer *w, const char *key, const struct record_losses *n)
{
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
static void add_other_sinks(struct json_writer *w, const char *key, const struct record_losses *n)
{
	json_begin_object(w, key);
	for (int i = 0; i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name)
			json_u64(w, n->other_sinks[i].name, n->other_sinks[i].n);
	json_end_object(w);
}

/* An object; journald gets flat fields, to match on. */
static void add_container(struct json_writer *w, const char *key, const struct container *c)
{
	size_t pod_len = strlen(c->pod_uid);

	if (w->fields) {
		json_string(w, "container_runtime", c->runtime, strlen(c->runtime));
		json_string(w, "container_id", c->id, strlen(c->id));
		if (pod_len)
			json_string(w, "container_pod_uid", c->pod_uid, pod_len);
		json_boolean(w, "container_rootless", c->rootless);
		return;
	}
	json_begin_object(w, key);
	json_string(w, "runtime", c->runtime, strlen(c->runtime));
	json_string(w, "id", c->id, strlen(c->id));
	if (pod_len)
		json_string(w, "pod_uid", c->pod_uid, pod_len);
	else
		json_null(w, "pod_uid");
	json_boolean(w, "rootless", c->rootless);
	json_end_object(w);
}

static void write_field(void *ctx, const struct record_field *f, const struct field_value *v)
{
	struct json_writer *w = ctx;

	if (v->state == FIELD_NULL) {
		json_null(w, f->name);
		return;
	}
	switch (f->kind) {
	case FIELD_TEXT:
		json_string(w, f->name, v->s, v->len);
		break;
	case FIELD_BYTES:
		add_bytes(w, f->name, v->s, v->len);
		break;
	case FIELD_U64:
		json_u64(w, f->name, v->u);
		break;
	case FIELD_S64:
		json_s64(w, f->name, v->i);
		break;
	case FIELD_BOOL:
		json_boolean(w, f->name, v->b);
		break;
	case FIELD_FIXED3:
		json_fixed3(w, f->name, v->d);
		break;
	case FIELD_ARGS:
		add_args(w, f->name, v->s, v->len);
		break;
	case FIELD_UIDS:
		add_top_uids(w, f->name, v->losses);
		break;
	case FIELD_SINKS:
		add_other_sinks(w, f->name, v->losses);
		break;
	case FIELD_CONTAINER:
		add_container(w, f->name, &v->container);
		break;
	}
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
	add_record(&w, r, 0);
	return json_writer_finish(&w, len);
}

void record_to_fields(const struct record *r, struct json_writer *w)
{
	json_writer_init(w, true);
	add_record(w, r, 0);
}

char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns)
{
	struct record r = { .kind = RECORD_EXEC,
			    .realtime_offset_ns = realtime_offset_ns,
			    .event = e };
	struct json_writer w;

	json_writer_init(&w, false);
	add_record(&w, &r, FIELD_NOT_EVENT);
	return json_writer_finish(&w, NULL);
}
