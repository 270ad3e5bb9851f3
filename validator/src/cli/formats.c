/* packcheck formats [--json] : the format table, each format with the tensor parts its modules are
 * made of (the generators' accounting reads these, so C and Python keep one list). */
#include "cli.h"

#include "formats/format.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE = "packcheck formats [--json]";

static const char *role_name(pc_part_role r) { return r & PC_PART_CODES ? "codes" : "companion"; }

static cJSON *format_json(const pc_format *f)
{
    cJSON *o = cJSON_CreateObject(), *parts = cJSON_CreateArray();
    if (!o || !parts) { cJSON_Delete(o); cJSON_Delete(parts); return NULL; }
    cJSON_AddStringToObject(o, "name", f->name);
    cJSON_AddBoolToObject(o, "decodes", f->decode != NULL);
    for (const pc_part *p = f->parts; p && p->suffix; p++) {
        cJSON *x = cJSON_CreateObject();
        if (!x) break;
        cJSON_AddStringToObject(x, "suffix", p->suffix);
        cJSON_AddStringToObject(x, "role", role_name(p->role));
        if (p->role & PC_PART_JSON) cJSON_AddBoolToObject(x, "json", true);
        cJSON_AddItemToArray(parts, x);
    }
    cJSON_AddItemToObject(o, "parts", parts);
    return o;
}

static int print_json(void)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    if (!doc || !arr) { cJSON_Delete(doc); cJSON_Delete(arr); return PC_EXIT_ERROR; }
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddItemToObject(doc, "formats", arr);
    for (const pc_format *const *f = pc_formats; *f; f++) cJSON_AddItemToArray(arr, format_json(*f));
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text) return PC_EXIT_ERROR;
    puts(text);
    free(text);
    return PC_EXIT_OK;
}

static void print_text(void)
{
    for (const pc_format *const *f = pc_formats; *f; f++) {
        printf("%-22s %s", (*f)->name, (*f)->decode ? "decodes" : "recognises");
        const char *sep = "  parts:";
        for (const pc_part *p = (*f)->parts; p && p->suffix; p++, sep = ",")
            printf("%s %s%s", sep, *p->suffix ? p->suffix : "(the module tensor)", p->role & PC_PART_CODES ? " [codes]" : p->role & PC_PART_JSON ? " [json]" : "");
        putchar('\n');
    }
}

int cmd_formats(int argc, char **argv)
{
    if (argc == 2 && cli_is_help(argv[1])) { printf("usage: %s\n", USAGE); return PC_EXIT_OK; }
    if (argc == 2 && !strcmp(argv[1], "--json")) return print_json();
    if (argc != 1) { fprintf(stderr, "usage: %s\n", USAGE); return PC_EXIT_ERROR; }
    print_text();
    return PC_EXIT_OK;
}
