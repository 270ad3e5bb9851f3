/* Naming remote inputs (core/remote_url.c): which names are URLs, and the Hub's file URL of an
 * hf:// name ({HF_ENDPOINT}/ORG/REPO/resolve/{REVISION}/{FILE}); malformed names are refused. */
#include "core/remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static void expect(const char *name, const char *want)
{
    char *got = pc_url_resolve(name);
    if (want) CHECK(got && !strcmp(got, want), "%s -> %s, expected %s", name, got ? got : "NULL", want);
    else CHECK(!got, "%s -> %s, expected refusal", name, got);
    free(got);
}

int main(void)
{
    CHECK(pc_is_url("https://h/x.safetensors") && pc_is_url("http://h/") && pc_is_url("hf://a/b"), "URL forms");
    CHECK(!pc_is_url("/tmp/x") && !pc_is_url("ftp://h/x") && !pc_is_url("hf:/a/b") && !pc_is_url(NULL), "not URLs");
    CHECK(pc_url_is_folder("http://h/a/") && !pc_url_is_folder("http://h/a/model.safetensors"), "folder URLs end in /");
    unsetenv("HF_ENDPOINT");
    expect("hf://org/repo", "https://huggingface.co/org/repo/resolve/main/");
    expect("hf://org/repo@v1.0", "https://huggingface.co/org/repo/resolve/v1.0/");
    expect("hf://org/repo/model.gguf", "https://huggingface.co/org/repo/resolve/main/model.gguf");
    expect("hf://org/repo@abc123/sub/model.safetensors", "https://huggingface.co/org/repo/resolve/abc123/sub/model.safetensors");
    expect("https://h/x", "https://h/x");
    setenv("HF_ENDPOINT", "http://127.0.0.1:8080/hub//", 1);
    expect("hf://o/r@main/f.gguf", "http://127.0.0.1:8080/hub/o/r/resolve/main/f.gguf");
    expect("hf://org", NULL);
    expect("hf://org/", NULL);
    expect("hf:///repo", NULL);
    expect("hf://org/re po", NULL);
    expect("hf://../repo", NULL);
    expect("hf://org/repo@", NULL);
    expect("hf://org/repo/../../etc/passwd", NULL);
    return test_finish();
}
