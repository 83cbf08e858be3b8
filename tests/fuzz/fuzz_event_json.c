// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the audit record formatter, fed what the ring buffer
 * could hold. The input is a struct argguard_event (cut or zero-padded to
 * its size), optionally followed by 8 bytes of realtime offset. Every field
 * may be hostile: strings without a NUL, head_len past the buffer, unknown
 * verdicts and errnos. The record must still be one line of valid JSON.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct argguard_event e;
	/* A realistic CLOCK_REALTIME - CLOCK_MONOTONIC: late 2023, booted a day ago. */
	int64_t offset = 1700000000000000000LL - 86400000000000LL;
	json_object *obj;
	char *line;

	memset(&e, 0, sizeof(e));
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	if (size >= sizeof(e) + sizeof(offset))
		memcpy(&offset, data + sizeof(e), sizeof(offset));

	line = event_to_json(&e, offset);
	if (!line)
		abort(); /* only when out of memory, which the fuzzer does not cause */
	obj = json_tokener_parse(line);
	if (!obj || !json_object_is_type(obj, json_type_object) || strchr(line, '\n')) {
		fprintf(stderr, "not one line of JSON: %s\n", line);
		abort();
	}
	json_object_put(obj);
	free(line);
	return 0;
}
