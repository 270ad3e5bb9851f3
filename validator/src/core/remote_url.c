/* Naming remote inputs (remote.h): which names are URLs, and the Hub's file URL of an hf:// name.
 * The Hub serves a repository file at {endpoint}/{repo_id}/resolve/{revision}/{filename}
 * (huggingface_hub's HUGGINGFACE_CO_URL_TEMPLATE, the URL hf_hub_download fetches); HF_ENDPOINT
 * replaces the endpoint, as huggingface_hub reads it. */
#include "remote.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define HF_DEFAULT_ENDPOINT "https://huggingface.co"

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

bool pc_is_url(const char *path)
{
    return path && (starts(path, "http://") || starts(path, "https://") || starts(path, "hf://"));
}

bool pc_url_is_folder(const char *url)
{
    size_t n = strlen(url);
    return n && url[n - 1] == '/';
}

/* A repo id is ORG/NAME: two non-empty parts of [A-Za-z0-9._-], no "..". */
static bool repo_part_ok(const char *s, size_t n)
{
    if (!n || n > 96 || (n == 2 && !strncmp(s, "..", 2)) || (n == 1 && *s == '.')) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* hf://ORG/REPO[@REVISION][/FILE...]: the revision may not hold '/' (a branch with one must be
 * given as its commit hash); FILE may be a path inside the repo. */
static char *hf_resolve(const char *name)
{
    const char *p = name + 5, *slash = strchr(p, '/');
    if (!slash || !repo_part_ok(p, (size_t)(slash - p))) return NULL;
    const char *repo_end = slash + 1;
    while (*repo_end && *repo_end != '/' && *repo_end != '@') repo_end++;
    if (!repo_part_ok(slash + 1, (size_t)(repo_end - slash - 1))) return NULL;
    char *repo = pc_strndup(p, (size_t)(repo_end - p)), *rev = NULL;
    const char *rest = repo_end;
    if (*rest == '@') {
        const char *r = rest + 1, *e = r;
        while (*e && *e != '/') e++;
        rev = e > r ? pc_strndup(r, (size_t)(e - r)) : NULL;
        rest = e;
        if (!rev) { free(repo); return NULL; }
    }
    if (*rest == '/') rest++;
    if (strstr(rest, "..")) { free(repo); free(rev); return NULL; }
    const char *ep = getenv("HF_ENDPOINT");
    if (!ep || !*ep) ep = HF_DEFAULT_ENDPOINT;
    size_t el = strlen(ep);
    while (el && ep[el - 1] == '/') el--;
    char *url = repo ? pc_asprintf("%.*s/%s/resolve/%s/%s", (int)el, ep, repo, rev ? rev : "main", rest) : NULL;
    free(repo);
    free(rev);
    return url;
}

char *pc_url_resolve(const char *name)
{
    if (starts(name, "hf://")) return hf_resolve(name);
    return pc_strdup(name);
}
