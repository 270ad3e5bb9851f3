/* Reading members of a parsed JSON object (cJSON) without tripping on a missing or mistyped key:
 * the one copy every room uses (configs, the catalogue, report documents). */
#ifndef PC_JSON_GET_H
#define PC_JSON_GET_H

#include <cjson/cJSON.h>

const char *pc_json_str(const cJSON *o, const char *k);        /* "" when absent or not a string */
double pc_json_num(const cJSON *o, const char *k, double dflt); /* dflt when absent or not a number */
const cJSON *pc_json_obj(const cJSON *o, const char *k);       /* NULL when absent or not an object */
const cJSON *pc_json_arr(const cJSON *o, const char *k);       /* NULL when absent or not an array */

#endif
